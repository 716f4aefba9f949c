"""Workspace folders known to the server: one :class:`WorkspaceHandle` per folder.

Multi-root editors send several folders; each gets its own ``.codekeep/`` (its own
index), its own worker thread and its own file watcher. A document URI is routed to
the folder that contains it (the deepest one, for nested folders).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from codekeep.analysis.errors import IndexCancelled
from codekeep.analysis.model import IndexStats
from codekeep.common.eta import Eta
from codekeep.common.uris import uri_to_path
from codekeep.hosting.worker import SerialWorker
from codekeep.services import WorkspaceServices
from codekeep.settings import Settings, SettingsLayers

T = TypeVar("T")

logger = logging.getLogger(__name__)


class WorkspaceUnavailable(RuntimeError):
    """The folder's stores could not be opened (unwritable, not a directory, ...)."""


@dataclass(slots=True)
class IndexProgress:
    """Where the background index of one folder stands (read by ``indexStatus``)."""

    done: int = 0
    total: int = 0
    ready: bool = False
    error: str | None = None
    eta: Eta = field(default_factory=Eta)  # restarted when an index begins

    def seconds_left(self) -> float | None:
        return None if self.ready else self.eta.seconds_left(self.done, self.total)


class WorkspaceHandle:
    """One folder: its services (owned by a serial worker thread) and index state."""

    def __init__(
        self,
        root: Path,
        layers: SettingsLayers,
        on_open: Callable[[WorkspaceServices], None] | None = None,
    ) -> None:
        self.root = root
        # This folder's settings sources, and what its services were last given (both
        # read and written on the event loop; the worker gets its own copy).
        self.layers = layers
        self.settings: Settings = layers.settings
        self._on_open = on_open
        self.worker = SerialWorker(f"codekeep-{root.name or 'root'}")
        self.progress = IndexProgress()
        # Documents open in the editor: relative path -> URI. Their buffer is the truth.
        self.open_documents: dict[str, str] = {}
        self._services: WorkspaceServices | None = None
        self._open_error: str | None = None
        self._closing = False
        # First job of the FIFO: everything queued later sees the opened services.
        self.worker.post(self._open, self.settings, what=f"opening {root}")

    def _open(self, settings: Settings) -> None:
        try:
            self._services = WorkspaceServices.open(
                self.root,
                settings,
                on_owner=lambda update: self.post(lambda _s: update(), "memory follows code"),
            )
        except Exception as error:
            self._open_error = str(error)
            raise
        if self._on_open is not None:
            self._on_open(self._services)

    async def run(self, fn: Callable[[WorkspaceServices], T]) -> T:
        """Run ``fn(services)`` on this folder's worker, after everything queued before."""
        return await self.worker.run(self._with_services, fn)

    def post(self, fn: Callable[[WorkspaceServices], Any], what: str) -> None:
        """Queue ``fn(services)`` without waiting (notifications); failures are logged."""
        self.worker.post(self._with_services, fn, what=what)

    @property
    def open_error(self) -> str | None:
        """Why this folder's stores could not be opened (None: open, or still opening)."""
        return self._open_error

    def _with_services(self, fn: Callable[[WorkspaceServices], T]) -> T:
        if self._services is None:
            raise WorkspaceUnavailable(f"workspace {self.root} failed to open: {self._open_error}")
        return fn(self._services)

    async def index(self, progress: Callable[[int, int], None]) -> IndexStats:
        """Bring the index, then the docs, up to date with the disk (warm: unchanged
        files are skipped).

        Runs on its own thread, not the worker: the code map's and the docs' locks
        decide how queries and edits interleave with it, and the worker's queue keeps
        its order. The docs failing is logged; the code map's answers still count.
        """
        if self._closing:  # removed (or the server is exiting) before this index began
            raise IndexCancelled(f"{self.root} is no longer a workspace folder")
        codemap, docs = await self.run(lambda services: (services.codemap, services.docs))
        stats = await asyncio.to_thread(codemap.index, progress)
        try:
            await asyncio.to_thread(docs.index)
        except Exception:
            logger.exception("indexing the docs of %s failed", self.root)
        return stats

    def relative(self, path: Path) -> str | None:
        """``path`` relative to this root as a POSIX string, or None if outside it."""
        for candidate in (path, path.resolve()):
            try:
                return candidate.relative_to(self.root).as_posix()
            except ValueError:
                continue
        return None

    def close(self) -> None:
        """Stop a running index, flush queued work, then close the databases (blocking;
        used when the folder is removed and at shutdown)."""
        self._closing = True
        if self._services is not None:
            self._services.codemap.cancel()
        self.worker.post(self._close_services, what="close")
        self.worker.close()

    def _close_services(self) -> None:
        if self._services is not None:
            self._services.close()


class WorkspaceRegistry:
    """The folders of the session, keyed by their resolved root path."""

    def __init__(self, on_open: Callable[[WorkspaceServices], None] | None = None) -> None:
        self._handles: dict[Path, WorkspaceHandle] = {}
        self._on_open = on_open  # run on each folder's worker once its services are open

    def __iter__(self) -> Iterator[WorkspaceHandle]:
        return iter(list(self._handles.values()))

    def __len__(self) -> int:
        return len(self._handles)

    def get(self, root: Path) -> WorkspaceHandle | None:
        return self._handles.get(root)

    def add(self, root: Path, layers: SettingsLayers) -> WorkspaceHandle | None:
        """Open a folder (idempotent); returns the new handle, or None if already open."""
        if root in self._handles:
            return None
        handle = WorkspaceHandle(root, layers, self._on_open)
        self._handles[root] = handle
        return handle

    def remove(self, root: Path) -> WorkspaceHandle | None:
        return self._handles.pop(root, None)

    def locate(self, uri: str) -> tuple[WorkspaceHandle, str] | None:
        """The folder holding ``uri`` and the document's workspace-relative path."""
        try:
            path = uri_to_path(uri)
        except ValueError:
            return None
        best: tuple[WorkspaceHandle, str] | None = None
        for handle in self._handles.values():
            relative = handle.relative(path)
            if relative is not None and (
                best is None or len(handle.root.parts) > len(best[0].root.parts)
            ):
                best = (handle, relative)
        return best

    def close_all(self) -> None:
        for root in list(self._handles):
            handle = self._handles.pop(root)
            try:
                handle.close()
            except Exception:  # one folder failing to close must not keep others open
                logger.exception("closing workspace %s failed", root)
