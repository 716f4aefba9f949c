"""The project knowledge base: one object per workspace, used by the CLI, tools and server.

It finds documentation files with the code map's own walker (``.gitignore`` and the
exclude list apply the same way), cuts them into structure-following chunks, keeps
them in ``.codekeep/docs.db`` and answers questions from them. Files are re-read only
when their size or mtime changed (and re-chunked only when their content did). A lock
makes it safe to search from one thread while another indexes: indexing writes a few
files per transaction and lets go of the lock in between.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from codekeep.analysis.discovery import Candidate, WalkReport, walk
from codekeep.analysis.errors import UnknownPathError
from codekeep.analysis.factcache import default_cache
from codekeep.analysis.parsing import content_hash
from codekeep.common.workspace import resolve_root, state_dir
from codekeep.docs.background import BackgroundEmbedder
from codekeep.docs.chunking import ChunkSizes
from codekeep.docs.conversion import NEEDS_EXTRA, converter_available
from codekeep.docs.docstrings import is_python
from codekeep.docs.errors import DocsClosedError, EmptyQueryError, InvalidLimitError
from codekeep.docs.formats import candidate_format
from codekeep.docs.model import DocHit, DocLink, DocsStats, SearchOutcome
from codekeep.docs.pages import cache_key, read_page
from codekeep.docs.retrieval import (
    Sources,
    VectorRanker,
    diversify,
    fuse_pages,
    rankings,
)
from codekeep.docs.store import DocsStore, FileRow
from codekeep.docs.text import american, place_words, query_terms
from codekeep.docs.vectors import LOCAL_TOKENS, VectorIndex
from codekeep.embeddings.embedders import embedder_for, resolved
from codekeep.embeddings.vector_cache import default_vector_cache
from codekeep.settings.codemap import IndexSettings
from codekeep.settings.docs import DocsSettings

if TYPE_CHECKING:
    from codekeep.analysis.codemap import CodeMap
    from codekeep.analysis.model import Symbol

logger = logging.getLogger(__name__)

# When ``index`` embeds the chunks still without a vector: ``later`` on the knowledge
# base's background thread (the server: the words are searchable at once, the vectors
# land meanwhile), ``now`` before it returns (a CLI process cannot leave a thread
# behind), ``skip`` not at all (a CLI search refreshing the words before it answers).
Embedding = Literal["later", "now", "skip"]
DOCS_FILE = "docs.db"
WRITE_CHUNK_FILES = 16
DEFAULT_LIMIT = 10
MAX_LIMIT = 200


class DocsIndex:
    def __init__(self, root: Path, store: DocsStore, index_settings: IndexSettings,
                 settings: DocsSettings) -> None:
        self.root = root
        self.index_settings = index_settings
        self.settings = settings
        self._store = store
        self._lock = threading.RLock()
        self._closed = False
        embeddings = resolved(settings.embeddings)
        embedder = embedder_for(embeddings, LOCAL_TOKENS)
        # Only the pinned local model's vectors are shared across checkouts: an
        # endpoint's model can change behind the same name.
        cache = default_vector_cache() if embeddings.provider == "local" else None
        self._vectors = (VectorIndex(store, embedder, self._lock, lambda: not self._closed,
                                     cache) if embedder is not None else None)
        self._later = BackgroundEmbedder(self._embed_missing)
        # Pages read before (here, in another checkout, imported, the team's) by content:
        # see :mod:`.pages`. Looked up once: the cache follows CODEKEEP_PARSE_CACHE.
        self._pages = default_cache()
        self._from_cache = 0  # pages of the running index that the cache gave

    @classmethod
    def open(cls, root: Path, index_settings: IndexSettings | None = None,
             settings: DocsSettings | None = None) -> DocsIndex:
        root = resolve_root(root)
        store = DocsStore(state_dir(root) / DOCS_FILE)
        return cls(root, store, index_settings or IndexSettings(), settings or DocsSettings())

    def close(self) -> None:
        """Stop a running index between two files and close the database; safe twice."""
        self._closed = True
        self._later.stop()
        with self._lock:
            if self._vectors is not None:
                self._vectors.close()
                self._vectors = None
            self._store.close()

    def __enter__(self) -> DocsIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- indexing ---------------------------------------------------------------------
    def index(self, progress: Callable[[int, int], None] | None = None,
              embed: Embedding = "later") -> DocsStats:
        """Bring the knowledge base's words up to date with the disk, then its vectors
        as ``embed`` says."""
        started = time.perf_counter()
        if not self.settings.enabled:
            return self.stats(started, 0, 0, 0)
        found, stale, removed = self._walk()
        parsed = 0
        self._from_cache = 0
        for start in range(0, len(stale), WRITE_CHUNK_FILES):
            with self._lock:
                if self._closed:  # closed meanwhile (shutdown, new settings): stop here
                    break
                with self._store.transaction(), self._cache_batch():
                    for candidate in stale[start : start + WRITE_CHUNK_FILES]:
                        parsed += self._refresh(candidate.rel)
            if progress is not None:
                progress(min(start + WRITE_CHUNK_FILES, len(stale)), len(stale))
        with self._lock:
            if self._closed:  # nothing to count any more
                return DocsStats(0, 0, parsed, 0, 0, time.perf_counter() - started, {}, {})
            with self._store.transaction():
                for path in removed:
                    self._store.delete_file(path)
        if embed == "now":
            self._embed_missing()
        elif embed == "later":
            self._embed_later()
        return self.stats(started, parsed, len(found) - parsed, len(removed), self._from_cache)

    def _walk(self) -> tuple[list[Candidate], list[Candidate], list[str]]:
        """(the docs files on disk, those to read again, the paths gone from disk)."""
        with self._lock:
            known = self._store.files()
        report = WalkReport({})
        # Files that are not docs are passed over before they are stat'ed.
        found = list(walk(self.root, self.index_settings, report,
                          skip=lambda rel: None if self.is_doc(rel) else "not docs"))
        seen = {candidate.rel for candidate in found}
        # Documents passed over for want of markitdown are read again once it is there.
        retry = NEEDS_EXTRA if converter_available() else None
        stale = [c for c in found if (row := known.get(c.rel)) is None
                 or (row.size, row.mtime_ns) != (c.size, c.mtime_ns) or row.status == retry]
        return found, stale, [path for path in known if path not in seen]

    def keys_to_read(self) -> list[tuple[str, str]]:
        """The facts cache keys (content hash, page key) of the pages the next
        :meth:`index` would read — new or changed on disk — hashed now: what a team's
        shared cache is asked for first."""
        if self._pages is None or not self.settings.enabled:
            return []
        sizes = ChunkSizes(self.settings.chunk_tokens, self.settings.overlap_tokens)
        keys = []
        for candidate in self._walk()[1]:
            if candidate.size > self.index_settings.max_file_bytes:
                continue
            try:
                data = (self.root / candidate.rel).read_bytes()
            except OSError:
                continue
            keys.append((content_hash(data), cache_key(candidate.rel, sizes)))
        return keys

    def stats(self, started: float, parsed: int, unchanged: int, removed: int,
              from_cache: int = 0) -> DocsStats:
        with self._lock:
            files, chunks, formats, skipped = self._store.counts()
        return DocsStats(files, chunks, parsed, unchanged, removed,
                         time.perf_counter() - started, formats, skipped, from_cache)

    def _cache_batch(self) -> contextlib.AbstractContextManager[None]:
        """The pages read meanwhile go into the cache in one transaction."""
        return self._pages.batch() if self._pages is not None else contextlib.nullcontext()

    def cache_keys(self) -> list[tuple[str, str]]:
        """The facts cache's (content hash, key) of every page indexed now — what an
        export or the team database carries of the docs. A page whose entry the cache
        lost (pruned, another chunk size before) is read again into it first."""
        if self._pages is None or not self.settings.enabled:
            return []
        sizes = ChunkSizes(self.settings.chunk_tokens, self.settings.overlap_tokens)
        with self._lock:
            rows = [row for row in self._store.files().values() if row.status == "indexed"]
        keys = [(row.hash, cache_key(row.path, sizes)) for row in rows]
        held = self._pages.entries(keys)
        with self._pages.batch():
            for row, key in zip(rows, keys, strict=True):
                if key in held:
                    continue
                try:
                    data = (self.root / row.path).read_bytes()
                except OSError:
                    continue
                if content_hash(data) == row.hash:
                    read_page(row.path, data, row.hash, sizes, self._pages)
        return keys

    def is_doc(self, path: str) -> bool:
        """Documentation by its name, or Python source whose docstrings are indexed."""
        return candidate_format(path) is not None or (
            self.settings.docstrings and is_python(path))

    def refresh_file(self, path: str) -> bool:
        """Re-read one file (saved in the editor, changed on disk); False: not docs or
        unchanged. A file that vanished is dropped."""
        if not self.settings.enabled or not self.is_doc(path):
            return False
        with self._lock:
            changed = bool(self._refresh(path))
        if changed:
            self._embed_later()
        return changed

    def delete_file(self, path: str) -> bool:
        with self._lock:
            return self._store.delete_file(path)

    def rename_file(self, old: str, new: str) -> bool:
        """The page moved: its old chunks go and the new path is read, in one write."""
        with self._lock, self._store.transaction():
            dropped = self._store.delete_file(old)
            added = self.is_doc(new) and self.settings.enabled and self._refresh(new)
        if added:
            self._embed_later()
        return dropped or bool(added)

    def _refresh(self, path: str) -> int:
        """Read, chunk and store one file (1: its chunks changed, 0: they did not)."""
        real = self.root / path
        try:
            info = real.stat()
            if not real.is_file():
                raise FileNotFoundError(path)
            target = real.resolve()
        except OSError:
            return int(self._store.delete_file(path))
        existing = self._store.file(path)
        if target != real.absolute() and not self._is_doc_target(target):
            return self._skip(path, info, "", "symlink to a file that is not docs", existing)
        if info.st_size > self.index_settings.max_file_bytes:
            return self._skip(path, info, "", "too large", existing)
        try:
            data = real.read_bytes()
        except OSError as error:
            return self._skip(path, info, "", f"unreadable: {error.strerror}", existing)
        digest = content_hash(data)
        if existing is not None and existing.hash == digest and existing.status != NEEDS_EXTRA:
            self._store.touch(existing.id, info.st_size, info.st_mtime_ns)
            return 0
        sizes = ChunkSizes(self.settings.chunk_tokens, self.settings.overlap_tokens)
        page, cached = read_page(path, data, digest, sizes, self._pages)
        if isinstance(page, str):
            return self._skip(path, info, digest, page, existing)
        self._store.replace_file(
            path, size=info.st_size, mtime_ns=info.st_mtime_ns, hash=digest, status="indexed",
            fmt=page.format, title=page.title, lines=page.lines, place=place_words(path),
            title_words=american(page.title), chunks=page.chunks,
        )
        self._from_cache += cached
        return 1

    def _is_doc_target(self, target: Path) -> bool:
        """A symlink is followed only to a docs file inside the workspace: a link named
        ``notes.txt`` must not put ``.env`` (or a file outside) into the index."""
        if not target.is_relative_to(self.root):
            return False
        return self.is_doc(target.relative_to(self.root).as_posix())

    def _skip(self, path: str, info: os.stat_result, digest: str, reason: str,
              existing: FileRow | None) -> int:
        """Remember why ``path`` is not indexed (a warm start will not re-read it);
        1 when it had chunks until now."""
        self._store.replace_file(path, size=info.st_size, mtime_ns=info.st_mtime_ns,
                                 hash=digest, status=reason)
        return int(existing is not None and existing.status == "indexed")

    def _embed_missing(self) -> None:
        vectors = self._vectors
        if vectors is not None and not self._closed:
            vectors.embed_missing()

    def _embed_later(self) -> None:
        """A page changed (a save, the watcher): its new chunks are embedded on the
        background thread, so the caller (the folder's worker) does not wait for it."""
        if self._vectors is not None:
            self._later.wake()

    def wait_embedded(self, timeout: float | None = None) -> bool:
        """Wait until the chunks of pages changed so far are embedded (tests, CLI)."""
        return self._later.wait_idle(timeout)

    # ---- questions --------------------------------------------------------------------
    def search(self, query: str, limit: int = DEFAULT_LIMIT, *,
               codemap: CodeMap | None = None, focus: Sequence[str] = (),
               expansions: Sequence[str] = (), passages: Sequence[str] = ()) -> SearchOutcome:
        """The chunks that best answer ``query``, best first.

        ``codemap`` lets the question's symbols and the ``focus`` files' symbols count;
        ``expansions`` are other phrasings of the question (multi-query), each one more
        BM25 ranking in the fusion; ``passages`` are hypothetical answers (HyDE), each
        embedded and ranked by meaning like the question (without embeddings they add
        nothing: their words are a model's guesses).
        """
        if not isinstance(query, str) or not query.strip():
            raise EmptyQueryError("the query is empty; ask a question or give some words")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            raise InvalidLimitError(f"limit must be a whole number from 1 to {MAX_LIMIT}")
        self._check_open()
        if not self.settings.enabled:
            return SearchOutcome([], reason="the docs are turned off (setting docs.enabled)")
        terms = query_terms(query)
        if not terms.words and not any(query_terms(e).words
                                       for e in (*expansions, *passages)):
            return SearchOutcome([], reason=(
                f"the query has only common words ({', '.join(terms.dropped) or query.strip()}); "
                "add a word that names the topic"))
        settings = self.settings
        pool = max(settings.min_pool, limit * settings.pool_multiplier)
        vectors = self._vectors
        directions = (vectors.questions([query, *passages]) if vectors is not None
                      else [])  # no lock held
        with self._lock:
            self._check_open()
            sources = Sources(
                symbol_names=_named_symbols(codemap, terms.identifiers),
                focus_names=_focus_symbols(codemap, focus),
                expansions=tuple(expansions),
                vectors=vector_ranker(vectors, directions),
            )
            found = rankings(self._store, query, sources, settings.weights, pool)
            page_of = self._store.pages({chunk_id for ranking in found for chunk_id in ranking})
            fused = fuse_pages(found, page_of, settings.rrf_k, settings.release_notes_weight)
            fused = diversify(fused, page_of, settings.per_page)[:limit]
            rows = self._store.chunks([chunk_id for chunk_id, _score in fused])
        hits = [
            DocHit(row.path, row.heading, row.start_line, row.end_line, row.text, score)
            for chunk_id, score in fused
            if (row := rows.get(chunk_id)) is not None
        ]
        if not hits:
            return SearchOutcome([], reason=f"nothing in the docs matches {query.strip()!r}")
        return SearchOutcome(hits)

    def links(self, symbol: Symbol, limit: int = 3) -> list[DocLink]:
        """Where the docs name ``symbol`` as code (mentions of ``Container.name`` first)."""
        self._check_open()
        qualifier = symbol.container.rsplit(".", 1)[-1] if symbol.container else None
        with self._lock:
            return self._store.links(symbol.name, qualifier, limit)

    def _check_open(self) -> None:
        if self._closed:
            raise DocsClosedError("the docs index was closed (its settings changed); search "
                                  "again")


def vector_ranker(vectors: VectorIndex | None,
                  directions: Sequence[Sequence[float]]) -> VectorRanker | None:
    """The embeddings' rankings of a search whose question (and HyDE passages) were
    embedded, two per text (else None)."""
    if vectors is None or not directions:
        return None
    return lambda limit, alone: [ranking for direction in directions
                                 for ranking in vectors.rank(direction, limit, alone)]


def _named_symbols(codemap: CodeMap | None, identifiers: Sequence[str]) -> frozenset[str]:
    if codemap is None:
        return frozenset()
    return frozenset(
        identifier.rsplit(".", 1)[-1]
        for identifier in identifiers
        if codemap.find_symbol(identifier, limit=1)
    )


def _focus_symbols(codemap: CodeMap | None, focus: Sequence[str]) -> frozenset[str]:
    """Names defined in the focused files. A file the code map does not index (the doc
    page being read, a config file) defines none: it lifts nothing, it is no error."""
    if codemap is None or not focus:
        return frozenset()
    names: set[str] = set()
    for path in focus:
        try:
            names.update(symbol.name for symbol in codemap.symbols_in([path]))
        except UnknownPathError:
            continue
    return frozenset(names)
