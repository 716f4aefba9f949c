"""The code map's front: one object per workspace, used by the CLI, tools and the server.

It owns the SQLite store, the open editor buffers and the derived in-memory indexes
(fuzzy names, import graph, repository ranking) and keeps them consistent: every
update goes through :meth:`CodeMap._commit`, which writes one file's changed rows in
one transaction, updates the derived indexes, and tells subscribers what changed.
A re-entrant lock makes it safe to call from the server's threads. Parsing and indexing
code is imported when first needed: a CLI query that only reads the index (``codekeep
find --no-refresh``) loads neither tree-sitter's grammars nor the worker pool.

An edit may leave its buffer's facts owed (``apply_edit(..., defer=True)``, what the
server does on a keystroke): the rows stay those of the last settled text until
:meth:`CodeMap.settle` (the server runs it when its worker is idle). ``find_symbol``
answers from the buffer's new tree meanwhile (:mod:`.lookup`), exactly; every other
query settles first, so no answer ever comes from owed rows.

Rows taken from an editor buffer are marked with the process holding the buffer, and
go back to the disk's content when the buffer is closed, when the code map closes (an
editor that quits without ``didClose``), and when any code map opens and finds their
process gone (a server that was killed): the index never keeps text that is on no disk.
"""

from __future__ import annotations

import itertools
import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import codekeep.analysis.queries as queries
from codekeep.analysis.buffers import LiveBuffers
from codekeep.analysis.encoding import KIND_RANK, decode_facts, symbol_fact
from codekeep.analysis.errors import (
    IndexCancelled,
    InvalidLimitError,
    LineOutOfRangeError,
    UnknownPathError,
)
from codekeep.analysis.facts import EMPTY_FACTS, TOO_LARGE, FileFacts, same_size_verdict
from codekeep.analysis.fuzzy import NameIndex, NameSource, StoredNames, rank
from codekeep.analysis.fuzzy import score as fuzzy_score
from codekeep.analysis.imports import ImportGraph
from codekeep.analysis.listings import Listings
from codekeep.analysis.memo import IndexMemo
from codekeep.analysis.model import (
    CallEdge,
    ChangeSet,
    Confidence,
    IndexStats,
    IndexStatus,
    Reference,
    Related,
    RepoMap,
    Symbol,
)
from codekeep.analysis.ranking import RepoRanker
from codekeep.analysis.registry import LanguageRegistry, LanguageSpec, default_registry
from codekeep.analysis.store import FileRow, IndexStore
from codekeep.analysis.writer import FactWriter, differing
from codekeep.common.owners import is_running, this_process
from codekeep.common.symbol_id import SymbolId
from codekeep.common.workspace import resolve_root, state_dir
from codekeep.settings.codemap import IndexSettings

if TYPE_CHECKING:
    from codekeep.analysis.documents import Document
    from codekeep.analysis.factshare import ShareStats
    from codekeep.analysis.indexer import Analysis, IndexPlan
    from codekeep.analysis.parsing import FileResult

INDEX_FILE = "index.db"
WRITE_CHUNK_FILES = 128  # files per write transaction (fewer commits: ~0.1 s of a cold Django)
COMPACT_AFTER_FILES = 100
LABELLED_KEPT = 8  # names whose labelled uses are kept between pages
# symbols whose callers one code map remembers at once (an impact asks ~150 of Django's)
REMEMBERED_CALLERS = 20_000

Listener = Callable[[ChangeSet], None]


T = TypeVar("T")

def _import_keys(facts: FileFacts) -> list[tuple[str, str | None, str | None]]:
    return [(i.module, i.name, i.alias) for i in facts.imports]


def check_limit(limit: int | None) -> None:
    """The one limit rule of every query: ``None`` = no limit, a positive int = at most
    that many, anything else is refused (never silently read as "all" or "none")."""
    if limit is not None and (isinstance(limit, bool) or limit < 1):
        raise InvalidLimitError(
            f"limit must be a positive number (or None for no limit), got {limit!r}")


def line_count(text: bytes) -> int:
    """Lines as an editor numbers them (a final newline does not start another)."""
    return text.count(b"\n") + (0 if text.endswith(b"\n") or not text else 1)


class CodeMap(LiveBuffers):
    def __init__(self, root: Path, store: IndexStore, settings: IndexSettings,
                 registry: LanguageRegistry):
        self.root = root
        self.settings = settings
        self.registry = registry
        self._store = store
        self._lock = threading.RLock()
        self._cancelled = threading.Event()
        self._documents: dict[str, Document] = {}
        self._listeners: list[Listener] = []
        self._names: NameIndex | None = None
        self._names_building: set[str] | None = None  # touched while prepare_search builds
        self._searched = False
        self._graph = ImportGraph(store, registry, root)
        # the files using a name, labelled: the next page of a name used 10k times (or
        # the same question again) decodes only its own files
        self._labelled: IndexMemo[tuple[str | None, str | None], queries.LabelledFiles] = (
            IndexMemo(LABELLED_KEPT))
        self._ranker = RepoRanker(store, registry, self._cancelled.is_set)
        self._writer = FactWriter(store)
        self._pending = 0
        self._indexed_once = store.has_files()
        # (IndexStore.version, counts) of the last count
        self._counted: tuple[tuple[int, int], tuple[int, int, int, dict[str, int]]] | None = None
        # callers per symbol id (what an impact follows)
        self._callers: IndexMemo[str, list[tuple[Symbol, Confidence]]] = IndexMemo(
            REMEMBERED_CALLERS)

    @classmethod
    def open(cls, root: Path, settings: IndexSettings | None = None) -> CodeMap:
        """Open (creating if needed) ``<root>/.codekeep/index.db``."""
        root = resolve_root(root)
        if not root.is_dir():
            raise UnknownPathError(f"workspace root is not a directory: {root}")
        settings = settings or IndexSettings()
        store = IndexStore(state_dir(root) / INDEX_FILE)
        codemap = cls(root, store, settings, default_registry(settings.languages))
        codemap.reconcile_buffers()
        return codemap

    def cancel(self) -> None:
        """Stop a running index at its next file or chunk (any thread may call this: the
        folder is going away); every later :meth:`index` stops at once too."""
        self._cancelled.set()

    def close(self) -> None:
        """Put every still-open buffer's file back to its disk content, then close.

        Subscribers are not told about that last change (they are closing too): call
        :meth:`release_buffers` first when they must hear it.
        """
        with self._lock:
            self._listeners.clear()
            try:
                self.release_buffers()
            finally:
                self._store.close()

    def release_buffers(self) -> None:
        """Close every open buffer: its file's rows become the disk's content again."""
        with self._lock:
            for path in list(self._documents):
                self.close_document(path)

    def reconcile_buffers(self) -> int:
        """Re-read from disk every file whose rows came from a buffer nobody holds any
        more (its server was killed, or quit without closing it); how many there were.

        Buffers held by another running process (a second server on this workspace)
        are theirs and left alone.
        """
        with self._lock:
            stale = [path for path, owner in self._store.buffer_rows()
                     if not self._held(path, owner)]
            for path in stale:
                self._refresh(path, trust_hash=False)
            return len(stale)

    def _held(self, path: str, owner: str) -> bool:
        """Are ``path``'s rows from a buffer that is still open somewhere?"""
        if owner == this_process():
            return path in self._documents
        return is_running(owner)

    def _held_elsewhere(self, path: str) -> bool:
        row = self._store.file(path)
        return (row is not None and row.buffer_owner is not None
                and row.buffer_owner != this_process() and is_running(row.buffer_owner))

    def __enter__(self) -> CodeMap:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- indexing --------------------------------------------------------------
    def index(self, progress: Callable[[int, int], None] | None = None,
              explain: bool = False) -> IndexStats:
        """Bring the index up to date with the disk: parse new and changed files only;
        then count what the index holds. Every folder is listed (what the walk keeps is
        remembered for the next :meth:`refresh`): ``codekeep index`` and a server's
        start never rest on a remembered listing. ``explain``: also count the source
        files each ignore rule, the size cap and the languages setting kept out
        (:attr:`IndexStats.coverage`; costs a count below every ignored folder)."""
        started = time.perf_counter()
        self.reconcile_buffers()
        plan, parsed, unchanged = self._update(progress, reuse_listings=False,
                                               explain=explain)
        with self._lock:
            reasons = self._skip_reasons()
        for reason, count in reasons.items():
            plan.skipped[reason] = plan.skipped.get(reason, 0) + count
        files, symbols, refs, languages = self._counts()
        coverage = None
        if explain:
            from codekeep.analysis.discovery import WalkReport
            from codekeep.analysis.exclusions import explain as explain_coverage

            report = WalkReport(plan.skipped, plan.ignored)
            coverage = explain_coverage(self.root, self.settings, report, files,
                                        reasons.get(TOO_LARGE, 0))
        return IndexStats(files, symbols, refs, languages, time.perf_counter() - started,
                          parsed, plan.unchanged + unchanged, len(plan.removed), plan.skipped,
                          coverage)

    def refresh(self, progress: Callable[[int, int], None] | None = None) -> None:
        """Bring the index up to date, as :meth:`index` does, without the counting (what a
        query does first: on a large tree the counts cost as much as the walk) and
        listing only the folders whose stat changed (see :mod:`.listings`). When the
        stats show that nothing changed at all, nothing else is done."""
        self.reconcile_buffers()
        if not self._unchanged_on_disk():
            self._update(progress, reuse_listings=True)

    def _unchanged_on_disk(self) -> bool:
        """Whether a walk would provably find every file as the index holds it
        (:meth:`Listings.unchanged`: one stat per folder and per file, against the
        remembered listings and the stored stats). Never with a buffer open here or a
        row from one elsewhere (those files follow their buffers: the full path knows)."""
        from codekeep.analysis.discovery import start_listings

        with self._lock:
            remembered = self._store.walk_listings()
            if self._documents or remembered is None:
                return False
            cap, for_path = self.settings.max_file_bytes, self.registry.for_path
            files: dict[str, tuple[int, int]] = {}
            for path, language, size, mtime_ns, status in self._store.disk_stamps():
                spec = for_path(path)
                # the walk's verdicts: the same language, the size cap deciding the same
                if (spec is None or (language != spec.name and language not in
                                     spec.alternatives)
                        or not same_size_verdict(size, status, cap)):
                    return False
                files[path] = (size, mtime_ns)
            if len(files) != self._store.file_count():
                return False
            listings = self._listings(remembered)
            root = str(self.root)
            start_listings(root, os.path.realpath(root), self.settings, listings)
            return listings.unchanged(root, files)

    def _listings(self, remembered: str | None) -> Listings:
        """The walk's folder memory, under the rules that decide what it may reuse."""
        return Listings(remembered, json.dumps(self.registry.paths_read()),
                        int(self.settings.listing_settle_s * 1e9))

    def _update(self, progress: Callable[[int, int], None] | None,
                reuse_listings: bool, explain: bool = False) -> tuple[IndexPlan, int, int]:
        """Walk, parse what changed; (plan, parsed, unchanged). (Callers reconcile the
        buffers of lost processes first.)"""
        from codekeep.analysis.indexer import Analysis

        with Analysis(self.root, self.settings) as analysis:  # parses as the walk goes
            plan = self._plan(reuse_listings, analysis, explain)
            parsed, unchanged = self._write_results(plan, analysis.results(), progress)
        with self._lock:
            if parsed >= COMPACT_AFTER_FILES and parsed * 2 >= plan.known + parsed:
                self._store.compact()  # a (mostly) fresh index: pack its pages densely
        if parsed:
            from codekeep.analysis.factcache import default_cache  # (importlib.metadata)

            if (cache := default_cache()) is not None:
                cache.prune()  # at most daily: the facts cache of every checkout stays bounded
        return plan, parsed, unchanged

    def _plan(self, reuse_listings: bool, analysis: Analysis,
              explain: bool = False) -> IndexPlan:
        from codekeep.analysis.indexer import plan_index

        with self._lock:
            self.settle()
            known = self._store.files()
            # Buffers open here or in another live server are the truth for their files.
            held = {path for path, row in known.items()
                    if row.buffer_owner is not None and self._held(path, row.buffer_owner)}
            remembered = self._store.walk_listings() if reuse_listings else None
            open_paths = set(self._documents) | held
        # The walk (seconds on a kernel) goes on outside the lock: queries answer from the
        # index meanwhile (a buffer opened meanwhile is still the truth: the writes check)
        listings = self._listings(remembered)
        plan = plan_index(self.root, self.settings, self.registry, known, open_paths,
                          self._cancelled.is_set, listings, analysis, explain)
        state = listings.dump()
        if state is not None:
            with self._lock, self._store.transaction():
                self._store.save_walk_listings(state)
        return plan

    def _write_results(self, plan: IndexPlan, results: Iterator[FileResult],
                       progress: Callable[[int, int], None] | None) -> tuple[int, int]:
        """Delete what is gone, store what was parsed; (parsed, unchanged)."""
        total = len(plan.jobs)
        self._pending = total
        parsed = unchanged = done = 0
        changes = ChangeSet()
        if plan.removed:
            with self._lock, self._store.transaction():
                for path in plan.removed:
                    if path not in self._documents:  # (opened during the walk: its buffer)
                        self._merge(changes, self._delete(path))
        # Write in chunks, each its own transaction, and let go of the lock in between:
        # the server keeps answering queries (from the part already indexed) meanwhile.
        while chunk := list(itertools.islice(results, WRITE_CHUNK_FILES)):
            if self._cancelled.is_set():
                raise IndexCancelled(f"indexing {self.root} was cancelled")
            with self._lock, self._store.transaction():
                existing = self._store.files_named([r.rel for r in chunk])
                fresh = [r for r in chunk if r.rel not in existing and r.encoded is not None
                         and r.rel not in self._documents]
                self._insert_new(fresh, changes)
                parsed += len(fresh)
                fresh_paths = {r.rel for r in fresh}
                for result in chunk:
                    if result.rel in fresh_paths:
                        pass
                    elif result.rel in self._documents:
                        unchanged += 1  # opened meanwhile: the buffer is the truth
                    elif self._store_result(result, existing.get(result.rel), changes):
                        parsed += 1
                    else:
                        unchanged += 1
                    done += 1
                    self._pending = total - done
                    if progress is not None:
                        progress(done, total)
        self._pending = 0
        self._indexed_once = True
        if not changes.is_empty():
            self._notify(changes)
        return parsed, unchanged

    def _skip_reasons(self) -> dict[str, int]:
        reasons: dict[str, int] = {}
        for status, count in self._store.skip_statuses():
            reason = status.split(" (")[0].split(":")[0]
            reasons[reason] = reasons.get(reason, 0) + count
        return reasons

    def _insert_new(self, results: list[FileResult], changes: ChangeSet) -> None:
        """New files from workers: their ready-made rows go in as they are, in bulk."""
        if not results:
            return
        self._store.insert_files(results)
        if self._listeners or self._tracking_names():
            for result in results:
                assert result.encoded is not None
                added = FileFacts(tuple(map(symbol_fact, result.encoded.symbols)), (), ())
                self._merge(changes, self._symbol_changes(
                    result.rel, EMPTY_FACTS, added, result.language, build=False))
        self._graph.invalidate()
        self._ranker.invalidate()

    def _store_result(
        self, result: FileResult, existing: FileRow | None, changes: ChangeSet
    ) -> bool:
        """Write one parsed file already described by ``existing`` (None: a new file);
        False when its content turned out unchanged."""
        if (existing is not None and existing.hash == result.hash
                and existing.status == result.status and result.hash
                and existing.buffer_owner is None):
            self._store.touch(existing.id, result.size, result.mtime_ns)
            return False
        facts = decode_facts(result.encoded) if result.encoded is not None else result.facts
        self._merge(changes, self._commit(result.rel, facts, result=result, notify=False))
        return True

    def keys_to_parse(self) -> list[tuple[str, str]]:
        """The facts cache keys (content hash, language) of the files the next
        :meth:`index` would parse — new or changed on disk — read and hashed now: what a
        team's shared cache is asked for before the parse."""
        from codekeep.analysis.indexer import plan_index

        with self._lock:
            self.settle()
            known = self._store.files()
        plan = plan_index(self.root, self.settings, self.registry, known, set(self._documents))
        return [key for path, language in plan.jobs
                if (key := self._content_key(path, language)) is not None]

    def _content_key(self, rel: str, language: str) -> tuple[str, str] | None:
        """The cache key :func:`.parsing.analyse_file` would look up for this file now;
        None when it would look up none (unreadable, over the size cap, binary)."""
        from codekeep.analysis.parsing import content_hash, is_binary

        spec = self.registry.get(language)
        path = self.root / rel
        try:
            if spec is None or path.stat().st_size > self.settings.max_file_bytes:
                return None
            data = path.read_bytes()
        except OSError:
            return None
        if is_binary(data):
            return None
        return content_hash(data), self.registry.refine(spec, rel, data).name

    def export_facts(self, target: Path, also: Sequence[tuple[str, str]] = ()) -> ShareStats:
        """Write the facts cache's entries of every indexed file to ``target`` (see
        :mod:`.factshare`); a file the cache lost the entry of is parsed again first.
        ``also``: the keys of other entries to carry (the docs' pages)."""
        from codekeep.analysis.factcache import default_cache
        from codekeep.analysis.factshare import FactShareError, export_facts
        from codekeep.analysis.parsing import analyse_file, cache_batch

        cache = default_cache()
        if cache is None:
            raise FactShareError("the facts cache is off (CODEKEEP_PARSE_CACHE=off): "
                                 "there is nothing to export")
        with self._lock:
            self.settle()
            contents = self._store.indexed_contents()
        keys = [(digest, language) for _path, digest, language in contents]
        held = cache.entries(keys)
        with cache_batch():
            for path, digest, language in contents:
                if (digest, language) not in held:
                    analyse_file(str(self.root), path, language, self.settings.max_file_bytes)
        return export_facts(cache, [*keys, *also], target)

    def status(self) -> IndexStatus:
        with self._lock:
            self.settle()
        files, symbols, refs, languages = self._counts()
        return IndexStatus(files, symbols, refs, languages, self._pending,
                           self._indexed_once and self._pending == 0)

    def _counts(self) -> tuple[int, int, int, dict[str, int]]:
        """What the index holds (files, symbols, uses, files per language), counted by
        a read connection of its own, outside the lock (every use's row is read: ~1 s on
        a kernel, which ``indexStatus``, polled by the editors, must not make every
        query wait for), and kept until this process or another writes the index."""
        with self._lock:
            version = self._store.version()
            if self._counted is not None and self._counted[0] == version:
                return self._counted[1]
        reader = IndexStore.reading(self._store.path)
        try:
            counts = reader.counts()
        finally:
            reader.close()
        with self._lock:
            self._counted = (version, counts)
        return counts

    # ---- queries ---------------------------------------------------------------
    def find_symbol(self, name: str, kind: str | None = None,
                    limit: int | None = None) -> list[Symbol]:
        check_limit(limit)
        name = name.strip()
        with self._lock:
            owing = [(path, d) for path, d in self._documents.items() if not d.settled]
            if owing and "." not in name and ":" not in name:
                return self._find_in_owed(name, kind, limit, owing)
            self.settle()
            return queries.find_symbol(self._store, name, kind, limit)

    def _find_in_owed(self, name: str, kind: str | None, limit: int | None,
                      owing: list[tuple[str, Document]]) -> list[Symbol]:
        """``find_symbol`` of a plain name while buffers owe their facts: the stored
        rows of every other file, and each owing buffer's symbols read from its tree
        (in the store's order: structural kinds first, then path and line)."""
        live: dict[str, list[Symbol]] = {}
        stored_there = 0  # rows of the owing buffers the store still holds for the name
        for path, document in owing:
            found = document.definitions_named(name)
            if found is None:  # a frequent name: extracting the file is cheaper
                self._settle_document(path, document)
                continue
            live[path] = [self._writer.to_symbol(path, document.spec.name, s)
                          for s in found if kind is None or s.kind == kind]
            stored_there += sum(1 for s in document.facts.symbols if s.name == name)
        stored = self._store.symbols_named(
            name, kind, None if limit is None else limit + stored_there)
        merged = [s for s in stored if s.path not in live]
        merged += [s for symbols in live.values() for s in symbols]
        merged.sort(key=lambda s: (KIND_RANK.get(s.kind, 5), s.path, s.range.start.line))
        return merged[:limit] if limit is not None else merged

    def symbol(self, symbol_id: str) -> Symbol | None:
        """The symbol with this id, if it still exists."""
        with self._lock:
            self.settle()
            return queries.symbol_by_id(self._store, symbol_id)

    def find_references(self, *, symbol_id: str | None = None, name: str | None = None,
                        limit: int | None = None,
                        offset: int = 0) -> tuple[list[Reference], int]:
        """Every use, resolved (followed through imports/scope) first, then name-only,
        with the total count of uses (``limit`` caps only the list; ``offset`` uses of
        that order are passed over first: pages of a name used 10k times)."""
        check_limit(limit)
        if isinstance(offset, bool) or offset < 0:
            raise InvalidLimitError(f"offset must be 0 or more, got {offset!r}")
        with self._lock:
            self.settle()
            target = queries.symbol_by_id(self._store, symbol_id) if symbol_id else None
            if symbol_id and target is None:
                return [], 0
            labelled = self._labelled.get(
                self._store.version(), (symbol_id, name),
                lambda: queries.labelled_files(self._store, self._graph, target=target,
                                               name=name))
            return queries.page_of(labelled, limit, offset)

    def find_related(self, path: str, line: int) -> Related:
        """The symbol around ``line`` (0-based) and its neighbourhood.

        Raises UnknownPathError for a file the index does not hold and
        LineOutOfRangeError for a line the file does not have (an empty answer would
        look like "nothing related" when the question itself was wrong).
        """
        with self._lock:
            self.settle()
            self._require_file(path)
            related = queries.find_related(self._store, self._graph, path, line)
            if related.symbol is None:  # a line inside a symbol exists: no need to count
                lines = line_count(self.document_text(path) or b"")
                if not 0 <= line < lines:
                    raise LineOutOfRangeError(
                        f"{path} has no line {line + 1} (it has {lines})")
            return related

    def incoming_calls(self, symbol_id: str, limit: int | None = None) -> list[CallEdge]:
        """Who calls the symbol (the definitions enclosing its uses) and from where;
        the same callers as ``find_related``'s ``called_by``. [] when it is gone."""
        return self._hierarchy(queries.incoming_calls, symbol_id, limit)

    def callers(self, symbol_id: str) -> list[tuple[Symbol, Confidence]]:
        """The definitions enclosing the uses of the symbol, each once with the surest
        use's confidence, resolved first ([] when it is gone): what an impact follows.

        Remembered until the index is next written, by this process or another
        (``IndexStore.version``): a diff's impact asks ~150 of these on Django at ~2-5
        ms each, and the same question again (the editor's Impact view refreshed, the
        agent asking after the CLI) then costs a lookup. Any write forgets them all, so
        an answer is always the one the index gives now."""
        with self._lock:
            self.settle()

            def compute() -> list[tuple[Symbol, Confidence]]:
                target = queries.symbol_by_id(self._store, symbol_id)
                return [] if target is None else queries.callers(self._store, self._graph,
                                                                 target)

            return self._callers.get(self._store.version(), symbol_id, compute)

    def outgoing_calls(self, symbol_id: str, limit: int | None = None) -> list[CallEdge]:
        """What the symbol's body calls and where; ``find_related``'s ``calls``."""
        return self._hierarchy(queries.outgoing_calls, symbol_id, limit)

    def supertypes(self, symbol_id: str, limit: int | None = None) -> list[Symbol]:
        """The bases / interfaces a type's header names (as far as the index knows)."""
        return self._hierarchy(queries.supertypes, symbol_id, limit)

    def subtypes(self, symbol_id: str, limit: int | None = None) -> list[Symbol]:
        """The types naming this one as a base or interface in their header."""
        return self._hierarchy(queries.subtypes, symbol_id, limit)

    def find_inherited(self, name: str, kind: str | None = None,
                       depth: int = 8) -> list[tuple[Symbol, str]]:
        """``Container.member`` that ``Container`` does not define but inherits: the
        member of the nearest base that has it (bases breadth-first, as far as the index
        knows them, at most ``depth`` levels), with the class that inherits it.
        ``find Flask.route`` answered nothing though Flask inherits route from Scaffold."""
        container, _dot, member = name.replace("::", ".").rpartition(".")
        if not container or not member:
            return []
        found: list[tuple[Symbol, str]] = []
        for cls in self.find_symbol(container):
            if cls.kind not in ("class", "interface", "struct", "trait"):
                continue
            level, seen = [cls], {cls.id}
            for _ in range(depth):
                bases = [b for c in level for b in self.supertypes(c.id) if b.id not in seen]
                seen.update(b.id for b in bases)
                hits = [(s, cls.name) for base in bases
                        for s in self.find_symbol(f"{base.name}.{member}", kind=kind)
                        if s.path == base.path and s.container == base.name]
                if hits or not bases:
                    found += hits
                    break
                level = bases
        return found

    def find_defined_or_inherited(
        self, name: str, kind: str | None = None, limit: int | None = None,
    ) -> tuple[list[Symbol], dict[str, str]]:
        """:meth:`find_symbol`'s answer or, when it has none, the members ``Container``
        inherits (:meth:`find_inherited`), with the class that inherits each (by symbol
        id): what every door's find answers (CLI, tool, LSP), so ``Flask.route`` finds
        ``Scaffold.route`` wherever it is asked."""
        symbols = self.find_symbol(name, kind, limit)
        if symbols:
            return symbols, {}
        inherited = self.find_inherited(name, kind)[:limit]
        return [symbol for symbol, _heir in inherited], {s.id: heir for s, heir in inherited}

    def _hierarchy(self, query: Callable[[IndexStore, ImportGraph, Symbol, int | None], list[T]],
                   symbol_id: str, limit: int | None) -> list[T]:
        check_limit(limit)
        with self._lock:
            self.settle()
            symbol = queries.symbol_by_id(self._store, symbol_id)
            return [] if symbol is None else query(self._store, self._graph, symbol, limit)

    def search_symbols(self, query: str,
                       limit: int | None = 50) -> list[tuple[Symbol, float]]:
        """Fuzzy search, best first; ``Cont.nam`` also matches the container fuzzily."""
        check_limit(limit)
        container_query, _dot, name_query = query.strip().rpartition(".")
        with self._lock:
            self.settle()
            results: list[tuple[Symbol, float]] = []
            for name, score in rank(name_query, limit, self._name_source()):
                if container_query:
                    symbols = [s for s in self._store.symbols_named(name)
                               if s.container and fuzzy_score(container_query, s.container)]
                else:
                    left = None if limit is None else limit - len(results)
                    symbols = self._store.symbols_named(name, limit=left)
                results += [(s, round(score, 4)) for s in symbols]
                if limit is not None and len(results) >= limit:
                    break
            return results[:limit]

    def symbols_in(self, paths: Sequence[str] | None = None) -> list[Symbol]:
        """Outline in source order (containers before their members)."""
        with self._lock:
            self.settle()
            if paths is None:
                return self._store.all_symbols()
            found: list[Symbol] = []
            for path in paths:
                self._require_file(path)
                found += self._store.symbols_in_file(path)
            return found

    def enclosing_definitions(self, refs: Sequence[Reference]) -> list[Symbol | None]:
        """The innermost definition around each use (None at a file's top level): what
        ``incoming_calls`` makes a caller, for uses already found (an impact's)."""
        with self._lock:
            self.settle()
            return queries.enclosing_refs(self._store, refs)

    def symbol_at(self, path: str, line: int, byte_col: int) -> Symbol | None:
        with self._lock:
            self.settle()
            return queries.symbol_at(self._store, path, line, byte_col)

    def reference_at(self, path: str, line: int, byte_col: int) -> Reference | None:
        with self._lock:
            self.settle()
            return queries.reference_at(self._store, self._graph, path, line, byte_col)

    def repo_map(self, token_budget: int = 1024, focus: Sequence[str] = ()) -> RepoMap:
        """The ranked outline; every ``focus`` path must be indexed (UnknownPathError
        names the ones that are not: a typo must not quietly unfocus the map)."""
        with self._lock:
            self.settle()
            unknown = sorted({path for path in focus if not self._is_indexed(path)})
            if unknown:
                raise UnknownPathError("not in the index: " + ", ".join(unknown))
            return self._ranker.render(token_budget, focus)

    def indexed_hash(self, path: str) -> str | None:
        """The content hash of ``path`` as the index last read it (None: not indexed), so
        an edit by position can tell the file on disk is no longer what it located."""
        with self._lock:
            self.settle()
            row = self._store.file(path)
            return None if row is None or row.status != "indexed" else row.hash

    def files(self) -> list[str]:
        """Indexed workspace-relative paths."""
        with self._lock:
            return sorted(p for p, row in self._store.files().items() if row.status == "indexed")

    def _is_indexed(self, path: str) -> bool:
        row = self._store.file(path)
        return row is not None and row.status == "indexed"

    def _require_file(self, path: str) -> None:
        if self._store.file(path) is None:
            raise UnknownPathError(f"not in the index: {path}")

    def _name_source(self) -> NameSource:
        """Where a search finds its candidate names. The first search of a code map asks
        SQLite (a one-shot ``codekeep search`` must not load every name of the index to
        read a few); a code map searched again is long-lived (the server's), and keeps
        the names in memory from then on, where a search is one regex scan and edits
        update them in place. While :meth:`prepare_search` builds them off the lock,
        searches ask SQLite (building a second copy under the lock made one wait
        seconds). Both give exactly the same candidates."""
        if self._names is None and (not self._searched or self._names_building is not None):
            self._searched = True  # (while prepare_search builds the index: SQLite too)
            return StoredNames(self._store)
        return self._name_index()

    def _name_index(self) -> NameIndex:
        if self._names is None:
            self._names = NameIndex(self._store.symbol_names(), exists=self._store.defines)
        return self._names

    def prepare_search(self) -> None:
        """Build the in-memory name index now, for a long-lived code map (the server,
        once its index is built): the names are read under the lock, the index is built
        outside it (queries and edits go on meanwhile; the names they touch are handed
        to it after), so no search ever waits seconds for it."""
        with self._lock:
            if self._names is not None or self._names_building is not None:
                return
            self._names_building = set()
        # (read on a connection of its own, off the lock too: reading a kernel's 447k
        # names held it 0.45 s, and the first queries after the server's start waited.
        # An edit committed before this read is in its snapshot; one after is in
        # ``_names_building``, and the store decides whether a touched name exists.)
        index: NameIndex | None = None
        try:
            reader = IndexStore.reading(self._store.path)
            try:
                names = list(reader.symbol_names())
            finally:
                reader.close()
            index = NameIndex(names, exists=self._store.defines)
        finally:
            with self._lock:
                touched, self._names_building = self._names_building or set(), None
                if index is not None and self._names is None:
                    for name in touched:  # the store decides whether a touched name exists
                        index.add(name)
                    self._names, self._searched = index, True

    def prepare_map(self) -> None:
        """Load (or build and save) the repository map's graph now, for a long-lived
        code map (the server, once its index is built), from a read connection of its
        own (no lock is held: queries and edits go on). From then on a change rebuilds
        it in the background and maps answer from the previous graph."""
        self._ranker.prepare()

    def _tracking_names(self) -> bool:
        return self._names is not None or self._names_building is not None

    def _names_changed(self, removed: Sequence[str], added: Sequence[str]) -> None:
        """Tell the name index (or the one being built) which names were touched."""
        if self._names is not None:
            for name in removed:
                self._names.remove(name)
            for name in added:
                self._names.add(name)
        elif self._names_building is not None:
            self._names_building.update(removed)
            self._names_building.update(added)

    # ---- live updates: the editor's buffers (analysis/buffers.py) ------------------
    def refresh_file(self, path: str) -> ChangeSet:
        """Re-read ``path`` from disk (created or modified outside the editor)."""
        return self._refresh(path, trust_hash=True)

    def _refresh(self, path: str, trust_hash: bool) -> ChangeSet:
        with self._lock:
            if path in self._documents or self._held_elsewhere(path):
                return ChangeSet()
            spec = self.registry.for_path(path)
            full = self.root / path
            if spec is None or not full.is_file():
                return self.delete_file(path) if self._store.file(path) else ChangeSet()
            from codekeep.analysis.parsing import analyse_file

            result = analyse_file(str(self.root), path, spec.name, self.settings.max_file_bytes)
            existing = self._store.file(path)
            if (trust_hash and existing is not None and existing.hash == result.hash
                    and result.hash and existing.buffer_owner is None):
                self._store.touch(existing.id, result.size, result.mtime_ns)
                return ChangeSet()
            return self._commit(path, result.facts, result=result)

    def delete_file(self, path: str) -> ChangeSet:
        with self._lock:
            self._documents.pop(path, None)
            with self._store.transaction():
                changes = self._delete(path)
            self._notify(changes)
            return changes

    def rename_file(self, old: str, new: str) -> ChangeSet:
        with self._lock:
            self.settle()
            row = self._store.file(old)
            old_spec, new_spec = self.registry.for_path(old), self.registry.for_path(new)
            if row is None or old_spec is None or old_spec is not new_spec:
                changes = self.delete_file(old) if row is not None else ChangeSet()
                self._merge(changes, self.refresh_file(new))
                return changes
            before = self._store.symbols_in_file(old)
            with self._store.transaction():
                self._store.rename_file(row.id, new)
            if old in self._documents:
                self._documents[new] = self._documents.pop(old)
            self._graph.invalidate()
            self._ranker.invalidate()
            changes = ChangeSet(renamed_files=[(old, new)], symbol_renames={
                s.id: str(SymbolId.parse(s.id).with_path(new)) for s in before})
            self._notify(changes)
            return changes

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    # ---- the single write path ---------------------------------------------------
    def _disk_mtime(self, path: str) -> int:
        try:
            return os.stat(self.root / path).st_mtime_ns
        except OSError:
            return 0

    def _commit(self, path: str, facts: FileFacts, *, result: FileResult | None = None,
                before: FileFacts | None = None, spec: LanguageSpec | None = None,
                notify: bool = True, from_buffer: bool = False) -> ChangeSet:
        """Store one file's facts (only the rows that changed) and update derived indexes.

        ``result`` describes the content; ``from_buffer`` says it is an editor buffer's
        (the rows are then marked as this process's until they are the disk's again).
        """
        with self._store.transaction():
            if result is not None:
                existed = self._store.file(path)
                owner = this_process() if from_buffer else None
                file_id = self._store.upsert_file(result, buffer_owner=owner)
                if existed is None:
                    before = EMPTY_FACTS
                    self._graph.invalidate()
            else:
                row = self._store.file(path)
                assert row is not None, "an open document always has a file row"
                file_id = row.id
            if before is None:
                before = self._store.read_facts(file_id)
            if before == facts:
                return ChangeSet()
            self._writer.write(file_id, before, facts)
        changes = self._symbol_changes(path, before, facts, result.language if result else (
            spec.name if spec else ""), build=notify)
        if _import_keys(before) != _import_keys(facts):  # moved lines do not matter
            self._graph.update_file(path, facts.imports)
        self._ranker.invalidate()
        changes.changed_files.append(path)
        if notify:
            self._notify(changes)
        return changes

    def _symbol_changes(self, path: str, before: FileFacts, after: FileFacts,
                        language: str, build: bool) -> ChangeSet:
        """Symbols added/removed by id; built when the caller or a subscriber reads them."""
        changes = ChangeSet()
        build = build or bool(self._listeners)
        if not build and not self._tracking_names():
            return changes
        old_part, new_part = differing(before.symbols, after.symbols)
        old = {s.qual: s for s in old_part}
        new = {s.qual: s for s in new_part}
        gone, came = old.keys() - new.keys(), new.keys() - old.keys()
        self._names_changed([old[q].name for q in gone], [new[q].name for q in came])
        if build:
            changes.removed = [self._writer.to_symbol(path, language, old[q]) for q in gone]
            changes.added = [self._writer.to_symbol(path, language, new[q]) for q in came]
        return changes

    def _delete(self, path: str) -> ChangeSet:
        row = self._store.file(path)
        if row is None:
            return ChangeSet()
        removed = self._store.symbols_in_file(path)
        self._store.delete_file(row.id)
        self._names_changed([symbol.name for symbol in removed], [])
        self._graph.invalidate()
        self._ranker.invalidate()
        return ChangeSet(removed=removed, deleted_files=[path])

    @staticmethod
    def _merge(into: ChangeSet, other: ChangeSet) -> None:
        into.added += other.added
        into.removed += other.removed
        into.renamed_files += other.renamed_files
        into.deleted_files += other.deleted_files
        into.symbol_renames.update(other.symbol_renames)
        into.changed_files += other.changed_files

    def _notify(self, changes: ChangeSet) -> None:
        if changes.is_empty():
            return
        for listener in list(self._listeners):
            listener(changes)

