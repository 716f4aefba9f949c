"""Background indexing of a folder with ``$/progress`` (begin / report % / end).

Requests keep being answered from what is already indexed while this runs;
``codekeep/indexStatus`` says ``ready: false`` until it ends.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from codekeep.analysis.errors import IndexCancelled
from codekeep.analysis.model import IndexStats
from codekeep.common.eta import describe
from codekeep.common.tokens import token_len
from codekeep.hosting.heap import release_free_memory
from codekeep.hosting.workspaces import WorkspaceHandle
from codekeep.server.progress import WorkDoneProgress

if TYPE_CHECKING:
    from codekeep.server.app import CodeKeepServer

logger = logging.getLogger(__name__)


def _report_files(progress: WorkDoneProgress, done: int, total: int,
                  seconds_left: float | None) -> None:
    """Called on the event loop; sends only when the whole percentage moves."""
    percentage = 100 if total <= 0 else min(100, done * 100 // total)
    if percentage != progress.percentage:
        progress.report(describe(done, total, seconds_left), percentage)


async def index_in_background(server: CodeKeepServer, handle: WorkspaceHandle) -> IndexStats | None:
    """Index ``handle``'s folder off the event loop, reporting progress.

    Never raises (but for cancellation): a failure is logged, kept in
    ``handle.progress.error`` and returned as None.
    """
    handle.progress.ready = False
    handle.progress.error = None
    reporter = WorkDoneProgress(server, "index", f"CodeKeep: indexing {handle.root.name}")
    await reporter.begin(percentage=0)
    loop = asyncio.get_running_loop()

    handle.progress.eta.start()

    def on_progress(done: int, total: int) -> None:  # called on the indexing thread
        handle.progress.done, handle.progress.total = done, total
        loop.call_soon_threadsafe(_report_files, reporter, done, total,
                                  handle.progress.seconds_left())

    try:
        stats = await handle.index(on_progress)
    except asyncio.CancelledError:
        reporter.end("cancelled")
        raise
    except IndexCancelled:  # the folder was removed, or the server is exiting
        reporter.end("cancelled")
        return None
    except Exception as error:
        handle.progress.error = str(error)
        logger.exception("indexing %s failed", handle.root)
        reporter.end(f"failed: {error}")
        return None
    handle.progress.ready = True
    logger.info(
        "indexed %s: %d files, %d symbols in %.2fs",
        handle.root,
        stats.files,
        stats.symbols,
        stats.seconds,
    )
    reporter.end(f"{stats.files} files, {stats.symbols} symbols")
    # after the progress has ended: the editor shows "ready" without waiting for it
    await asyncio.to_thread(release_free_memory)  # the index churned far more than it keeps
    # the fuzzy search's names and the map's graph, off every request: no
    # workspace/symbol or repoMap waits for them
    try:
        codemap = await handle.run(lambda services: services.codemap)
        # (and the map's tokenizer, whose encoding takes ~1 s to load)
        await asyncio.gather(asyncio.to_thread(codemap.prepare_search),
                             asyncio.to_thread(codemap.prepare_map),
                             asyncio.to_thread(token_len, ""))
    except IndexCancelled:
        pass  # the folder is closing (or the server exiting): nothing to prepare for
    except Exception:  # the folder closed meanwhile …: searches and maps build theirs
        logger.exception("preparing the symbol search and map of %s failed", handle.root)
    return stats
