"""Reading Codex CLI session logs (``$CODEX_HOME/sessions``, default ``~/.codex/sessions``).

Codex writes one rollout file per session, ``sessions/YYYY/MM/DD/rollout-*.jsonl``: a
``session_meta`` line (its id), ``turn_context`` lines (the model in use), ``response_item``
lines (what the model asked for) and, after each model call, an ``event_msg`` of type
``token_count`` whose ``info.last_token_usage`` is that call's usage
(``input_tokens`` with ``cached_input_tokens`` inside it, ``output_tokens`` with
``reasoning_output_tokens`` inside it) and whose
``info.total_token_usage`` is the running total. Codex repeats a ``token_count`` event
when nothing new happened, so the running total identifies a call (importing a log twice,
or a repeated event, adds nothing). OpenAI bills no cache writes: those stay 0.
Each session becomes task ``codex:<session id>``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from codekeep.ledger.importers import LogScan, log_time, token_count
from codekeep.ledger.ledger import ImportedCall
from codekeep.ledger.prices import Bill


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


class CodexRollout:
    """Reads one rollout's lines; ``state()`` is what a later fold resumes from (the
    session id and model named earlier, the tools asked for since the last call, the
    running totals already seen)."""

    def __init__(self, state: dict[str, Any] | None = None, *, name: str = "") -> None:
        state = state or {}
        self._id: str = str(state.get("id") or name)
        self._model: str | None = state.get("model")
        self._tools: set[str] = set(state.get("tools", []))
        self._seen: set[int] = set(state.get("seen", []))
        self._line = int(state.get("line", 0))
        self.scan = LogScan()

    def state(self) -> dict[str, Any]:
        return {"id": self._id, "model": self._model, "tools": sorted(self._tools),
                "seen": sorted(self._seen), "line": self._line}

    def finish(self) -> LogScan:
        return self.scan

    def feed(self, line: str) -> None:
        self._line += 1
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            self.scan.skip("not JSON")
            return
        payload = entry.get("payload") if isinstance(entry, dict) else None
        if not isinstance(payload, dict):
            return
        kind = entry.get("type")
        if kind == "session_meta" and payload.get("id"):
            self._id = str(payload["id"])
        elif kind == "turn_context" and payload.get("model"):
            self._model = str(payload["model"])
        elif kind == "response_item" and payload.get("type") in _TOOL_ITEMS:
            self._tools.add(str(payload.get("name") or payload.get("type")))
        elif kind == "event_msg" and payload.get("type") == "token_count":
            self._token_count(entry, payload)

    def _token_count(self, entry: dict[str, Any], payload: dict[str, Any]) -> None:
        info = payload.get("info")
        if not isinstance(info, dict):
            return  # a rate-limit update, no call
        usage, total = info.get("last_token_usage"), info.get("total_token_usage")
        if not isinstance(usage, dict):
            self.scan.skip("token count without last_token_usage")
            return
        if self._model is None:
            self.scan.skip("token count before any turn_context (no model)")
            return
        try:
            running = token_count(total, "total_tokens") if isinstance(total, dict) else None
            if running is not None and running in self._seen:
                return  # the same event again
            key = running if running is not None else f"line{self._line}"
            input_tokens = token_count(usage, "input_tokens")
            cached = token_count(usage, "cached_input_tokens")
            call = ImportedCall(
                source_id=f"codex:{self._id}:{key}",
                ts=log_time(entry["timestamp"]).timestamp(),
                task_id=f"codex:{self._id}", session_id=self._id, model=self._model,
                bill=Bill(input_tokens, token_count(usage, "output_tokens"), cached),
                reasoning_tokens=token_count(usage, "reasoning_output_tokens"),
                call_type=_call_type(self._tools),
            )
        except (KeyError, TypeError, ValueError):
            self.scan.skip("unreadable usage or timestamp")
            return
        if cached > input_tokens:
            self.scan.skip("cached tokens exceed input tokens")
            return
        if running is not None:
            self._seen.add(running)
        self._tools.clear()
        if call.input_tokens + call.output_tokens:
            self.scan.calls.append(call)


def _call_type(tools: set[str]) -> str:
    for names, call_type in _TOOL_CALL_TYPES:
        if tools & names:
            return call_type
    return "tool" if tools else "other"
