"""Reading Codex CLI session logs (``$CODEX_HOME/sessions``, default ``~/.codex/sessions``).

Codex writes one rollout file per session, ``sessions/YYYY/MM/DD/rollout-*.jsonl``: a
``session_meta`` line (its id), ``turn_context`` lines (the model in use), ``response_item``
lines (what the model asked for) and, after each model call, an ``event_msg`` of type
``token_count`` whose ``info.last_token_usage`` is that call's usage
(``input_tokens`` with ``cached_input_tokens`` inside it, ``output_tokens``) and whose
``info.total_token_usage`` is the running total. Codex repeats a ``token_count`` event
when nothing new happened, so the running total identifies a call (importing a log twice,
or a repeated event, adds nothing). OpenAI bills no cache writes: those stay 0.
Each session becomes task ``codex:<session id>``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codekeep.ledger.importers import LogScan, log_time, token_count
from codekeep.ledger.ledger import ImportedCall


def codex_sessions_dir() -> Path:
    home = os.environ.get("CODEX_HOME")
    return (Path(home) if home else Path.home() / ".codex") / "sessions"


# What the model asked for decides the call type, as for Claude Code's tool names.
_TOOL_CALL_TYPES = (
    ({"apply_patch"}, "generate_code"),
    ({"update_plan"}, "plan"),
)
_TOOL_ITEMS = {"function_call", "custom_tool_call", "local_shell_call"}


def codex_log_files(base: Path) -> list[Path]:
    """Every rollout below ``base`` (the sessions directory, a day folder or one file)."""
    return [base] if base.is_file() else sorted(base.rglob("*.jsonl"))


@dataclass(slots=True)
class _Session:
    """What one rollout file has said so far."""

    id: str
    model: str | None = None
    tools: set[str] = field(default_factory=set)
    seen_totals: set[int] = field(default_factory=set)


def read_codex_logs(paths: Iterable[Path]) -> LogScan:
    scan = LogScan()
    for path in paths:
        scan.files += 1
        session = _Session(id=path.stem)
        with path.open(encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    _read_line(line, number, session, scan)
    return scan


def _read_line(line: str, number: int, session: _Session, scan: LogScan) -> None:
    try:
        entry = json.loads(line)
    except json.JSONDecodeError:
        scan.skip("not JSON")
        return
    payload = entry.get("payload") if isinstance(entry, dict) else None
    if not isinstance(payload, dict):
        return
    kind = entry.get("type")
    if kind == "session_meta" and payload.get("id"):
        session.id = str(payload["id"])
    elif kind == "turn_context" and payload.get("model"):
        session.model = str(payload["model"])
    elif kind == "response_item" and payload.get("type") in _TOOL_ITEMS:
        session.tools.add(str(payload.get("name") or payload.get("type")))
    elif kind == "event_msg" and payload.get("type") == "token_count":
        _token_count(entry, payload, number, session, scan)


def _token_count(
    entry: dict[str, Any], payload: dict[str, Any], number: int, session: _Session, scan: LogScan
) -> None:
    info = payload.get("info")
    if not isinstance(info, dict):
        return  # a rate-limit update, no call
    usage, total = info.get("last_token_usage"), info.get("total_token_usage")
    if not isinstance(usage, dict):
        scan.skip("token count without last_token_usage")
        return
    if session.model is None:
        scan.skip("token count before any turn_context (no model)")
        return
    try:
        running = token_count(total, "total_tokens") if isinstance(total, dict) else None
        if running is not None and running in session.seen_totals:
            return  # the same event again
        call = ImportedCall(
            source_id=f"codex:{session.id}:{running if running is not None else f'line{number}'}",
            ts=log_time(entry["timestamp"]).timestamp(),
            task_id=f"codex:{session.id}", session_id=session.id, model=session.model,
            input_tokens=token_count(usage, "input_tokens"),
            output_tokens=token_count(usage, "output_tokens"),
            cached_tokens=token_count(usage, "cached_input_tokens"),
            call_type=_call_type(session.tools),
        )  # fmt: skip
    except (KeyError, TypeError, ValueError):
        scan.skip("unreadable usage or timestamp")
        return
    if call.cached_tokens > call.input_tokens:
        scan.skip("cached tokens exceed input tokens")
        return
    if running is not None:
        session.seen_totals.add(running)
    session.tools.clear()
    if call.input_tokens + call.output_tokens:
        scan.calls.append(call)


def _call_type(tools: set[str]) -> str:
    for names, call_type in _TOOL_CALL_TYPES:
        if tools & names:
            return call_type
    return "tool" if tools else "other"
