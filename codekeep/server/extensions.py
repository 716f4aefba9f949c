"""How feature modules extend the server without editing each other's files.

* :func:`custom_request` registers ``codekeep/<name>`` **and** the command
  ``codekeep.<name>`` (``/`` read as ``.``: ``memory/recall`` -> ``codekeep.memory.recall``)
  from one handler taking the params as a dict, and advertises it.
* :func:`target_folder` picks the folder a request is about (its ``uri``, else the first).
* :class:`Contributions` collects hover lines and code-lens lines from any area
  (the memory helper adds "2 memories", the ledger helper "≈ N tokens this week"),
  and the hooks run when a folder's services open or a document is saved.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcException

from codekeep.common.sqlite import explain_damage
from codekeep.server.params import InvalidParams, as_object, command_object, optional_str
from codekeep.services import store_files

if TYPE_CHECKING:
    from codekeep.analysis.model import Symbol
    from codekeep.hosting.workspaces import WorkspaceHandle
    from codekeep.server.app import CodeKeepServer
    from codekeep.services import WorkspaceServices

CustomHandler = Callable[["CodeKeepServer", dict[str, Any]], Awaitable[Any]]


def custom_request(server: CodeKeepServer, name: str) -> Callable[[CustomHandler], CustomHandler]:
    """Register ``handler(server, params: dict)`` as request ``codekeep/<name>`` and as
    command ``codekeep.<name>`` with dots all the way, as docs/server.md names commands
    (``memory/recall`` -> ``codekeep.memory.recall``); its one argument is the same object."""

    def decorator(handler: CustomHandler) -> CustomHandler:
        method = f"codekeep/{name}"

        @server.feature(method)
        async def request(ls: CodeKeepServer, params: Any) -> Any:
            params = as_object(params)
            return await _answered(ls, params, handler(ls, params))

        # pygls resolves this signature's annotations at call time to convert the
        # arguments: ``ls`` is recognised by name and ``Any`` leaves values untouched.
        @server.command(f"codekeep.{name.replace('/', '.')}")
        async def command(ls, *arguments: Any) -> Any:
            params = command_object(arguments)
            return await _answered(ls, params, handler(ls, params))

        server.custom_methods.append(method)
        return handler

    return decorator


class RequestFailed(JsonRpcException):
    """A well-formed request the server cannot carry out now; the message says why
    and what to do (LSP ``RequestFailed``)."""

    CODE = -32803


async def _answered(server: CodeKeepServer, params: dict[str, Any],
                    pending: Awaitable[Any]) -> Any:
    """A damaged database fails the request with its one-line message (which file of the
    request's folder, how to repair it), not an internal error carrying a traceback."""
    try:
        return await pending
    except sqlite3.DatabaseError as error:
        damage = explain_damage(
            error, store_files(target_folder(server, params).root),
            "stop the server and rerun the memory or ledger command with `--repair`")
        if damage is None:
            raise
        raise RequestFailed(str(damage)) from None


def target_folder(server: CodeKeepServer, params: dict[str, Any]) -> WorkspaceHandle:
    """The folder a request is about: the one holding ``params["uri"]`` when given,
    else the first folder of the session (single-folder editors never send one)."""
    uri = optional_str(params, "uri")
    if uri is not None:
        located = server.locate(uri)
        if located is None:
            raise InvalidParams(f"{uri} is not inside any workspace folder")
        return located[0]
    handle = next(iter(server.workspaces), None)
    if handle is None:
        raise RequestFailed("no workspace folder is open")
    return handle


@dataclass(frozen=True, slots=True)
class LensLine:
    """One code lens: its text and, optionally, the command a click runs."""

    title: str
    command: str = ""
    arguments: Sequence[Any] = ()


# Called on the workspace's worker thread (services are safe to use there).
HoverContributor = Callable[["WorkspaceServices", "Symbol"], str | None]
SymbolLensContributor = Callable[["WorkspaceServices", "Sequence[Symbol]"], dict[str, str]]
FileLensContributor = Callable[["WorkspaceServices", str], LensLine | None]
OpenedHook = Callable[["WorkspaceServices"], None]
SavedHook = Callable[["WorkspaceServices", str], None]


@dataclass(slots=True)
class Contributions:
    """Registries other areas append to from their ``register(server)``.

    * ``hover``: ``(services, symbol) -> markdown paragraph | None``, appended to hover.
    * ``symbol_lens``: ``(services, symbols) -> {symbol id: " · text"}``, appended to the
      reference-count lens of each definition (called as each lens is resolved, today
      with one symbol at a time: keep it to one cheap query).
    * ``file_lens``: ``(services, path) -> LensLine | None``, shown on line 0 of a file.
    * ``opened``: ``(services) -> None`` once per folder, right after its services open
      (subscribe to the folder's stores here: exactly once per folder).
    * ``saved``: ``(services, path) -> None`` after the editor saved a document of the
      folder (relative path; the file on disk holds the saved text).

    Hooks run on the folder's worker; an exception is logged and the others still run.
    """

    hover: list[HoverContributor] = field(default_factory=list)
    symbol_lens: list[SymbolLensContributor] = field(default_factory=list)
    file_lens: list[FileLensContributor] = field(default_factory=list)
    opened: list[OpenedHook] = field(default_factory=list)
    saved: list[SavedHook] = field(default_factory=list)
