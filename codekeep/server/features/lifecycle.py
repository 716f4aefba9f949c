"""Session lifecycle: folders opened on ``initialize``, indexed after ``initialized``,
settings from every layer (``server/configuration.py`` keeps the editor's; changes apply
live), folders added/removed, databases flushed on ``shutdown``/``exit``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types

from codekeep.analysis.discovery import IgnoreRules
from codekeep.analysis.model import IndexStats
from codekeep.common.uris import path_to_uri, uri_to_path
from codekeep.common.workspace import refusal, resolve_root
from codekeep.hosting.watcher import DiskChange, DiskChangeQueue, FolderWatcher, OpKind
from codekeep.hosting.workspaces import WorkspaceHandle, WorkspaceUnavailable
from codekeep.server.app import CodeKeepServer
from codekeep.server.configuration import EditorSettings
from codekeep.server.extensions import custom_request
from codekeep.server.indexing import index_in_background
from codekeep.server.logs import attach_client_logging
from codekeep.services import WorkspaceServices
from codekeep.settings.sources import CONFIG_FILE

logger = logging.getLogger(__name__)

# Saving one of these re-reads the folder's project settings.
CONFIG_PATHS = frozenset({f".codekeep/{CONFIG_FILE}", "pyproject.toml"})


class Session:
    """What the lifecycle handlers share: the watcher, the disk queue, running tasks."""

    def __init__(self, server: CodeKeepServer) -> None:
        self.server = server
        self.queue: DiskChangeQueue | None = None
        self.watcher: FolderWatcher | None = None
        self.tasks: set[asyncio.Task[Any]] = set()
        self.rules: dict[Path, IgnoreRules] = {}
        self.indexing: dict[Path, asyncio.Future[IndexStats | None]] = {}
        self.editor = EditorSettings(server)

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self.queue = DiskChangeQueue(loop)
        self.watcher = FolderWatcher(self.queue)

    def spawn(self, coro: Any) -> asyncio.Future[Any]:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def open_folder(self, root: Path) -> WorkspaceHandle | None:
        if not root.is_dir():  # a stale folder in the editor's workspace file
            logger.warning("workspace folder %s does not exist; skipped", root)
            return None
        if (message := refusal(root)) is not None:
            logger.warning("%s", message)
            self.server.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=message))
            return None
        if self.server.workspaces.get(root) is not None:
            return None
        handle = self.server.workspaces.add(root, self.editor.layers_for(root))
        if handle is None:
            return None
        self.rules[root] = IgnoreRules(root, handle.settings.index)
        if self.watcher is not None:
            self.watcher.watch(handle, lambda: self.rules[root])
        logger.info("workspace folder %s", root)
        return handle

    def close_folder(self, root: Path) -> None:
        handle = self.server.workspaces.remove(root)
        if handle is None:
            return
        if self.watcher is not None:
            self.watcher.unwatch(root)
        self.rules.pop(root, None)
        # Joining the worker (and a running index) must not stall the event loop.
        self.spawn(asyncio.to_thread(handle.close))

    def index(self, handle: WorkspaceHandle) -> asyncio.Future[IndexStats | None]:
        """Start indexing a folder, after any run already going on for it."""
        previous = self.indexing.get(handle.root)

        async def run() -> IndexStats | None:
            if previous is not None and not previous.done():
                await asyncio.wait([previous])
            return await index_in_background(self.server, handle)

        self.indexing[handle.root] = self.spawn(run())
        return self.indexing[handle.root]

    def stop(self) -> None:
        """Before the databases close: no more watcher events, no more indexing."""
        if self.watcher is not None:
            self.watcher.stop()


def folder_roots(params: types.InitializeParams) -> list[Path]:
    """Workspace folders, else rootUri, else rootPath (older clients)."""
    uris = [folder.uri for folder in params.workspace_folders or []]
    if not uris and params.root_uri:
        uris = [params.root_uri]
    roots = []
    for uri in uris:
        try:
            roots.append(resolve_root(uri_to_path(uri)))
        except ValueError:
            logger.warning("ignoring workspace folder that is not a file URI: %s", uri)
    if not roots and params.root_path:
        roots.append(resolve_root(params.root_path))
    return roots


def config_saved(session: Session, services: WorkspaceServices, path: str) -> None:
    """(On the worker.) A saved config file re-reads the folder's settings, on the loop."""
    if path in CONFIG_PATHS:
        root = services.root

        def reload() -> None:
            session.spawn(reload_files(session, root))

        session.server.call_on_loop(reload)


def initialize(session: Session, ls: CodeKeepServer, params: types.InitializeParams) -> None:
    loop = ls.loop = asyncio.get_running_loop()
    attach_client_logging(ls, loop)
    session.start(loop)
    session.editor.init_options = params.initialization_options
    for root in folder_roots(params):
        session.open_folder(root)


async def initialized(
    session: Session, ls: CodeKeepServer, params: types.InitializedParams
) -> None:
    await register_watched_files(ls)
    await refresh_settings(session, list(ls.workspaces), reindex=False)
    for handle in ls.workspaces:
        session.index(handle)


async def did_change_configuration(
    session: Session, ls: CodeKeepServer, params: types.DidChangeConfigurationParams
) -> None:
    if not session.editor.can_ask():
        session.editor.pushed = params.settings
    await refresh_settings(session, list(ls.workspaces), reindex=True)


def did_change_folders(
    session: Session, ls: CodeKeepServer, params: types.DidChangeWorkspaceFoldersParams
) -> None:
    for folder in params.event.removed:
        session.close_folder(resolve_root(uri_to_path(folder.uri)))
    for folder in params.event.added:
        handle = session.open_folder(resolve_root(uri_to_path(folder.uri)))
        if handle is not None:
            session.spawn(_settle_and_index(session, handle))


def did_change_watched_files(
    session: Session, ls: CodeKeepServer, params: types.DidChangeWatchedFilesParams
) -> None:
    if session.queue is None:
        return
    for event in params.changes:
        located = ls.locate(event.uri)
        if located is None:
            continue
        handle, path = located
        if session.rules[handle.root].ignored(path, is_dir=False):
            continue
        kind: OpKind = "delete" if event.type == types.FileChangeType.Deleted else "refresh"
        session.queue.record(handle, DiskChange(kind, path))


async def reindex(session: Session, ls: CodeKeepServer, params: dict[str, Any]) -> dict[str, Any]:
    """Bring every folder's index up to date with the disk now (with progress)."""
    handles = list(ls.workspaces)
    results = await asyncio.gather(*(session.index(handle) for handle in handles))
    return {
        "folders": [
            {"uri": path_to_uri(handle.root), "error": handle.progress.error}
            | (stats.to_json() if stats is not None else {})
            for handle, stats in zip(handles, results, strict=True)
        ]
    }


async def shutdown(ls: CodeKeepServer, params: Any) -> None:
    # Blocking work (joining threads, checkpointing SQLite) off the event loop.
    await asyncio.to_thread(ls.close_workspaces)


def exit_(ls: CodeKeepServer, params: Any) -> None:
    ls.close_workspaces()  # no-op after a clean shutdown; flushes if the client skipped it


# Handlers of the session's state: each gets the server's Session first.
SESSION_FEATURES: tuple[tuple[str, Callable[..., Any]], ...] = (
    (types.INITIALIZE, initialize),
    (types.INITIALIZED, initialized),
    (types.WORKSPACE_DID_CHANGE_CONFIGURATION, did_change_configuration),
    (types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS, did_change_folders),
    (types.WORKSPACE_DID_CHANGE_WATCHED_FILES, did_change_watched_files),
)
FEATURES: tuple[tuple[str, Callable[..., Any]], ...] = (
    (types.SHUTDOWN, shutdown),
    (types.EXIT, exit_),
)


def register(server: CodeKeepServer) -> None:
    session = Session(server)
    server.on_close.append(session.stop)
    server.contributions.saved.append(functools.partial(config_saved, session))
    for method, handler in SESSION_FEATURES:
        server.feature(method)(functools.partial(handler, session))
    custom_request(server, "reindex")(functools.partial(reindex, session))
    for method, handler in FEATURES:
        server.feature(method)(handler)


async def reload_files(session: Session, root: Path) -> None:
    """A config file of ``root`` was saved: read the files again and apply the result."""
    handle = session.server.workspaces.get(root)
    if handle is not None:
        session.editor.files_changed(handle)
        await apply_settings(session, handle, reindex=True)


async def _settle_and_index(session: Session, handle: WorkspaceHandle) -> None:
    """A folder added later: ask for its settings first, then index it by them."""
    await refresh_settings(session, [handle], reindex=False)
    session.index(handle)


async def refresh_settings(
    session: Session, handles: list[WorkspaceHandle], *, reindex: bool
) -> None:
    """Ask the editor for each folder's settings and apply what changed."""
    await session.editor.refresh(handles)
    for handle in handles:
        await apply_settings(session, handle, reindex=reindex)


async def apply_settings(session: Session, handle: WorkspaceHandle, *, reindex: bool) -> None:
    """Make the folder's resolved settings current without a restart."""
    settings = handle.layers.settings
    if settings == handle.settings:
        return
    handle.settings = settings
    logger.info("settings of %s changed", handle.root)
    session.rules[handle.root] = IgnoreRules(handle.root, settings.index)
    try:
        changed = await handle.run(
            functools.partial(
                WorkspaceServices.reconfigure,
                settings=settings,
                open_paths=list(handle.open_documents),
            )
        )
    except WorkspaceUnavailable:
        return  # reported by indexStatus; the other folders still get their settings
    if changed and reindex:
        session.index(handle)


async def register_watched_files(server: CodeKeepServer) -> None:
    """Ask the client to send ``workspace/didChangeWatchedFiles`` (when it can)."""
    workspace = server.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace else None
    if not watched or not watched.dynamic_registration:
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern="**/*")]
    )
    try:
        await server.client_register_capability_async(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id="codekeep-watched-files",
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=options,
                    )
                ]
            )
        )
    except Exception as error:
        logger.info("client refused file watching registration: %s", error)
