"""Embeddings in the knowledge base: the local model finds a page by meaning, chunks
rank by cosine (new vectors seen, other models' sizes ignored) and pages by their
centroid as well, a changed page is embedded in the background, and settings pick the
provider."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from codekeep.docs import DocsIndex, DocsSettings
from codekeep.docs.store import DocsStore
from codekeep.docs.text import embedding_text
from codekeep.docs.vectors import LOCAL_TOKENS, VectorIndex
from codekeep.embeddings.embedders import EmbeddingClient, LocalEmbedder, embedder_for, pack
from codekeep.embeddings.vector_cache import default_vector_cache
from codekeep.settings import Settings
from codekeep.settings.docs import DocsEmbeddingSettings
from codekeep.settings.fields import structure
from codekeep.settings.memory import EmbeddingSettings
from codekeep.testing.embeddings_server import ConceptEmbeddingServer

LOCAL = DocsSettings(embeddings=DocsEmbeddingSettings(provider="local"))


def write_pages(root: Path) -> None:
    (root / "docs").mkdir()
    (root / "docs" / "messages.rst").write_text(
        "The messages framework\n======================\n\n"
        ".. module:: shop.messages\n   :synopsis: Temporary message storage.\n\n"
        "Quite commonly you need to display a one-time notification message to the user "
        "after processing a form.\n", encoding="utf-8")
    (root / "docs" / "aggregation.md").write_text(
        "# Aggregation\n\nCompute sums and averages over many rows of a table.\n",
        encoding="utf-8")
    (root / "docs" / "deploy.md").write_text(
        "# Deployment\n\nCopy the static files to the web server before going live.\n",
        encoding="utf-8")


def test_the_local_model_finds_a_page_with_no_word_in_common(
    tmp_path: Path, minilm: object,
) -> None:
    write_pages(tmp_path)
    question = "flash a notice after a redirect"
    with DocsIndex.open(tmp_path) as lexical:
        lexical.index()
        assert lexical.search(question).hits == []
    with DocsIndex.open(tmp_path, settings=LOCAL) as index:
        index.index(embed="now")  # the chunks are embedded before index() returns
        assert index._store.vector_count("local/all-MiniLM-L6-v2") == 3
        assert index.search(question).hits[0].path == "docs/messages.rst"
        assert index.search("mean value of a column").hits[0].path == "docs/aggregation.md"
        # nearest neighbours exist for any question: alone, they must be near enough
        nothing = index.search("kubernetes")
        assert nothing.hits == [] and "kubernetes" in (nothing.reason or "")


def test_chunks_rank_by_cosine_and_new_vectors_count(tmp_path: Path) -> None:
    store = DocsStore(tmp_path / "docs.db")
    try:
        directions = [[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8], [0.0, 0.0, 1.0]]
        for number in range(len(directions) + 1):
            store.conn.execute("INSERT INTO doc_files(id, path, size, mtime_ns, hash, status) "
                               "VALUES (?, ?, 0, 0, '', 'indexed')", (number, f"{number}.md"))
            store.conn.execute("INSERT INTO doc_chunks(id, file_id, ord, heading, start_line, "
                               "end_line, text) VALUES (?, ?, 0, 'h', 1, 1, 't')",
                               (number + 1, number))
        for number, direction in enumerate(directions):
            store.put_vectors("m", [(number + 1, pack(direction))])
        embedder = EmbeddingClient(EmbeddingSettings(url="http://127.0.0.1:9/v1", model="m"))
        index = VectorIndex(store, embedder, threading.RLock(), lambda: True)
        # one chunk a page: its centroid is its vector, both rankings agree
        assert index.rank([0.0, 0.8, 0.6], 3) == [[3, 2, 4]] * 2
        assert index.rank([0.0, 0.8, 0.6], 10) == [[3, 2, 4, 1]] * 2
        store.put_vectors("m", [(5, pack([0.0, 0.8, 0.6]))])  # the best match, added later
        store.put_vectors("m", [(1, pack([0.0, 0.8, 0.6, 0.0]))])  # another size: not ranked
        assert index.rank([0.0, 0.8, 0.6], 3) == [[5, 3, 2]] * 2
        assert index.rank([0.0, 0.8, 0.6], 10) == [[5, 3, 2, 4]] * 2
        index.close()
    finally:
        store.close()


def test_pages_rank_by_their_centroid_each_shown_by_its_best_chunk(tmp_path: Path) -> None:
    # settings.md: one section close to the question among sections about other things;
    # messages.md: every section about the question, none as close as that one.
    pages = {"settings.md": [[0.9, 0.44, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]],
             "messages.md": [[0.8, 0.6, 0.0], [0.8, 0.0, 0.6], [0.75, 0.66, 0.0]]}
    store = DocsStore(tmp_path / "docs.db")
    try:
        chunk_id = 0
        for file_id, (path, vectors) in enumerate(pages.items()):
            store.conn.execute("INSERT INTO doc_files(id, path, size, mtime_ns, hash, status) "
                               "VALUES (?, ?, 0, 0, '', 'indexed')", (file_id, path))
            for order, vector in enumerate(vectors):
                chunk_id += 1
                store.conn.execute("INSERT INTO doc_chunks(id, file_id, ord, heading, "
                                   "start_line, end_line, text) VALUES (?, ?, ?, 'h', 1, 1, "
                                   "'t')", (chunk_id, file_id, order))
                store.put_vectors("m", [(chunk_id, pack(vector))])
        embedder = EmbeddingClient(EmbeddingSettings(url="http://127.0.0.1:9/v1", model="m"))
        index = VectorIndex(store, embedder, threading.RLock(), lambda: True)
        by_chunk, by_page = index.rank([1.0, 0.0, 0.0], 10)
        assert by_chunk == [1, 4, 5, 6, 2, 3]  # the passing mention first
        assert by_page == [4, 1]  # the page about it first, shown by its best chunk
        assert index.rank([1.0, 0.0, 0.0], 1) == [[1], [4]]
        index.close()
    finally:
        store.close()


def test_a_page_about_the_question_beats_a_passing_mention(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    settings = "# Settings\n\n" + "".join(
        f"## {name}\n\n{text}\n\n" for name, text in [
            ("LOGOUT_URL", "Where users land: a notification once forwarded."),
            ("CACHE_TTL", "Seconds kept in the cache backend."),
            ("TIME_ZONE", "Zone of datetimes in the database."),
            ("SECRET_KEY", "Signing cryptographic salt value.")])
    (tmp_path / "docs" / "settings.md").write_text(settings, encoding="utf-8")
    (tmp_path / "docs" / "messages.md").write_text(
        "# Messages\n\n## Adding\n\nStore a message for the user.\n\n"
        "## Showing\n\nEach message appears once.\n\n"
        "## Levels\n\nA message has a level.\n", encoding="utf-8")
    (tmp_path / "docs" / "sessions.md").write_text(
        "# Sessions\n\n## Storage\n\nA message may be kept in the session.\n\n"
        "## Expiry\n\nSessions end after two weeks.\n", encoding="utf-8")
    question = "flash notice after a redirect"
    with ConceptEmbeddingServer([{"flash", "notice", "notification", "message"},
                                 {"redirect", "forwarded"}]) as endpoint:
        docs = DocsSettings(embeddings=EmbeddingSettings(url=endpoint.base_url,
                                                         model="concepts"))
        with DocsIndex.open(tmp_path, settings=docs) as index:
            index.index(embed="now")
            vectors = index._vectors
            assert vectors is not None
            [direction] = vectors.questions([question])
            with index._lock:
                best_chunk = index._store.pages(vectors.rank(direction, 1)[0])
            assert list(best_chunk.values()) == ["docs/settings.md"]
            hits = index.search(question).hits
            assert [hit.path for hit in hits[:2]] == ["docs/messages.md", "docs/settings.md"]


def test_a_changed_page_is_embedded_in_the_background(tmp_path: Path) -> None:
    write_pages(tmp_path)
    with ConceptEmbeddingServer([{"truck", "lorry"}]) as endpoint:
        settings = DocsSettings(embeddings=EmbeddingSettings(url=endpoint.base_url,
                                                             model="concepts"))
        with DocsIndex.open(tmp_path, settings=settings) as index:
            index.index(embed="now")
            assert index._store.vector_count("concepts") == 3
            release = endpoint.hold("lorry")
            (tmp_path / "docs" / "deploy.md").write_text(
                "# Deployment\n\nA lorry brings the servers.\n", encoding="utf-8")
            assert index.refresh_file("docs/deploy.md")
            # returned while the endpoint still holds the new chunk's request
            assert index._store.vector_count("concepts") == 2
            found = index.search("what brings them")  # its new words: found lexically now
            assert "docs/deploy.md" in [hit.path for hit in found.hits]
            release.set()
            assert index.wait_embedded(timeout=20)
            assert index._store.vector_count("concepts") == 3
            assert index.search("truck").hits[0].path == "docs/deploy.md"  # by meaning


def test_closing_stops_background_embedding(tmp_path: Path) -> None:
    write_pages(tmp_path)
    with ConceptEmbeddingServer([{"truck"}]) as endpoint:
        settings = DocsSettings(embeddings=EmbeddingSettings(url=endpoint.base_url))
        index = DocsIndex.open(tmp_path, settings=settings)
        index.index(embed="now")
        endpoint.delay = 0.5
        (tmp_path / "docs" / "deploy.md").write_text("# Deployment\n\nTrucks.\n")
        index.refresh_file("docs/deploy.md")
        index.close()  # while the background thread waits on the endpoint
        assert index.wait_embedded(timeout=10)


def test_settings_choose_the_provider() -> None:
    settings, problems = structure(Settings, {"docs": {"embeddings": {"provider": "local"}},
                                              "memory": {"embeddings": {"url": "http://x/v1"}}})
    assert problems == []
    docs, memory = settings.docs.embeddings, settings.memory.embeddings
    assert docs.endpoint is None
    assert isinstance(embedder_for(docs), LocalEmbedder)
    assert embedder_for(docs).name == "local/all-MiniLM-L6-v2"  # type: ignore[union-attr]
    assert isinstance(embedder_for(memory), EmbeddingClient)
    assert embedder_for(EmbeddingSettings()) is None
    _, problems = structure(Settings, {"docs": {"embeddings": {"provider": "gpu"}}})
    assert "one of 'auto', 'endpoint', 'local'" in str(problems[0])


def test_the_docs_use_the_installed_local_model_by_default(
    tmp_path: Path, minilm: object, monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_pages(tmp_path)
    question = "flash a notice after a redirect"  # no word in common with the page
    with DocsIndex.open(tmp_path) as index:  # CODEKEEP_LOCAL_MODEL=off: never picked
        assert index.index(embed="now").chunks == 3
        assert index.search(question).hits == []
    monkeypatch.delenv("CODEKEEP_LOCAL_MODEL")
    assert Settings().docs.embeddings.provider == "auto"
    assert Settings().memory.embeddings.provider == "endpoint"  # hooks stay light
    assert isinstance(embedder_for(Settings().docs.embeddings), LocalEmbedder)
    assert embedder_for(Settings().memory.embeddings) is None
    with_url = DocsEmbeddingSettings(url="http://127.0.0.1:9/v1")
    assert isinstance(embedder_for(with_url), EmbeddingClient)  # a url wins over auto
    with DocsIndex.open(tmp_path) as index:  # no setting written: the model is used
        index.index(embed="now")
        assert index.search(question).hits[0].path == "docs/messages.rst"


def test_the_words_are_searchable_before_the_background_embedding_lands(
    tmp_path: Path,
) -> None:
    write_pages(tmp_path)
    with ConceptEmbeddingServer([{"truck", "lorry", "static"}]) as endpoint:
        settings = DocsSettings(embeddings=DocsEmbeddingSettings(url=endpoint.base_url,
                                                                 model="concepts"))
        release = endpoint.hold("static")
        with DocsIndex.open(tmp_path, settings=settings) as index:
            stats = index.index()  # returns while the endpoint holds the deploy page
            assert stats.chunks == 3 and index._store.vector_count("concepts") == 0
            assert index.search("static files").hits[0].path == "docs/deploy.md"
            assert index.search("truck").hits == []  # no shared word, no vectors yet
            release.set()
            assert index.wait_embedded(timeout=20)
            assert index._store.vector_count("concepts") == 3
            assert index.search("truck").hits[0].path == "docs/deploy.md"


def test_what_the_model_reads_is_the_heading_and_the_words() -> None:
    text = (".. module:: shop.messages\n   :synopsis: Temporary message storage.\n\n"
            ".. _messages-intro:\n\nSee :doc:`the guide </topics/guide>` and ``add()``.\n")
    assert embedding_text("Messages › Intro", text) == (
        "Messages › Intro. Temporary message storage. See the guide and add().")


class CountingEmbedder(LocalEmbedder):
    """The real local model, counting the texts it is asked to embed."""

    def __init__(self) -> None:
        super().__init__(timeout=30.0, max_tokens=LOCAL_TOKENS)
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts += texts
        return super().embed(texts)


def test_a_second_checkout_takes_the_local_models_vectors_from_the_machines_cache(
    tmp_path: Path, minilm: object, monkeypatch: pytest.MonkeyPatch,
) -> None:
    cache_file = tmp_path / "cache" / "vectors.db"
    monkeypatch.setenv("CODEKEEP_VECTOR_CACHE", str(cache_file))
    first, second = tmp_path / "first", tmp_path / "second"
    for checkout in (first, second):
        checkout.mkdir()
        write_pages(checkout)
    (second / "docs" / "new.md").write_text("# Caching\n\nKeep rendered pages an hour.\n")
    asked = []
    for checkout in (first, second):
        embedder = CountingEmbedder()
        store = DocsStore(checkout / ".codekeep" / "docs.db")
        with DocsIndex.open(checkout) as index:
            index.index()
            rows = store.missing_vectors(embedder.name, 100)
            vectors = VectorIndex(store, embedder, threading.RLock(), lambda: True,
                                  default_vector_cache())
            assert vectors.embed_missing() == len(rows) == 3 + (checkout == second)
            vectors.close()
            asked.append(len(embedder.texts))
        store.close()
    assert asked == [3, 1]  # the second checkout embedded only the page the first lacked
    with DocsIndex.open(second, settings=LOCAL) as index:
        assert index.search("a one-time notification after a form").hits[0].path == \
            "docs/messages.rst"
    stored = cache_file.read_bytes()
    assert b"notification" not in stored and b"Deployment" not in stored  # vectors only
    cache_file.write_bytes(b"not a database" * 100)  # damaged: started over, never an error
    assert default_vector_cache().get([b"k"]) == {}  # type: ignore[union-attr]
    assert default_vector_cache().put([(b"k", b"v")])  # type: ignore[union-attr]


def test_no_vector_is_shared_for_an_endpoints_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    cache_file = tmp_path / "cache" / "vectors.db"
    monkeypatch.setenv("CODEKEEP_VECTOR_CACHE", str(cache_file))
    write_pages(tmp_path)
    with ConceptEmbeddingServer([{"static", "files"}]) as endpoint:
        settings = DocsSettings(embeddings=EmbeddingSettings(url=endpoint.base_url,
                                                             model="concepts"))
        with DocsIndex.open(tmp_path, settings=settings) as index:
            index.index(embed="now")
            assert index._store.vector_count("concepts") == 3
    assert not cache_file.exists()  # the model behind a name can change: never cached


def test_a_second_checkout_of_the_same_docs_embeds_nothing(
    tmp_path: Path, minilm: object, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """As a user meets it: the default settings (``auto`` picks the installed model), the
    default cache under ``$XDG_CACHE_HOME``, ``codekeep docs index`` in a clone and then in
    a second copy of it. The second runs the model on nothing, yet searches by meaning."""
    from codekeep.cli import main
    from codekeep.embeddings.local_model import MiniLM

    monkeypatch.delenv("CODEKEEP_LOCAL_MODEL", raising=False)
    monkeypatch.delenv("CODEKEEP_VECTOR_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    embedded: list[int] = []
    forward = MiniLM._forward

    def counting(self: MiniLM, ids: object, mask: object) -> object:
        embedded.append(len(ids))  # type: ignore[arg-type]
        return forward(self, ids, mask)  # type: ignore[arg-type]

    monkeypatch.setattr(MiniLM, "_forward", counting)
    first, second = tmp_path / "first", tmp_path / "second"
    runs = []
    for checkout in (first, second):
        checkout.mkdir()
        write_pages(checkout)
        assert main(["docs", "index", "--root", str(checkout)]) == 0
        runs.append(sum(embedded))
        embedded.clear()
    assert runs == [3, 0]  # three chunks embedded once, for both checkouts
    assert (tmp_path / "xdg-cache" / "codekeep" / "vectors.db").is_file()
    capsys.readouterr()
    assert main(["docs", "search", "flash a notice after a redirect", "--json",
                 "--root", str(second)]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["path"] == "docs/messages.rst"
    assert sum(embedded) == 1  # the question, the only text the second checkout embedded
