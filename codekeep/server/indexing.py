"""Background indexing of a folder with ``$/progress`` (begin / report % / end).

Requests keep being answered from what is already indexed while this runs;
``codekeep/indexStatus`` says ``ready: false`` until it ends.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import TYPE_CHECKING

from lsprotocol import types

from codekeep.analysis.errors import IndexCancelled
from codekeep.analysis.model import IndexStats
from codekeep.hosting.heap import release_free_memory
from codekeep.hosting.workspaces import WorkspaceHandle

if TYPE_CHECKING:
    from codekeep.server.app import CodeKeepServer

logger = logging.getLogger(__name__)


class ProgressReporter:
    """Work-done progress for one indexing run; silent if the client cannot show it."""

    def __init__(self, server: CodeKeepServer, title: str) -> None:
        self._server = server
        self._title = title
        self._token = f"codekeep-index-{uuid.uuid4().hex[:8]}"
        self._percentage = -1
        self._active = False

    async def begin(self) -> None:
        window = self._server.client_capabilities.window
        if window is None or not window.work_done_progress:
            return
        progress = self._server.work_done_progress
        try:
            await progress.create_async(self._token)
        except Exception as error:  # the client refused: index anyway, silently
            logger.info("client refused a progress token: %s", error)
            return
        self._active = True
        progress.begin(
            self._token,
            types.WorkDoneProgressBegin(title=self._title, percentage=0, cancellable=False),
        )

    def report(self, done: int, total: int) -> None:
        """Called on the event loop; sends only when the whole percentage moves."""
        percentage = 100 if total <= 0 else min(100, done * 100 // total)
        if not self._active or percentage == self._percentage:
            return
        self._percentage = percentage
        self._server.work_done_progress.report(
            self._token,
            types.WorkDoneProgressReport(message=f"{done}/{total} files", percentage=percentage),
        )

    def end(self, message: str) -> None:
        if self._active:
            self._active = False
            self._server.work_done_progress.end(
                self._token, types.WorkDoneProgressEnd(message=message)
            )


async def index_in_background(server: CodeKeepServer, handle: WorkspaceHandle) -> IndexStats | None:
    """Index ``handle``'s folder off the event loop, reporting progress.

    Never raises (but for cancellation): a failure is logged, kept in
    ``handle.progress.error`` and returned as None.
    """
    handle.progress.ready = False
    handle.progress.error = None
    reporter = ProgressReporter(server, f"CodeKeep: indexing {handle.root.name}")
    await reporter.begin()
    loop = asyncio.get_running_loop()

    def on_progress(done: int, total: int) -> None:  # called on the indexing thread
        handle.progress.done, handle.progress.total = done, total
        loop.call_soon_threadsafe(reporter.report, done, total)

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
    return stats
