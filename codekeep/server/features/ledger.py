"""The token ledger over LSP.

Requests (each also the command ``codekeep.ledger.<name>`` taking the same object):

* ``codekeep/ledger/report`` ``{taskId?, since?, groupBy?, top?, host?, uri?}`` ->
  ``{rows, byFile, total, budget, errors, unpriced, hosts, text}`` (``since``:
  ``YYYY-MM-DD``, ISO time, ``7d``; ``host``: ``claude-code``, ``codex`` or ``codekeep``
  keeps the report to that host's calls; ``hosts`` sums every host's).
* ``codekeep/ledger/record`` ``{callType, model, taskId?, inputTokens?, outputTokens?,
  cachedTokens?, reasoningTokens?, promptText?, completionText?, files?: {path|uri: chars},
  latencyMs?, retry?, stream?, uri?}`` -> the stored call; a hard-stop budget adds
  ``budgetExceeded`` (the call is stored all the same).
* ``codekeep/ledger/budget`` ``{taskId?, limit?, daily?, hardStop?}`` -> ``{task, daily}``.
* ``codekeep/ledger/task`` ``{taskId?}`` -> ``{taskId, name, budget}``: adopts ``taskId``
  (its open incarnation, else a new continuation ``taskId#2`` …) as the task calls
  recorded without a task id land on, also after it closes (an agent run's end, five
  idle minutes: it continues as the next ``#n``); without ``taskId``, the current task
  (a new one when none is open). ``name`` is what budgets and reports of every
  incarnation go by. An editor keeps its task this way (Neovim's ``task_id()``).

When another process writes to a folder's ledger (a Claude Code hook folding its
session, ``codekeep ledger import``), the server sends ``codekeep/ledgerChanged {uri}``
within ``LEDGER_POLL_S``: editors ask for the report again, so external sessions show
live. Codex has no hooks: the server folds the folder's Codex sessions
(``$CODEX_HOME/sessions``, those whose cwd is inside the folder) every
``CODEX_EVERY_TICKS`` polls, and says so the same way; the same poll goes on with any
log a hook's fold budget left unfinished (a long Claude Code session's last hook).

A call that crosses 75 % / 100 % of a budget sends ``codekeep/budget {taskId, used,
limit, ratio, threshold, scope}`` and a ``window/showMessage`` warning. Each file gets a
code lens on its first line: "≈ 12.4k tokens this week" (input tokens attributed to it).

Everything here uses the folder's one :class:`Ledger` (``services.ledger``, opened with
the ``ledger`` settings object and shared with the agent). The budget announcer is
subscribed once per folder when its services open, so each threshold crossing sends
exactly one notification and one message, whoever recorded the call (a
``ledger/record`` request or the agent loop).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types

from codekeep.common.uris import path_to_uri, uri_to_path
from codekeep.ledger import CALL_TYPE_INPUTS, BudgetEvent, BudgetExceeded, Ledger
from codekeep.ledger.codex_logs import codex_sessions_dir
from codekeep.ledger.days import parse_since
from codekeep.ledger.fold import POLL_BUDGET, fold_codex_sessions, fold_unfinished
from codekeep.ledger.ledger import GROUPS
from codekeep.ledger.reports import render_text
from codekeep.ledger.store import HOSTS
from codekeep.server import params as p
from codekeep.server.app import CodeKeepServer
from codekeep.server.extensions import CustomHandler, LensLine, custom_request, target_folder
from codekeep.services import WorkspaceServices

logger = logging.getLogger(__name__)
T = TypeVar("T")

BUDGET_NOTIFICATION = "codekeep/budget"
CHANGED_NOTIFICATION = "codekeep/ledgerChanged"
LEDGER_POLL_S = 1.0
CODEX_EVERY_TICKS = 5  # Codex rollouts (no hooks) and unfinished folds: every fifth poll
LENS_WINDOW = timedelta(days=7)
REPORT_COMMAND = "codekeep.ledger.report"


def budget_announcer(server: CodeKeepServer) -> Callable[[BudgetEvent], None]:
    """Tell the editor about a budget crossing: ``codekeep/budget`` plus a warning.

    Runs on whichever thread recorded the call (the agent records on the event loop,
    ledger requests on the folder's worker) or on the ledger's flush thread.
    """

    def notify(event: BudgetEvent) -> None:
        if server.protocol.writer is None:
            return
        server.protocol.notify(BUDGET_NOTIFICATION, event.to_json())
        server.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"CodeKeep: {event.message()}"
            )
        )

    def announce(event: BudgetEvent) -> None:
        logger.info("%s", event.message())
        server.call_on_loop(lambda: notify(event))

    return announce


def watch_other_writers(server: CodeKeepServer, services: WorkspaceServices) -> None:
    """Tell the editor when another process wrote to this folder's ledger.

    A daemon thread asks SQLite every ``LEDGER_POLL_S`` whether another connection
    committed (``PRAGMA data_version``: one cheap query, no file watching); it follows a
    ledger reopened by a settings change and ends with the folder's services.

    The first reading is taken here, on the folder's worker while its services open, not
    in the thread: ``data_version`` only says "changed since my last reading", so a write
    that landed before a late first reading would never be announced. Every request the
    editor sends is queued behind this opening, so what it asks sees any write before the
    baseline, and the poll announces every write after it.
    """
    uri = path_to_uri(services.root)

    def notify() -> None:
        if server.protocol.writer is not None:
            server.protocol.notify(CHANGED_NOTIFICATION, {"uri": uri})

    first = services.ledger
    baseline = (id(first), first.changed_elsewhere())

    def poll() -> None:
        seen = baseline
        ticks = 0
        while not services.closed:
            ledger = services.ledger
            try:
                if ticks % CODEX_EVERY_TICKS == 0 and _fold_logs(ledger, services.root):
                    server.call_on_loop(notify)  # our own write: data_version stays put
                ticks += 1
                version = (id(ledger), ledger.changed_elsewhere())
            except Exception:  # reopened by a settings change, closing, or one bad reading
                if services.ledger is not ledger:
                    continue
                # a failed reading (a Codex log half-written, a busy moment) must not end
                # the watch for the rest of the session: try again on the next tick
                logger.debug("ledger change watch of %s: reading failed", services.root,
                             exc_info=True)
                time.sleep(LEDGER_POLL_S)  # not wait_closed: a closed ledger returns at once
                continue
            if version != seen:
                server.call_on_loop(notify)
            seen = version
            ledger.wait_closed(LEDGER_POLL_S)

    threading.Thread(target=poll, name="ledger-watch", daemon=True).start()


def _fold_logs(ledger: Ledger, root: Path) -> int:
    """Fold this folder's Codex sessions that grew, and go on with the logs a hook's
    budget left unfinished; how many calls were new."""
    result = fold_unfinished(ledger)
    sessions = codex_sessions_dir()
    if sessions.is_dir():
        result.add(fold_codex_sessions(ledger, sessions, root, budget=POLL_BUDGET))
    return result.calls + result.grown + result.errors


def format_tokens(tokens: int) -> str:
    """12400 -> "12.4k", 1_250_000 -> "1.25M": short enough for a code lens."""
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.3g}M"
    if tokens >= 1_000:
        return f"{tokens / 1_000:.3g}k"
    return str(tokens)


def file_lens(services: WorkspaceServices, path: str) -> LensLine | None:
    since = datetime.now(UTC) - LENS_WINDOW
    tokens = services.ledger.tokens_for_file(path, since=since)
    if tokens == 0:
        return None  # no clutter on files no model call has read
    return LensLine(
        f"≈ {format_tokens(tokens)} tokens this week",
        REPORT_COMMAND,
        [{"groupBy": "file", "since": "7d"}],
    )


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


def _current_task(ledger: Ledger, params: dict[str, Any]) -> dict[str, Any]:
    try:
        task_id = ledger.adopt_task(p.optional_str(params, "taskId"))
    except ValueError as error:
        raise p.InvalidParams(str(error)) from None
    return {
        "taskId": task_id,
        "name": ledger.task_name(task_id),
        "budget": ledger.budget_state(task_id),
    }


async def report(ls: CodeKeepServer, params: dict[str, Any]) -> dict[str, Any]:
    group_by = p.optional_str(params, "groupBy") or "type"
    if group_by not in GROUPS:
        raise p.InvalidParams(f"'groupBy' must be one of {', '.join(GROUPS)}")
    since = _since(params)
    task_id = p.optional_str(params, "taskId")
    top = p.optional_int(params, "top", minimum=1) or 10
    host = p.optional_str(params, "host")
    if host is not None and host not in HOSTS:
        raise p.InvalidParams(f"'host' must be one of {', '.join(HOSTS)}")

    def build(services: WorkspaceServices) -> dict[str, Any]:
        result = services.ledger_report(task_id=task_id, since=since, group_by=group_by,
                                        top_files=top, host=host)
        return {**result, "text": render_text(result)}

    return await target_folder(ls, params).run(build)


async def on_folder_ledger(
    server: CodeKeepServer, params: dict[str, Any],
    action: Callable[[Ledger, dict[str, Any]], T],
) -> T:
    """``action`` with the target folder's ledger and the params, on its worker."""
    handle = target_folder(server, params)
    return await handle.run(lambda services: action(services.ledger, params))


async def record(ls: CodeKeepServer, params: dict[str, Any]) -> dict[str, Any]:
    return await on_folder_ledger(ls, params, _record_call)


async def budget(ls: CodeKeepServer, params: dict[str, Any]) -> dict[str, Any]:
    return await on_folder_ledger(ls, params, _budget)


async def task(ls: CodeKeepServer, params: dict[str, Any]) -> dict[str, Any]:
    return await on_folder_ledger(ls, params, _current_task)


REQUESTS: tuple[tuple[str, CustomHandler], ...] = (
    ("ledger/report", report),
    ("ledger/record", record),
    ("ledger/budget", budget),
    ("ledger/task", task),
)


def register(server: CodeKeepServer) -> None:
    announce = budget_announcer(server)
    server.contributions.opened.append(lambda services: services.subscribe_budget(announce))
    server.contributions.opened.append(lambda services: watch_other_writers(server, services))
    server.contributions.file_lens.append(file_lens)
    server.client_notifications.append(BUDGET_NOTIFICATION)
    server.client_notifications.append(CHANGED_NOTIFICATION)
    for name, handler in REQUESTS:
        custom_request(server, name)(handler)
