"""Ranking: FTS5 BM25 over weighted fields, fused by reciprocal rank with the code map
and (when configured) embeddings.

Each source gives a ranking of chunk ids; each ranking votes for pages (``Σ 1 / (k +
rank)`` over the rankings, the rank of a page being that of its first chunk), so a page
that BM25 likes *and* that names the symbol the question is about rises above one only
BM25 likes; the results are the pages' chunks, best page first (:func:`fuse_pages`).

* ``bm25``: the question's words, title > heading > path > body (see ``DocsSettings``);
  each expansion of the question (multi-query, HyDE: ``codekeep.agent.docs_expansion``)
  is one more such ranking.
* ``symbols``: chunks that name, as code, a symbol the question names (``CodeMap``,
  ``find_related``) or a symbol defined in a file the user is focused on; the BM25
  candidates first in their order, then other chunks naming the question's symbols.
* ``vectors``: cosine similarity of the question's embedding to every chunk's, and to
  every page's centroid (:mod:`codekeep.docs.vectors`): two rankings, their best ``pool``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from codekeep.docs.formats import is_release_notes
from codekeep.docs.store import DocsStore
from codekeep.docs.text import query_terms

Ranking = list[int]
# The vector source: (how many, whether nothing else found a chunk) -> rankings by
# similarity to the (already embedded) question.
VectorRanker = Callable[[int, bool], list[Ranking]]


@dataclass(frozen=True, slots=True)
class Sources:
    """What a search may consult besides BM25 (all optional)."""

    symbol_names: frozenset[str] = frozenset()  # named by the question (exist in the code)
    focus_names: frozenset[str] = frozenset()  # defined in the focused files
    expansions: tuple[str, ...] = ()
    vectors: VectorRanker | None = None


def diversify(fused: Sequence[tuple[int, float]], page_of: dict[int, str],
              per_page: int) -> list[tuple[int, float]]:
    """At most ``per_page`` chunks of one page before every other page had its turn:
    five results from five pages answer more than five from one."""
    kept: list[tuple[int, float]] = []
    later: list[tuple[int, float]] = []
    seen: dict[str, int] = {}
    for item in fused:
        page = page_of.get(item[0], "")
        seen[page] = seen.get(page, 0) + 1
        (kept if seen[page] <= per_page else later).append(item)
    return kept + later


def fuse_pages(rankings: Sequence[Ranking], page_of: dict[int, str], k: int,
               release_notes_weight: float) -> list[tuple[int, float]]:
    """Every ranked chunk, best page first, each scored with its page's fused score.

    The answer to a question is a page, and the sources agree on pages more than on
    chunks: BM25's best chunk of the async page and the embeddings' best chunk of it are
    often two different sections, which chunk-level RRF scores as two half-liked chunks
    below a chunk of another page both rank in the middle. So each ranking votes for
    pages, in the order their first chunk appears (``Σ 1 / (k + page rank)``); within a
    page, chunks keep their chunk-level RRF order. Release notes' page scores are
    multiplied by ``release_notes_weight``: a version's notes name every feature it
    touched, so they match most questions, while a question is rarely about what changed
    in which release (a prior on the page, never on the question).
    """
    pages: dict[str, float] = {}
    for ranking in rankings:
        order = dict.fromkeys(page_of[chunk_id] for chunk_id in ranking if chunk_id in page_of)
        for rank, page in enumerate(order, start=1):
            pages[page] = pages.get(page, 0.0) + 1.0 / (k + rank)
    if release_notes_weight != 1.0:
        for page in pages:
            if is_release_notes(page):
                pages[page] *= release_notes_weight
    chunks = [(chunk_id, pages[page_of[chunk_id]]) for chunk_id, _score in rrf(rankings, k)
              if chunk_id in page_of]
    return sorted(chunks, key=lambda item: -item[1])  # stable: chunk order within a page


def rrf(rankings: Sequence[Ranking], k: int) -> list[tuple[int, float]]:
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, chunk_id in enumerate(ranking, start=1):
            scores[chunk_id] = scores.get(chunk_id, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda item: -item[1])


def bm25(store: DocsStore, text: str, weights: tuple[float, float, float, float],
         pool: int) -> Ranking:
    terms = query_terms(text)
    if not terms.words:
        return []
    return store.ranked(terms.expression(), weights, pool)


def rankings(
    store: DocsStore,
    query: str,
    sources: Sources,
    weights: tuple[float, float, float, float],
    pool: int,
) -> list[Ranking]:
    lexical = bm25(store, query, weights, pool)
    found = [lexical]
    for expansion in sources.expansions:
        ranked = bm25(store, expansion, weights, pool)
        if ranked:
            found.append(ranked)
    candidates = list(dict.fromkeys(chunk_id for ranking in found for chunk_id in ranking))
    names = sources.symbol_names | sources.focus_names
    if names:
        linked = store.mentioning(names, among=candidates)
        by_symbol = [chunk_id for chunk_id in candidates if chunk_id in linked]
        if sources.symbol_names:
            others = store.mentioning(sources.symbol_names) - set(by_symbol)
            by_symbol += sorted(others)[: max(0, pool - len(by_symbol))]
        if by_symbol:
            found.append(by_symbol)
    if sources.vectors is not None:
        found += [ranking for ranking in sources.vectors(pool, not any(found)) if ranking]
    return found
