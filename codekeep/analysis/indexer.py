"""Cold and warm indexing: decide which files need parsing, parse them in worker processes.

Workers only read and parse (CPU-bound, so processes rather than threads); the parent
alone writes to SQLite as results stream back. The walk hands each file to be parsed to
an :class:`Analysis` as it finds it, so workers parse while the walk goes on (a cold
walk of Django's 2,800 files takes ~0.2 s, time both cores used to wait for). A warm
start re-parses nothing whose size and mtime are unchanged, and only re-hashes the rest.
"""

from __future__ import annotations

import functools
import os
import select
import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from codekeep.analysis.discovery import WalkReport, walk
from codekeep.analysis.errors import IndexCancelled
from codekeep.analysis.exclusions import skip_reason
from codekeep.analysis.facts import same_size_verdict
from codekeep.analysis.listings import Listings
from codekeep.analysis.registry import LanguageRegistry
from codekeep.analysis.store import FileRow
from codekeep.settings.codemap import IndexSettings

if TYPE_CHECKING:
    import concurrent.futures
    import multiprocessing.context

    from codekeep.analysis.parsing import FileResult

BATCH_FILES = 24
BATCH_BYTES = 256 * 1024  # a batch is this much source or BATCH_FILES files, whichever first
OWNER_POLL_S = 0.5  # without pidfds: how often a worker checks that its indexer lives
Progress = Callable[[int, int], None]


@dataclass(slots=True)
class IndexPlan:
    jobs: list[tuple[str, str]] = field(default_factory=list)  # (path, language)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    known: int = 0  # files the index held before
    ignored: list[tuple[str, bool]] | None = None  # what ignore rules passed over (explain)


def plan_index(
    root: Path, settings: IndexSettings, registry: LanguageRegistry,
    known: dict[str, FileRow], open_paths: set[str],
    stop: Callable[[], bool] = lambda: False, listings: Listings | None = None,
    analysis: Analysis | None = None, explain: bool = False,
) -> IndexPlan:
    """Walk the workspace and sort files into "parse", "unchanged" and "gone";
    :class:`IndexCancelled` as soon as ``stop()`` says so (a huge tree takes long).
    ``listings``: the walk's remembered directories (see :mod:`.listings`);
    ``analysis``: given each file to parse as soon as the walk finds it; ``explain``:
    note what ignore rules passed over (:attr:`IndexPlan.ignored`)."""
    report = WalkReport({}, ignored=[] if explain else None)
    result = IndexPlan(skipped=report.skipped, known=len(known), ignored=report.ignored)
    remaining = dict(known)
    skip = functools.partial(skip_reason, registry=registry, settings=settings)
    for candidate in walk(root, settings, report, skip=skip, listings=listings):
        if stop():
            raise IndexCancelled(f"indexing {root} was cancelled")
        spec = registry.for_path(candidate.rel)
        assert spec is not None  # walk skipped the others
        row = remaining.pop(candidate.rel, None)
        if candidate.rel in open_paths:
            result.unchanged += 1  # the editor buffer is the truth while it is open
            continue
        if (row is not None and row.size == candidate.size
                and row.mtime_ns == candidate.mtime_ns and row.language in spec.alternatives
                and same_size_verdict(row.size, row.status, settings.max_file_bytes)):
            result.unchanged += 1
            continue
        result.jobs.append((candidate.rel, spec.name))
        if analysis is not None:
            analysis.add(candidate.rel, spec.name, candidate.size)
    result.removed = [path for path in remaining if path not in open_paths]
    return result


class Analysis:
    """Parse jobs as they are added: in this process while there are few of them, in
    worker processes (started once :attr:`IndexSettings.parallel_min_files` jobs are
    known) otherwise. Jobs go in batches of similar weight (:data:`BATCH_FILES` files or
    :data:`BATCH_BYTES` of source), which amortise the cost of shipping work between
    processes while keeping the last batch, the one a core may wait for, small.

    Use as a context manager: leaving it stops the workers, and drops the batches not
    started yet (a cancelled index).
    """

    def __init__(self, root: Path, settings: IndexSettings):
        self._root = str(root)
        self._settings = settings
        self._max_bytes = settings.max_file_bytes
        self._batch: list[tuple[str, str]] = []
        self._weight = 0
        self._held: list[list[tuple[str, str]]] = []  # batches while no pool runs
        self._count = 0
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._pool_failed = False  # a worker died: the rest is parsed here, no new pool
        self._pending: dict[concurrent.futures.Future[bytes],
                            list[tuple[str, str]]] = {}

    def __enter__(self) -> Analysis:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self._pending.clear()

    def add(self, rel: str, language: str, size: int) -> None:
        self._batch.append((rel, language))
        self._weight += size
        self._count += 1
        if len(self._batch) >= BATCH_FILES or self._weight >= BATCH_BYTES:
            self._seal()

    def _seal(self) -> None:
        if not self._batch:
            return
        self._held.append(self._batch)
        self._batch, self._weight = [], 0
        if (self._pool is None and not self._pool_failed
                and self._count >= self._settings.parallel_min_files):
            self._start_pool()
        if self._pool is not None:
            self._submit()

    def _start_pool(self) -> None:
        # The pool's modules load here, not at import: a warm start (what every CLI
        # query does first) parses nothing and must not pay for them. Workers forked
        # from here inherit the parsing code this imports.
        import concurrent.futures.process

        from codekeep.analysis import parsing  # noqa: F401

        workers = self._settings.workers or os.cpu_count() or 1
        if workers < 2:
            return
        try:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=workers, mp_context=_context(), initializer=die_with,
                initargs=(os.getpid(),))
        except OSError:  # a host that cannot start processes: parse here
            self._pool, self._pool_failed = None, True

    def _submit(self) -> None:
        from concurrent.futures.process import BrokenProcessPool

        from codekeep.analysis.parsing import analyse_batch

        assert self._pool is not None
        held, self._held = self._held, []
        for number, batch in enumerate(held):
            try:
                future = self._pool.submit(analyse_batch, self._root, batch, self._max_bytes)
            except (BrokenProcessPool, RuntimeError, OSError):
                self._held = held[number:]  # a worker died or none could start:
                self._abandon_pool()  # the rest is parsed here
                return
            self._pending[future] = batch

    def _abandon_pool(self) -> None:
        self._pool_failed = True
        self._held = [*self._pending.values(), *self._held]
        self._pending.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def results(self) -> Generator[FileResult, None, None]:
        """Every job's result (in no particular order) once all jobs are added."""
        self._seal()
        if self._pool is not None:
            yield from self._collect()
        if not self._held:
            return
        from codekeep.analysis.parsing import analyse_file, cache_batch

        held, self._held = self._held, []
        for batch in held:
            with cache_batch():
                for rel, language in batch:
                    yield analyse_file(self._root, rel, language, self._max_bytes)

    def _collect(self) -> Generator[FileResult, None, None]:
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        from codekeep.analysis.parsing import unpack_batch

        while self._pending:
            done, _ = wait(self._pending, return_when=FIRST_COMPLETED)
            for future in done:
                try:
                    results = future.result()
                except BrokenProcessPool:
                    # A worker died (killed, out of memory): finish in this process
                    # rather than leave the index half built.
                    self._abandon_pool()
                    return
                del self._pending[future]
                yield from unpack_batch(results)


def die_with(owner: int) -> None:
    """Worker start-up: end this worker as soon as process ``owner`` (the indexer) ends.

    A killed ``codekeep serve`` or ``codekeep index`` cannot shut its pool down, and the
    pool's processes keep each other alive: every worker holds the write end of the
    task queue it reads (so it never sees end-of-file) and the fork server's "alive"
    pipe (so the fork server never sees its clients go); the resource tracker waits for
    all of them. Reparented to pid 1 they would hold the caller's stdout and stderr for
    good. A watcher thread on the owner's pidfd (polling on systems without pidfds)
    breaks the cycle: the workers exit, and with them the fork server and the tracker.
    """
    try:
        handle: int | None = os.pidfd_open(owner)
    except (AttributeError, OSError):  # not Linux, or the owner is already gone
        handle = None
        if not _alive(owner):
            os._exit(1)
    threading.Thread(target=_exit_when_gone, args=(owner, handle), name="die-with-owner",
                     daemon=True).start()


def _exit_when_gone(owner: int, handle: int | None) -> None:
    if handle is not None:
        select.select([handle], [], [])  # readable once the owner has exited
    else:
        while _alive(owner):
            time.sleep(OWNER_POLL_S)
    os._exit(1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _context() -> multiprocessing.context.BaseContext:
    """fork is fastest, but forking a process that runs threads (the language server)
    can deadlock, so threaded processes use a fork server.

    The fork server imports the parsing code (tree-sitter, the grammars) once, so the
    workers it forks for each index start ready: a pool's start-up measured ~60-140 ms
    instead of ~200-450 ms (each worker importing it anew) on a loaded 2-core machine.
    """
    import multiprocessing

    if threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["__main__", "codekeep.analysis.parsing"])
    return context
