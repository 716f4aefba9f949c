"""Changes made outside the editor (git checkout, formatters, other tools) reach the
code map and the docs through two doors that share one debounced queue: a ``watchdog`` observer on
each folder and the client's ``workspace/didChangeWatchedFiles``.

Events arrive in bursts (a checkout touches hundreds of files, an editor save is
write + rename); they are collected on the event loop, coalesced per path, and applied
on the folder's worker after a short quiet period. Files open in the editor are left
alone: their buffer is the truth until ``didClose``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from codekeep.analysis.discovery import IgnoreRules
from codekeep.hosting.workspaces import WorkspaceHandle
from codekeep.services import WorkspaceServices

logger = logging.getLogger(__name__)

DEBOUNCE_SECONDS = 0.15
OpKind = Literal["refresh", "delete", "rename"]


@dataclass(frozen=True, slots=True)
class DiskChange:
    kind: OpKind
    path: str
    old_path: str | None = None  # for renames


class DiskChangeQueue:
    """Per-folder pending disk changes, flushed after ``delay`` seconds of quiet.

    Only touched on the event loop thread; watchdog threads go through
    :meth:`record_threadsafe`.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, delay: float = DEBOUNCE_SECONDS) -> None:
        self._loop = loop
        self._delay = delay
        self._pending: dict[Path, dict[str, DiskChange]] = {}
        self._handles: dict[Path, WorkspaceHandle] = {}
        self._timer: asyncio.TimerHandle | None = None

    def record(self, handle: WorkspaceHandle, change: DiskChange) -> None:
        pending = self._pending.setdefault(handle.root, {})
        self._handles[handle.root] = handle
        if change.old_path is not None:
            pending.pop(change.old_path, None)
        pending.pop(change.path, None)  # re-insert: the latest event for a path wins
        pending[change.path] = change
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._loop.call_later(self._delay, self.flush)

    def record_threadsafe(self, handle: WorkspaceHandle, change: DiskChange) -> None:
        if not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self.record, handle, change)

    def flush(self) -> None:
        self._timer = None
        pending, self._pending = self._pending, {}
        for root, changes in pending.items():
            handle = self._handles[root]
            batch = list(changes.values())
            skip = frozenset(handle.open_documents)
            handle.post(
                functools.partial(apply_disk_changes, changes=batch, open_paths=skip),
                f"{len(batch)} disk change(s) in {root}",
            )


def apply_disk_changes(
    services: WorkspaceServices, changes: list[DiskChange], open_paths: frozenset[str]
) -> None:
    """Bring the index and the docs in line with the disk, one path at a time (one bad
    file does not stop the others)."""
    for change in changes:
        if change.path in open_paths:
            continue
        for store in (services.codemap, services.docs):
            try:
                if change.kind == "delete":
                    store.delete_file(change.path)
                elif change.kind == "rename" and change.old_path is not None:
                    store.rename_file(change.old_path, change.path)
                else:
                    store.refresh_file(change.path)
            except Exception:
                logger.exception("could not apply %s of %s", change.kind, change.path)


class _FolderEvents(FileSystemEventHandler):
    """watchdog callbacks for one folder (run on watchdog's thread)."""

    def __init__(
        self, handle: WorkspaceHandle, queue: DiskChangeQueue, rules: Callable[[], IgnoreRules]
    ) -> None:
        self._handle = handle
        self._queue = queue
        self._rules = rules

    def _relative(self, raw: bytes | str) -> str | None:
        path = Path(raw.decode() if isinstance(raw, bytes) else raw)
        relative = self._handle.relative(path)
        if relative is None or relative == "." or self._rules().ignored(relative, is_dir=False):
            return None
        return relative

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type not in {
            "created",
            "modified",
            "deleted",
            "moved",
        }:
            return
        path = self._relative(event.src_path)
        if event.event_type == "moved":
            new_path = self._relative(event.dest_path)
            if new_path is None:
                change = DiskChange("delete", path) if path else None
            elif path is None:
                change = DiskChange("refresh", new_path)
            else:
                change = DiskChange("rename", new_path, old_path=path)
        elif path is None:
            change = None
        else:
            change = DiskChange("delete" if event.event_type == "deleted" else "refresh", path)
        if change is not None:
            self._queue.record_threadsafe(self._handle, change)


class FolderWatcher:
    """One watchdog observer for all folders of the session."""

    def __init__(self, queue: DiskChangeQueue) -> None:
        # watchdog adds its own callback twice when the walk of a new folder and the
        # create event of a subfolder race (an index writing nested folders, a checkout,
        # two servers and an index on one tree): same group, same watch, same callback,
        # so nothing is lost — but each race printed a kilobytes-long "Callback with id …
        # already exists … will be Overwritten" warning on the server's stderr.
        warnings.filterwarnings("ignore", r"Callback with id .* already exists for watch",
                                RuntimeWarning, r"watchdog\.")
        self._queue = queue
        self._observer: BaseObserver = Observer()
        self._watches: dict[Path, object] = {}
        self._started = False

    def watch(self, handle: WorkspaceHandle, rules: Callable[[], IgnoreRules]) -> None:
        if handle.root in self._watches:
            return
        try:
            self._watches[handle.root] = self._observer.schedule(
                _FolderEvents(handle, self._queue, rules), str(handle.root), recursive=True
            )
            if not self._started:
                self._observer.start()
                self._started = True
        except OSError as error:  # e.g. inotify watch limit: the editor still works
            logger.warning("cannot watch %s for outside changes: %s", handle.root, error)

    def unwatch(self, root: Path) -> None:
        watch = self._watches.pop(root, None)
        if watch is not None:
            self._observer.unschedule(watch)  # type: ignore[arg-type]

    def stop(self) -> None:
        if self._started:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._started = False
