"""One workspace hosted for MCP clients: its services, its index and its watcher.

The services are single-threaded (their SQLite connections belong to one thread), so
they live on a :class:`~codekeep.hosting.workspaces.WorkspaceHandle` worker exactly as
in the language server: every tool call and resource read is queued there, in order.
The index is brought up to date in the background at start and then kept live by the
same file watcher the language server uses, so answers follow edits made by the user,
another agent or ``git checkout`` while the MCP server runs.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from codekeep.analysis.discovery import IgnoreRules
from codekeep.analysis.model import ChangeSet
from codekeep.common.workspace import check_root
from codekeep.hosting.watcher import DiskChangeQueue, FolderWatcher
from codekeep.hosting.workspaces import IndexProgress, WorkspaceHandle
from codekeep.services import WorkspaceServices
from codekeep.settings import load_settings
from codekeep.tools import ToolContext, ToolKit, ToolResult

T = TypeVar("T")

logger = logging.getLogger(__name__)


class WorkspaceHost:
    """The services of one folder on their worker thread, plus the live index.

    ``generation`` counts changes that can make an earlier (cached) answer wrong:
    every change the code map announces and every write a client makes. Sessions
    drop their cached results when it moves.
    """

    def __init__(self, root: Path, answer_chars: int) -> None:
        self.root = check_root(root.resolve())  # RootRefused: not / nor a home folder
        # The same layers as every door (user and project config files, environment);
        # MCP hosts send no settings of their own. Problems go to the log (stderr).
        layers = load_settings(self.root)
        for report in layers.reports:
            logger.warning("%s", report)
        self.settings = layers.settings
        self.handle = WorkspaceHandle(self.root, layers)
        self._answer_chars = answer_chars
        self._toolkit: ToolKit | None = None
        self._index_task: asyncio.Task[None] | None = None
        self._watcher: FolderWatcher | None = None
        self._generation = 0
        self._generation_lock = threading.Lock()

    # -- lifecycle ---------------------------------------------------------------------
    async def start(self) -> None:
        """Open the stores (raising if they cannot be), start indexing and watching."""
        services = await self.handle.run(lambda s: s)
        services.codemap.subscribe(self._code_changed)
        # --max-answer-chars is the bound of every answer (compression target and read cap)
        tool_settings = replace(self.settings.tools, result_chars=self._answer_chars)
        self._toolkit = ToolKit.open(
            self.root,
            codemap=services.codemap,
            memory=services.memory,
            ledger=services.ledger,
            docs=services.docs,
            settings=tool_settings,
        )
        self._index_task = asyncio.create_task(self._index())
        rules = IgnoreRules(self.root, self.settings.index)
        queue = _StalingQueue(asyncio.get_running_loop(), self.bump_generation)
        self._watcher = FolderWatcher(queue)
        self._watcher.watch(self.handle, lambda: rules)

    async def _index(self) -> None:
        progress = self.handle.progress

        def report(done: int, total: int) -> None:
            progress.done, progress.total = done, total

        try:
            stats = await self.handle.index(report)
            logger.info("index ready: %s", stats)
        except Exception as error:  # the tools answer with what is indexed, saying so
            progress.error = str(error)
            logger.exception("indexing %s failed", self.root)
        finally:
            progress.ready = progress.error is None

    async def stop(self) -> None:
        """Stop watching, finish queued work, flush and close the stores."""
        if self._watcher is not None:
            self._watcher.stop()
        if self._index_task is not None and not self._index_task.done():
            self._index_task.cancel()
        toolkit = self._toolkit
        await asyncio.to_thread(self._close, toolkit)

    def _close(self, toolkit: ToolKit | None) -> None:
        # The worker first: a call a departed client left running finishes (and is
        # audited) before the stores and then the audit log close.
        self.handle.close()
        if toolkit is not None:
            toolkit.close()

    # -- what the door asks ------------------------------------------------------------
    @property
    def toolkit(self) -> ToolKit:
        if self._toolkit is None:
            raise RuntimeError("the workspace host has not been started")
        return self._toolkit

    @property
    def progress(self) -> IndexProgress:
        return self.handle.progress

    async def index_ready(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the first index; True once it is done."""
        task = self._index_task
        if task is None or task.done():
            return self.progress.ready
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout)
        except TimeoutError:
            return False
        return self.progress.ready

    @property
    def generation(self) -> int:
        return self._generation

    def bump_generation(self) -> None:
        with self._generation_lock:
            self._generation += 1

    def _code_changed(self, changes: ChangeSet) -> None:
        if not changes.is_empty():
            self.bump_generation()

    async def execute(
        self, ctx: ToolContext, name: str, arguments: dict[str, Any] | None
    ) -> ToolResult:
        """One call through the tool pipeline, on the services' thread.

        The pipeline is async but its handlers call the services synchronously; it runs
        to completion on the worker (as our own agent's calls do in the server). A client
        that goes away mid-call only abandons the answer: the call itself finishes.
        """
        pipeline = self.toolkit.pipeline
        return await self.handle.run(
            lambda _services: asyncio.run(pipeline.execute(name, arguments, ctx))
        )

    async def read(self, fn: Callable[[WorkspaceServices], T]) -> T:
        """Run ``fn(services)`` on the worker (resources)."""
        return await self.handle.run(fn)


class _StalingQueue(DiskChangeQueue):
    """The watcher's queue, also marking cached answers stale when files change on disk
    (docs included, which the code map does not announce)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, on_flush: Callable[[], None]) -> None:
        super().__init__(loop)
        self._on_flush = on_flush

    def flush(self) -> None:
        self._on_flush()
        super().flush()
