"""Cold and warm indexing: decide which files need parsing, parse them in worker processes.

Workers only read and parse (CPU-bound, so processes rather than threads); the parent
alone writes to SQLite, in one transaction, as results stream back. A warm start
re-parses nothing whose size and mtime are unchanged, and only re-hashes the rest.
"""

from __future__ import annotations

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
from codekeep.analysis.facts import TOO_LARGE
from codekeep.analysis.listings import Listings
from codekeep.analysis.registry import LanguageRegistry
from codekeep.analysis.store import FileRow
from codekeep.settings.codemap import IndexSettings

if TYPE_CHECKING:
    import multiprocessing.context

    from codekeep.analysis.parsing import FileResult

BATCH_FILES = 24
BATCH_BYTES = 256 * 1024  # a batch is this much source or BATCH_FILES files, whichever first
OWNER_POLL_S = 0.5  # without pidfds: how often a worker checks that its indexer lives
Progress = Callable[[int, int], None]


@dataclass(slots=True)
class IndexPlan:
    jobs: list[tuple[str, str]] = field(default_factory=list)  # (path, language)
    sizes: dict[str, int] = field(default_factory=dict)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)


def plan_index(
    root: Path, settings: IndexSettings, registry: LanguageRegistry,
    known: dict[str, FileRow], open_paths: set[str],
    stop: Callable[[], bool] = lambda: False, listings: Listings | None = None,
) -> IndexPlan:
    """Walk the workspace and sort files into "parse", "unchanged" and "gone";
    :class:`IndexCancelled` as soon as ``stop()`` says so (a huge tree takes long).
    ``listings``: the walk's remembered directories (see :mod:`.listings`)."""
    report = WalkReport({})
    result = IndexPlan(skipped=report.skipped)
    remaining = dict(known)
    def unsupported(rel: str) -> str | None:
        return None if registry.for_path(rel) else "unsupported language"

    for candidate in walk(root, settings, report, skip=unsupported, listings=listings):
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
                and _same_verdict(row, settings)):
            result.unchanged += 1
            continue
        result.jobs.append((candidate.rel, spec.name))
        result.sizes[candidate.rel] = candidate.size
    result.removed = [path for path in remaining if path not in open_paths]
    return result


def _same_verdict(row: FileRow, settings: IndexSettings) -> bool:
    """Would the size cap decide the same today? (It may have been raised or lowered.)"""
    too_large = row.size > settings.max_file_bytes
    return too_large == row.status.startswith(TOO_LARGE)


def _worker_count(settings: IndexSettings, jobs: int) -> int:
    if jobs < settings.parallel_min_files:
        return 1
    wanted = settings.workers or os.cpu_count() or 1
    return max(1, min(wanted, -(-jobs // BATCH_FILES)))


def _batches(
    jobs: list[tuple[str, str]], sizes: dict[str, int]
) -> list[list[tuple[str, str]]]:
    """Largest files first, in batches of similar weight, so no worker is left with a
    long tail of big files while the others sit idle."""
    ordered = sorted(jobs, key=lambda job: -sizes.get(job[0], 0))
    batches: list[list[tuple[str, str]]] = []
    weight = 0
    for job in ordered:
        if not batches or len(batches[-1]) >= BATCH_FILES or weight >= BATCH_BYTES:
            batches.append([])
            weight = 0
        batches[-1].append(job)
        weight += sizes.get(job[0], 0)
    return batches


def analyse_jobs(
    root: Path, settings: IndexSettings, jobs: list[tuple[str, str]],
    sizes: dict[str, int] | None = None,
) -> Generator[FileResult, None, None]:
    """Parse every job, in worker processes when there are enough of them."""
    if not jobs:
        return  # a warm start with nothing to parse loads no parser
    from codekeep.analysis.parsing import analyse_batch, analyse_file

    workers = _worker_count(settings, len(jobs))
    if workers == 1:
        for rel, language in jobs:
            yield analyse_file(str(root), rel, language, settings.max_file_bytes)
        return
    # The pool's modules load here, not at import: a warm start (what every CLI query
    # does first) parses nothing and must not pay for them.
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    batches = _batches(jobs, sizes or {})
    remaining = {id(batch): batch for batch in batches}
    try:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=_context(),
                                   initializer=die_with, initargs=(os.getpid(),))
        try:
            pending = {
                pool.submit(analyse_batch, str(root), batch, settings.max_file_bytes): batch
                for batch in batches
            }
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    batch = pending.pop(future)
                    results = future.result()
                    del remaining[id(batch)]
                    yield from results
        finally:  # a consumer that stops early (a cancelled index) drops the queued batches
            pool.shutdown(wait=True, cancel_futures=True)
    except BrokenProcessPool:
        # A worker died (killed, out of memory, a host that cannot start processes):
        # finish in this process rather than leave the index half built.
        for batch in remaining.values():
            for rel, language in batch:
                yield analyse_file(str(root), rel, language, settings.max_file_bytes)


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
