"""How the rankings of a search become its results: pages vote, chunks follow."""

from __future__ import annotations

from codekeep.docs.retrieval import diversify, fuse_pages

PAGES = {1: "async.md", 2: "async.md", 3: "testing.md", 4: "queries.md", 5: "releases/5.0.md"}


def test_a_page_both_sources_like_beats_a_chunk_both_rank_in_the_middle() -> None:
    # BM25 likes chunk 1 of the async page, the embeddings chunk 2 of it; both put a
    # chunk of the testing page second. Chunk by chunk, chunk 3 would win (two votes).
    bm25, vectors = [1, 3, 4], [2, 3, 4]
    fused = fuse_pages([bm25, vectors], PAGES, k=10, release_notes_weight=1.0)
    assert [chunk_id for chunk_id, _score in fused] == [1, 2, 3, 4]
    assert fused[0][1] == fused[1][1] > fused[2][1]  # the page's score, for both its chunks


def test_release_notes_count_less_than_the_page_that_explains() -> None:
    ranking = [5, 4]
    plain = fuse_pages([ranking], PAGES, k=10, release_notes_weight=1.0)
    demoted = fuse_pages([ranking], PAGES, k=10, release_notes_weight=0.5)
    assert [c for c, _s in plain] == [5, 4] and [c for c, _s in demoted] == [4, 5]


def test_each_page_has_its_turn_before_a_second_chunk_of_one() -> None:
    fused = fuse_pages([[1, 2, 3, 4]], PAGES, k=10, release_notes_weight=1.0)
    assert [c for c, _s in diversify(fused, PAGES, per_page=1)] == [1, 3, 4, 2]
