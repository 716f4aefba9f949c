"""The editor's layer of each folder's settings, and telling the user what was refused.

Editors give settings three ways: ``initializationOptions`` (once, for every folder),
``workspace/configuration`` (asked per folder with its ``scopeUri``, so a multi-root
workspace can set each folder apart) and, for clients that cannot be asked, the
``settings`` of ``workspace/didChangeConfiguration``. A folder's answer replaces the
initialization options (which may be stale by then); they count only where the client
has no answer. The result is the ``editor`` layer of the folder's
:class:`~codekeep.settings.SettingsLayers`, over the user and project files and the
environment. A value that is not accepted is shown once with ``window/showMessage``
(and logged); the previous value stays in force."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types

from codekeep.common.uris import path_to_uri
from codekeep.hosting.workspaces import WorkspaceHandle
from codekeep.server.app import CodeKeepServer
from codekeep.settings import SECTION, Report, SettingsLayers

logger = logging.getLogger(__name__)


class EditorSettings:
    """What the client said about settings, and which problems the user has seen."""

    def __init__(self, server: CodeKeepServer) -> None:
        self.server = server
        self.init_options: Any = None
        self.pushed: Any = None  # didChangeConfiguration settings (clients we cannot ask)
        self._shown: dict[Path, set[str]] = {}

    def layers_for(self, root: Path) -> SettingsLayers:
        """A folder's layers with what the editor has said so far (before it is asked)."""
        layers = SettingsLayers(root)
        layers.set_editor(self.init_options, self.pushed)
        self.report(root, layers.reports)
        return layers

    def can_ask(self) -> bool:
        workspace = self.server.client_capabilities.workspace
        return bool(workspace and workspace.configuration)

    async def refresh(self, handles: Sequence[WorkspaceHandle]) -> None:
        """Set each folder's editor layer from the client's current answer."""
        answers: list[Any] = [None] * len(handles)
        if self.can_ask() and handles:
            answers = await self._ask(handles)
        for handle, answer in zip(handles, answers, strict=True):
            # The client's answer is its current truth (VS Code includes every setting,
            # unset ones as null); initializationOptions may be stale by then. They stand
            # in only for a client that has nothing for the section (or cannot be asked).
            if answer is None:
                handle.layers.set_editor(self.init_options, self.pushed)
            else:
                handle.layers.set_editor(answer)
            self.report(handle.root, handle.layers.reports)

    def files_changed(self, handle: WorkspaceHandle) -> None:
        """The user or project config file was saved: read them again."""
        handle.layers.reload_files()
        self.report(handle.root, handle.layers.reports)

    async def _ask(self, handles: Sequence[WorkspaceHandle]) -> list[Any]:
        items = [types.ConfigurationItem(section=SECTION, scope_uri=path_to_uri(handle.root))
                 for handle in handles]
        try:
            answers = await self.server.workspace_configuration_async(
                types.ConfigurationParams(items=items))
        except Exception as error:
            logger.info("client did not answer workspace/configuration: %s", error)
            return [None] * len(handles)
        answers = list(answers or [])
        return (answers + [None] * len(handles))[: len(handles)]

    def report(self, root: Path, reports: list[Report]) -> None:
        """Show problems the user has not seen yet for this folder; log every one."""
        texts = [str(report) for report in reports]
        seen = self._shown.get(root, set())
        self._shown[root] = set(texts)
        fresh = [text for text in texts if text not in seen]
        for text in fresh:
            logger.warning("%s (folder %s)", text, root)
        if fresh:
            self.server.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Warning,
                message="CodeKeep settings: " + "\n".join(fresh)
                + "\nThe previous values stay in force."))
