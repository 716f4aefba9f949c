"""How feature modules extend the server without editing each other's files.

* :func:`custom_request` registers ``codekeep/<name>`` **and** the command
  ``codekeep.<name>`` from one handler taking the params as a dict, and advertises it.
* :class:`Contributions` collects hover lines and code-lens lines from any area
  (the memory helper adds "2 memories", the ledger helper "≈ N tokens this week").
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codekeep.server.params import as_object, command_object

if TYPE_CHECKING:
    from codekeep.analysis.model import Symbol
    from codekeep.server.app import CodeKeepServer
    from codekeep.services import WorkspaceServices

CustomHandler = Callable[["CodeKeepServer", dict[str, Any]], Awaitable[Any]]


def custom_request(server: CodeKeepServer, name: str) -> Callable[[CustomHandler], CustomHandler]:
    """Register ``handler(server, params: dict)`` as request ``codekeep/<name>`` and as
    command ``codekeep.<name>`` (whose one argument is the same object)."""

    def decorator(handler: CustomHandler) -> CustomHandler:
        method = f"codekeep/{name}"

        @server.feature(method)
        async def request(ls: CodeKeepServer, params: Any) -> Any:
            return await handler(ls, as_object(params))

        # pygls resolves this signature's annotations at call time to convert the
        # arguments: ``ls`` is recognised by name and ``Any`` leaves values untouched.
        @server.command(f"codekeep.{name}")
        async def command(ls, *arguments: Any) -> Any:
            return await handler(ls, command_object(arguments))

        server.custom_methods.append(method)
        return handler

    return decorator


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


@dataclass(slots=True)
class Contributions:
    """Registries other areas append to from their ``register(server)``.

    * ``hover``: ``(services, symbol) -> markdown paragraph | None``, appended to hover.
    * ``symbol_lens``: ``(services, symbols) -> {symbol id: " · text"}``, appended to the
      reference-count lens of each definition (called as each lens is resolved, today
      with one symbol at a time: keep it to one cheap query).
    * ``file_lens``: ``(services, path) -> LensLine | None``, shown on line 0 of a file.
    """

    hover: list[HoverContributor] = field(default_factory=list)
    symbol_lens: list[SymbolLensContributor] = field(default_factory=list)
    file_lens: list[FileLensContributor] = field(default_factory=list)
