"""The token ledger over LSP.

Requests (each also the command ``codekeep.ledger.<name>`` taking the same object):

* ``codekeep/ledger/report`` ``{taskId?, since?, groupBy?, top?, uri?}`` ->
  ``{rows, byFile, total, budget, text}`` (``since``: ``YYYY-MM-DD``, ISO time, ``7d``).
* ``codekeep/ledger/record`` ``{callType, model, taskId?, inputTokens?, outputTokens?,
  cachedTokens?, reasoningTokens?, promptText?, completionText?, files?: {path|uri: chars},
  latencyMs?, retry?, stream?, uri?}`` -> the stored call; a hard-stop budget adds
  ``budgetExceeded`` (the call is stored all the same).
* ``codekeep/ledger/budget`` ``{taskId?, limit?, daily?, hardStop?}`` -> ``{task, daily}``.

A call that crosses 75 % / 100 % of a budget sends ``codekeep/budget {taskId, used,
limit, ratio, threshold, scope}`` and a ``window/showMessage`` warning. Each file gets a
code lens on its first line: "≈ 12.4k tokens this week" (input tokens attributed to it).

Each folder's :class:`Ledger` is opened here, on the folder's worker thread, with the
``ledger`` settings object as it is at that first use. Other components of this
process (the agent) may hold their own instance on the same database: a threshold is
announced exactly once, by the instance whose call crossed it (the database arbitrates).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from lsprotocol import types

from codekeep.common.uris import uri_to_path
from codekeep.ledger import CALL_TYPE_INPUTS, BudgetEvent, BudgetExceeded, Ledger
from codekeep.ledger.ledger import GROUPS
from codekeep.ledger.reports import render_text
from codekeep.ledger.settings import settings_from_json
from codekeep.ledger.window import parse_since
from codekeep.server import params as p
from codekeep.server.app import CodeKeepServer
from codekeep.server.extensions import LensLine, custom_request
from codekeep.server.workspaces import WorkspaceHandle
from codekeep.services import WorkspaceServices

logger = logging.getLogger(__name__)

BUDGET_NOTIFICATION = "codekeep/budget"
LENS_WINDOW = timedelta(days=7)
REPORT_COMMAND = "codekeep.ledger.report"


class LedgerRegistry:
    """One open ledger per workspace folder; budget events go to the editor."""

    def __init__(self, server: CodeKeepServer) -> None:
        self._server = server
        self._ledgers: dict[Path, Ledger] = {}
        self._lock = threading.Lock()
        self.loop: asyncio.AbstractEventLoop | None = None

    def ledger_for(self, root: Path) -> Ledger:
        """The folder's ledger, opened on first use (call on the folder's worker)."""
        with self._lock:
            ledger = self._ledgers.get(root)
            if ledger is None:
                settings = settings_from_json(self._server.settings.extra.get("ledger"))
                ledger = self._ledgers[root] = Ledger.open(root, settings)
                ledger.subscribe(self._on_budget)
            return ledger

    def close(self) -> None:
        with self._lock:
            for ledger in self._ledgers.values():
                ledger.close()
            self._ledgers.clear()

    def _on_budget(self, event: BudgetEvent) -> None:
        """May run on any thread: hop to the event loop to talk to the client."""
        loop = self.loop
        if loop is None or loop.is_closed():
            logger.info("%s", event.message())
            return
        loop.call_soon_threadsafe(self._notify, event)

    def _notify(self, event: BudgetEvent) -> None:
        if self._server.protocol.writer is None:
            return
        self._server.protocol.notify(BUDGET_NOTIFICATION, event.to_json())
        self._server.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"CodeKeep: {event.message()}"
            )
        )


def format_tokens(tokens: int) -> str:
    """12400 -> "12.4k", 1_250_000 -> "1.25M": short enough for a code lens."""
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.3g}M"
    if tokens >= 1_000:
        return f"{tokens / 1_000:.3g}k"
    return str(tokens)


def file_lens(registry: LedgerRegistry) -> Callable[[WorkspaceServices, str], LensLine | None]:
    def contribute(services: WorkspaceServices, path: str) -> LensLine | None:
        since = datetime.now(UTC) - LENS_WINDOW
        tokens = registry.ledger_for(services.root).tokens_for_file(path, since=since)
        if tokens == 0:
            return None  # no clutter on files no model call has read
        return LensLine(
            f"≈ {format_tokens(tokens)} tokens this week",
            REPORT_COMMAND,
            [{"groupBy": "file", "since": "7d"}],
        )

    return contribute


def _folder(server: CodeKeepServer, params: dict[str, Any]) -> WorkspaceHandle:
    uri = p.optional_str(params, "uri")
    if uri is not None:
        located = server.locate(uri)
        if located is None:
            raise p.InvalidParams(f"{uri} is not inside any workspace folder")
        return located[0]
    for handle in server.workspaces:
        return handle
    raise p.InvalidParams("no workspace folder is open")


def _since(params: dict[str, Any]) -> datetime | None:
    text = p.optional_str(params, "since")
    if text is None:
        return None
    try:
        return parse_since(text, time.time())
    except ValueError as error:
        raise p.InvalidParams(str(error)) from None


def _files(params: dict[str, Any]) -> dict[str, int] | None:
    files = params.get("files")
    if files is None:
        return None
    if not isinstance(files, dict) or not all(
        isinstance(chars, int) and not isinstance(chars, bool) and chars >= 0
        for chars in files.values()
    ):
        raise p.InvalidParams("'files' must be an object {path or uri: characters read}")
    return {
        (str(uri_to_path(key)) if key.startswith("file:") else key): chars
        for key, chars in files.items()
    }


def _record_call(ledger: Ledger, params: dict[str, Any]) -> dict[str, Any]:
    call_type = p.required_str(params, "callType")
    if call_type not in CALL_TYPE_INPUTS:
        raise p.InvalidParams(f"'callType' must be one of {', '.join(CALL_TYPE_INPUTS)}")
    try:
        record = ledger.record(
            task_id=p.optional_str(params, "taskId"),
            call_type=call_type,
            model=p.required_str(params, "model"),
            input_tokens=p.optional_int(params, "inputTokens"),
            output_tokens=p.optional_int(params, "outputTokens"),
            cached_tokens=p.optional_int(params, "cachedTokens") or 0,
            reasoning_tokens=p.optional_int(params, "reasoningTokens") or 0,
            prompt_text=p.optional_str(params, "promptText"),
            completion_text=p.optional_str(params, "completionText"),
            files=_files(params),
            latency_ms=float(p.optional_int(params, "latencyMs") or 0),
            retry=p.optional_int(params, "retry") or 0,
            stream=params.get("stream") is True,
        )
    except BudgetExceeded as stop:
        return {
            **stop.record.to_json(),
            "budgetExceeded": {
                "used": stop.used,
                "limit": stop.limit,
                "scope": stop.scope,
                "message": str(stop),
            },
        }
    except ValueError as error:
        raise p.InvalidParams(str(error)) from None
    return record.to_json()


def _budget(ledger: Ledger, params: dict[str, Any]) -> dict[str, Any]:
    task_id = p.optional_str(params, "taskId")
    limit = p.optional_int(params, "limit")
    daily = p.optional_int(params, "daily")
    if limit is not None or daily is not None:
        try:
            ledger.set_budget(
                task_id, limit=limit, daily=daily, hard_stop=params.get("hardStop") is True
            )
        except ValueError as error:
            raise p.InvalidParams(str(error)) from None
    return ledger.budget_state(task_id)


def register(server: CodeKeepServer) -> None:
    registry = LedgerRegistry(server)
    server.on_close.append(registry.close)
    server.contributions.file_lens.append(file_lens(registry))
    if BUDGET_NOTIFICATION not in server.client_notifications:  # the agent sends it too
        server.client_notifications.append(BUDGET_NOTIFICATION)

    async def on_ledger(params: dict[str, Any], action: Callable[[Ledger], Any]) -> Any:
        registry.loop = asyncio.get_running_loop()
        handle = _folder(server, params)
        return await handle.run(lambda services: action(registry.ledger_for(services.root)))

    async def report(params: dict[str, Any]) -> dict[str, Any]:
        group_by = p.optional_str(params, "groupBy") or "type"
        if group_by not in GROUPS:
            raise p.InvalidParams(f"'groupBy' must be one of {', '.join(GROUPS)}")
        since = _since(params)
        task_id = p.optional_str(params, "taskId")
        top = p.optional_int(params, "top", minimum=1) or 10

        def build(ledger: Ledger) -> dict[str, Any]:
            result = ledger.report(task_id=task_id, since=since, group_by=group_by, top_files=top)
            return {**result, "text": render_text(result)}

        return await on_ledger(params, build)

    async def record(params: dict[str, Any]) -> dict[str, Any]:
        return await on_ledger(params, lambda ledger: _record_call(ledger, params))

    async def budget(params: dict[str, Any]) -> dict[str, Any]:
        return await on_ledger(params, lambda ledger: _budget(ledger, params))

    for name, handler in (("report", report), ("record", record), ("budget", budget)):
        _expose(server, name, handler)


def _expose(
    server: CodeKeepServer,
    name: str,
    handler: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]],
) -> None:
    """``codekeep/ledger/<name>`` plus the command ``codekeep.ledger.<name>`` (DESIGN.md
    names commands with dots all the way; ``custom_request`` alone would give
    ``codekeep.ledger/<name>``)."""

    @custom_request(server, f"ledger/{name}")
    async def request(ls: CodeKeepServer, params: dict[str, Any]) -> dict[str, Any]:
        return await handler(params)

    # ``ls`` stays unannotated: pygls recognises it by name and converts annotated args.
    @server.command(f"codekeep.ledger.{name}")
    async def command(ls, *arguments: Any) -> Any:
        return await handler(p.command_object(arguments))
