"""Memory over LSP: the same operations as ``codekeep memory …`` plus editor surfaces.

Requests (each also the command ``codekeep.memory.<name>`` taking the same object):

* ``codekeep/memory/remember`` ``{content, kind?, key?, importance?, scope?, files?,
  symbols?, evidence?, ttlDays?, uri?}`` -> ``{id, action, reason?}`` (files may be URIs or
  workspace-relative paths; a rejection is a normal result with ``action: "REJECT"``);
* ``codekeep/memory/recall`` ``{query, limit?, kinds?, uri?}`` -> ``{memories, relevance,
  embeddingsUnavailable?}`` best first, each with ``score`` and ``scoreParts`` (a file's
  ``uri`` adds a structured file match; the folder's own only routes). With an
  embeddings endpoint, its request is sent off the folder's worker (edits and code-map
  requests go on meanwhile) and bounded by
  ``memory.embeddings.timeout``; when it gives nothing in time, ``relevance`` is
  ``"lexical"`` and ``embeddingsUnavailable`` says why;
* ``codekeep/memory/forget`` / ``notThis`` ``{id, reason?, undo?}`` -> ``{ok}``;
* ``codekeep/memory/confirm`` ``{id}`` -> ``{ok}``: an observed (inferred) memory, e.g.
  a preference extraction found in a task, is confirmed by the user and acted on;
* ``codekeep/memory/list`` ``{kinds?, statuses?, scope?, limit?}`` -> ``{memories}``;
* ``codekeep/memory/promote`` ``{id, to}`` -> ``{id, action, reason?, redactions?}``: a
  project or user memory shared with the team (``to: "team"``; re-redacted on the way).
  ``scope: "team"`` in remember/list uses the team database (docs/team.md); with none
  configured, or one that cannot be reached, the request fails with the one-line reason;
  recall merges the team's results (each labelled ``scope`` and ``author``) and answers
  from the local scopes alone when the team database cannot;
* ``codekeep/memory/notes`` ``{uri?}`` -> ``{uri, created, invalid}``: the folder's
  ``.codekeep/MEMORY.md`` for the editor to open, written from the catalog's template
  when missing (never over an existing file) and synced; its unusable lines are in
  ``invalid`` and published as diagnostics, as after a save.

Hover on a definition adds the memories linked to it; its code lens gets
" · 2 memories". Everything here uses the folder's one :class:`MemoryService`
(``services.memory``, shared with the agent), which follows the code map's changes
(renames move links, vanished symbols become stale) and re-reads
``.codekeep/MEMORY.md`` whenever it changed. Saving MEMORY.md in the editor re-syncs it
at once (every memory request, list included, sees it) and publishes each line that
could not be used as a warning diagnostic on that line (none: the warnings clear).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from typing import Any

from lsprotocol import types

from codekeep.analysis.model import Symbol
from codekeep.common.uris import path_to_uri, uri_to_path
from codekeep.embeddings.embedders import Embedded, EmbeddingJob
from codekeep.hosting.workspaces import WorkspaceHandle
from codekeep.memory import KINDS, MemoryInputError, MemoryService
from codekeep.memory.model import (
    DEFAULT_IMPORTANCE,
    DEFAULT_KIND,
    DEFAULT_SCOPE,
    IMPORTANCE_MAX,
    IMPORTANCE_MIN,
    LIST_LIMIT,
    RECALL_LIMIT,
)
from codekeep.server import params as p
from codekeep.server.app import CodeKeepServer
from codekeep.server.extensions import CustomHandler, custom_request, target_folder
from codekeep.services import WorkspaceServices

logger = logging.getLogger(__name__)

HOVER_ITEMS = 3


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
        kind=p.optional_str(params, "kind") or DEFAULT_KIND,
        key=p.optional_str(params, "key"),
        importance=_default(p.optional_int(params, "importance", minimum=IMPORTANCE_MIN,
                                          maximum=IMPORTANCE_MAX), DEFAULT_IMPORTANCE),
        scope=p.optional_str(params, "scope") or DEFAULT_SCOPE,
        files=_paths(handle, p.optional_str_list(params, "files")),
        symbols=p.optional_str_list(params, "symbols"),
        evidence=evidence,
        source=p.optional_str(params, "source") or "user",
        ttl_days=p.optional_int(params, "ttlDays", minimum=1),
    )
    return result.to_json()


def _query(params: dict[str, Any]) -> str:
    query = params.get("query")
    if query is not None and not isinstance(query, str):
        raise p.InvalidParams("'query' must be a string")
    return query or ""


def _recall(
    memory: MemoryService,
    handle: WorkspaceHandle,
    params: dict[str, Any],
    embedded: Embedded | None,
) -> Any:
    uri = p.optional_str(params, "uri")
    # A file's URI prefers memories about it; the folder's own URI only routes (a file
    # match on "." would join the ranking and lower every score, unlike the CLI's).
    files = [path for path in _paths(handle, [uri]) if path != "."] if uri else []
    found = memory.recall(
        _query(params),
        limit=_default(p.optional_int(params, "limit", minimum=0, maximum=200), RECALL_LIMIT),
        kinds=_kinds(params),
        files=files,
        embedded=embedded or Embedded.unavailable("no embeddings endpoint"),
    )
    reply: dict[str, Any] = {
        "memories": [r.to_json() for r in found],
        "relevance": "lexical" if embedded is None or embedded.vector is None else "embeddings",
    }
    if embedded is not None and embedded.reason:
        reply["embeddingsUnavailable"] = embedded.reason
    return reply


def _list(memory: MemoryService, _handle: WorkspaceHandle, params: dict[str, Any]) -> Any:
    found = memory.list(
        kinds=_kinds(params),
        statuses=p.optional_str_list(params, "statuses") or None,
        scope=p.optional_str(params, "scope"),
        limit=p.optional_int(params, "limit", minimum=1, maximum=1000) or LIST_LIMIT,
    )
    return {"memories": [m.to_json() for m in found]}


def _promote(memory: MemoryService, _handle: WorkspaceHandle, params: dict[str, Any]) -> Any:
    result = memory.promote(p.required_str(params, "id"), p.optional_str(params, "to") or "team")
    return result.to_json()


def _forget(memory: MemoryService, _handle: WorkspaceHandle, params: dict[str, Any]) -> Any:
    return {"ok": memory.forget(p.required_str(params, "id"), p.optional_str(params, "reason"))}


def _confirm(memory: MemoryService, _handle: WorkspaceHandle, params: dict[str, Any]) -> Any:
    return {"ok": memory.confirm(p.required_str(params, "id"))}


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


def notes_diagnostics(invalid: Sequence[dict[str, Any]]) -> list[types.Diagnostic]:
    """One warning per unusable MEMORY.md line (the report's lines are 1-based)."""
    return [
        types.Diagnostic(
            range=types.Range(
                start=types.Position(line=int(item["line"]) - 1, character=0),
                end=types.Position(line=int(item["line"]), character=0),
            ),
            message=f"{item['reason']} (this line is not used)",
            severity=types.DiagnosticSeverity.Warning,
            source="codekeep",
        )
        for item in invalid
    ]


def publish_notes_problems(
    server: CodeKeepServer, uri: str, invalid: Sequence[dict[str, Any]]
) -> None:
    """Show MEMORY.md's unusable lines as diagnostics (none: clear them). Any thread."""
    params = types.PublishDiagnosticsParams(uri=uri, diagnostics=notes_diagnostics(invalid))
    server.call_on_loop(lambda: server.text_document_publish_diagnostics(params))


def notes_saved(server: CodeKeepServer, services: WorkspaceServices, path: str) -> None:
    """The ``saved`` hook: a saved MEMORY.md is synced now and its problems shown."""
    notes = services.memory.notes_path
    if (services.root / path).resolve() != notes.resolve():
        return
    report = services.memory.sync_notes()
    publish_notes_problems(server, path_to_uri(notes), report["invalid"])


def open_notes(memory: MemoryService) -> dict[str, Any]:
    """MEMORY.md ready to edit: created from the template when missing, then synced."""
    created = memory.create_notes()
    report = memory.sync_notes()
    uri = path_to_uri(memory.notes_path)
    return {"uri": uri, "created": created, "invalid": report["invalid"]}


Action = Callable[[MemoryService, WorkspaceHandle, dict[str, Any]], Any]


def on_folder_memory(action: Action) -> CustomHandler:
    """A request handler running ``action`` with the target folder's memory, on its worker."""

    async def handle(server: CodeKeepServer, params: dict[str, Any]) -> Any:
        folder = target_folder(server, params)
        return await folder.run(lambda services: _answer(action, services, folder, params))

    return handle


def _answer(
    action: Action, services: WorkspaceServices, folder: WorkspaceHandle, params: dict[str, Any]
) -> Any:
    try:
        return action(services.memory, folder, params)
    except MemoryInputError as error:
        raise p.InvalidParams(str(error)) from None


async def recall_request(server: CodeKeepServer, params: dict[str, Any]) -> Any:
    """Recall so the worker never waits for the network: on the worker, prepare the
    embeddings request and, when there is none to send (no endpoint), rank at once; else
    send it on another thread and rank with its outcome (a second turn on the worker)."""
    folder = target_folder(server, params)
    query = _query(params)

    def prepare(services: WorkspaceServices) -> tuple[EmbeddingJob | None, Any]:
        job = services.memory.recall_embedding(query)
        if job is not None:
            return job, None
        return None, _answer(
            lambda memory, handle, given: _recall(memory, handle, given, None),
            services, folder, params)

    job, reply = await folder.run(prepare)
    if job is None:
        return reply
    embedded = await job.run_off_thread()
    return await folder.run(lambda services: _answer(
        lambda memory, handle, given: _recall(memory, handle, given, embedded),
        services, folder, params))


async def notes_request(ls: CodeKeepServer, params: dict[str, Any]) -> dict[str, Any]:
    """MEMORY.md for the editor to open; its unusable lines shown as diagnostics."""
    folder = target_folder(ls, params)
    result = await folder.run(lambda services: open_notes(services.memory))
    publish_notes_problems(ls, result["uri"], result["invalid"])
    return result


REQUESTS: tuple[tuple[str, CustomHandler], ...] = (
    ("memory/remember", on_folder_memory(_remember)),
    ("memory/forget", on_folder_memory(_forget)),
    ("memory/notThis", on_folder_memory(_not_this)),
    ("memory/confirm", on_folder_memory(_confirm)),
    ("memory/list", on_folder_memory(_list)),
    ("memory/promote", on_folder_memory(_promote)),
    ("memory/recall", recall_request),
    ("memory/notes", notes_request),
)


def register(server: CodeKeepServer) -> None:
    server.contributions.hover.append(
        lambda services, symbol: hover_paragraph(services.memory, symbol)
    )
    server.contributions.symbol_lens.append(
        lambda services, symbols: lens_counts(services.memory, symbols)
    )
    server.contributions.saved.append(functools.partial(notes_saved, server))
    for name, handler in REQUESTS:
        custom_request(server, name)(handler)
