"""Memory over LSP: the same operations as ``codekeep memory …`` plus editor surfaces.

Requests (each also the command ``codekeep.memory.<name>`` taking the same object):

* ``codekeep/memory/remember`` ``{content, kind?, key?, importance?, scope?, files?,
  symbols?, evidence?, ttlDays?, uri?}`` -> ``{id, action, reason?}`` (files may be URIs or
  workspace-relative paths; a rejection is a normal result with ``action: "REJECT"``);
* ``codekeep/memory/recall`` ``{query, limit?, kinds?, uri?}`` -> ``{memories}`` best
  first, each with ``score`` and ``scoreParts`` (``uri`` adds a structured file match);
* ``codekeep/memory/forget`` / ``notThis`` ``{id, reason?, undo?}`` -> ``{ok}``;
* ``codekeep/memory/list`` ``{kinds?, statuses?, scope?, limit?}`` -> ``{memories}``.

Hover on a definition adds the memories linked to it; its code lens gets
" · 2 memories". Each folder's :class:`MemoryService` is opened here on the folder's
worker thread, follows the code map's changes (renames move links, vanished symbols
become stale), and re-reads ``.codekeep/MEMORY.md`` whenever it changed — so a save in
the editor is in force for the next recall, hover or agent prompt.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from codekeep.analysis.model import ChangeSet, Symbol
from codekeep.common.uris import uri_to_path
from codekeep.memory import (
    KINDS,
    EmbeddingSettings,
    MemoryInputError,
    MemoryService,
    MemorySettings,
)
from codekeep.server import params as p
from codekeep.server.app import CodeKeepServer
from codekeep.server.extensions import custom_request
from codekeep.server.workspaces import WorkspaceHandle
from codekeep.services import WorkspaceServices

logger = logging.getLogger(__name__)

HOVER_ITEMS = 3


def memory_settings(data: Any) -> MemorySettings:
    """``{"embeddings": {"url", "model", "apiKey"}}`` from the editor's ``codekeep.memory``."""
    embeddings = EmbeddingSettings.from_env()
    section = data.get("embeddings") if isinstance(data, dict) else None
    if isinstance(section, dict) and isinstance(section.get("url"), str):
        embeddings = EmbeddingSettings(
            url=section["url"].rstrip("/"),
            model=str(section.get("model") or "text-embedding-3-small"),
            api_key=section.get("apiKey") if isinstance(section.get("apiKey"), str) else None,
        )
    return MemorySettings(embeddings=embeddings)


class MemoryRegistry:
    """One memory service per folder, subscribed to that folder's current code map."""

    def __init__(self, server: CodeKeepServer) -> None:
        self._server = server
        self._services: dict[Path, MemoryService] = {}
        self._subscribed: dict[Path, int] = {}  # root -> id() of the code map we listen to
        self._lock = threading.Lock()

    def memory_for(self, services: WorkspaceServices) -> MemoryService:
        """The folder's memory, opened on first use (call on the folder's worker)."""
        root = services.root
        with self._lock:
            memory = self._services.get(root)
            if memory is None:
                settings = memory_settings(self._server.settings.extra.get("memory"))
                memory = self._services[root] = MemoryService.open(root, settings=settings)
            if self._subscribed.get(root) != id(services.codemap):
                # a settings change reopens the code map: follow the new instance
                services.codemap.subscribe(self._follow_code(root))
                self._subscribed[root] = id(services.codemap)
        return memory

    def _follow_code(self, root: Path) -> Callable[[ChangeSet], None]:
        def on_change(changes: ChangeSet) -> None:
            if changes.is_empty():
                return
            handle = self._server.workspaces.get(root)
            if handle is not None:  # the code map may notify from the indexing thread
                handle.post(
                    lambda services: self.memory_for(services).apply_code_changes(changes),
                    "memory: follow code changes",
                )

        return on_change

    def close(self) -> None:
        with self._lock:
            for memory in self._services.values():
                memory.close()
            self._services.clear()
            self._subscribed.clear()


def _folder(server: CodeKeepServer, params: dict[str, Any]) -> WorkspaceHandle:
    uri = p.optional_str(params, "uri")
    if uri is not None:
        located = server.locate(uri)
        if located is None:
            raise p.InvalidParams(f"{uri} is not inside any workspace folder")
        return located[0]
    handle = next(iter(server.workspaces), None)
    if handle is None:
        raise p.InvalidParams("no workspace folder is open")
    return handle


def _paths(handle: WorkspaceHandle, values: Sequence[str]) -> list[str]:
    """Workspace-relative paths from URIs or paths; a file outside the folder is an error."""
    paths = []
    for value in values:
        if not value.startswith("file:"):
            paths.append(value)
            continue
        relative = handle.relative(uri_to_path(value))
        if relative is None:
            raise p.InvalidParams(f"{value} is not inside the workspace folder {handle.root}")
        paths.append(relative)
    return paths


def _default(value: int | None, default: int) -> int:
    return default if value is None else value


def _kinds(params: dict[str, Any]) -> list[str] | None:
    kinds = p.optional_str_list(params, "kinds")
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise p.InvalidParams(f"unknown kind {unknown[0]!r} (one of {', '.join(KINDS)})")
    return kinds or None


def _remember(memory: MemoryService, handle: WorkspaceHandle, params: dict[str, Any]) -> Any:
    evidence = params.get("evidence")
    if evidence is not None and not isinstance(evidence, dict):
        raise p.InvalidParams("'evidence' must be an object {file|event, quote}")
    result = memory.remember(
        p.required_str(params, "content"),
        kind=p.optional_str(params, "kind") or "fact",
        key=p.optional_str(params, "key"),
        importance=_default(p.optional_int(params, "importance", minimum=1, maximum=10), 5),
        scope=p.optional_str(params, "scope") or "project",
        files=_paths(handle, p.optional_str_list(params, "files")),
        symbols=p.optional_str_list(params, "symbols"),
        evidence=evidence,
        source=p.optional_str(params, "source") or "user",
        ttl_days=p.optional_int(params, "ttlDays", minimum=1),
    )
    return result.to_json()


def _recall(memory: MemoryService, handle: WorkspaceHandle, params: dict[str, Any]) -> Any:
    query = params.get("query")
    if query is not None and not isinstance(query, str):
        raise p.InvalidParams("'query' must be a string")
    uri = p.optional_str(params, "uri")
    found = memory.recall(
        query or "",
        limit=_default(p.optional_int(params, "limit", minimum=0, maximum=200), 10),
        kinds=_kinds(params),
        files=_paths(handle, [uri]) if uri else (),
    )
    return {"memories": [r.to_json() for r in found]}


def _list(memory: MemoryService, _handle: WorkspaceHandle, params: dict[str, Any]) -> Any:
    found = memory.list(
        kinds=_kinds(params),
        statuses=p.optional_str_list(params, "statuses") or None,
        scope=p.optional_str(params, "scope"),
        limit=p.optional_int(params, "limit", minimum=1, maximum=1000) or 200,
    )
    return {"memories": [m.to_json() for m in found]}


def _forget(memory: MemoryService, _handle: WorkspaceHandle, params: dict[str, Any]) -> Any:
    return {"ok": memory.forget(p.required_str(params, "id"), p.optional_str(params, "reason"))}


def _not_this(memory: MemoryService, _handle: WorkspaceHandle, params: dict[str, Any]) -> Any:
    memory_id = p.required_str(params, "id")
    if params.get("undo") is True:
        return {"ok": memory.undo_not_this(memory_id)}
    return {"ok": memory.not_this(memory_id, p.optional_str(params, "reason"))}


def hover_paragraph(memory: MemoryService, symbol: Symbol) -> str | None:
    linked = memory.memories_for_symbol(symbol.id)
    if not linked:
        return None
    lines = [f"**{len(linked)} {'memory' if len(linked) == 1 else 'memories'}**"]
    for item in linked[:HOVER_ITEMS]:
        flags = f" — {', '.join(item.flags)}" if item.flags else ""
        text = " ".join(item.content.split())
        lines.append(f"- {text} _({item.kind}{flags})_ `{item.id}`")
    if len(linked) > HOVER_ITEMS:
        lines.append(f"- … and {len(linked) - HOVER_ITEMS} more (`codekeep memory recall`)")
    return "\n".join(lines)


def lens_counts(memory: MemoryService, symbols: Sequence[Symbol]) -> dict[str, str]:
    counts = memory.counts_for_symbols([s.id for s in symbols])
    return {
        symbol_id: f" · {count} {'memory' if count == 1 else 'memories'}"
        for symbol_id, count in counts.items()
    }


Action = Callable[[MemoryService, WorkspaceHandle, dict[str, Any]], Any]


def register(server: CodeKeepServer) -> None:
    registry = MemoryRegistry(server)
    server.on_close.append(registry.close)
    server.contributions.hover.append(
        lambda services, symbol: hover_paragraph(registry.memory_for(services), symbol)
    )
    server.contributions.symbol_lens.append(
        lambda services, symbols: lens_counts(registry.memory_for(services), symbols)
    )

    def handler(action: Action) -> Callable[[dict[str, Any]], Awaitable[Any]]:
        async def handle(params: dict[str, Any]) -> Any:
            folder = _folder(server, params)

            def run(services: WorkspaceServices) -> Any:
                try:
                    return action(registry.memory_for(services), folder, params)
                except MemoryInputError as error:
                    raise p.InvalidParams(str(error)) from None

            return await folder.run(run)

        return handle

    for name, action in (
        ("remember", _remember),
        ("recall", _recall),
        ("forget", _forget),
        ("notThis", _not_this),
        ("list", _list),
    ):
        _expose(server, name, handler(action))


def _expose(
    server: CodeKeepServer, name: str, handle: Callable[[dict[str, Any]], Awaitable[Any]]
) -> None:
    """``codekeep/memory/<name>`` and the command ``codekeep.memory.<name>`` (dots all the
    way, as DESIGN.md names commands)."""

    @custom_request(server, f"memory/{name}")
    async def request(ls: CodeKeepServer, params: dict[str, Any]) -> Any:
        return await handle(params)

    # ``ls`` stays unannotated: pygls recognises it by name and converts annotated args.
    @server.command(f"codekeep.memory.{name}")
    async def command(ls, *arguments: Any) -> Any:
        return await handle(p.command_object(arguments))
