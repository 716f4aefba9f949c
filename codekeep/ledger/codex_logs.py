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

Cost per file, by the rule Claude Code's sessions and our own agent follow: Codex reads
files through its shell (``sed -n '1,200p' src/app.py``, ``cat``; see
:mod:`codekeep.ledger.shell_reads`), so a shell call's output (its
``function_call_output``) carries the text of the files its command reads, weighed by
the output's tokens; every later call's prompt carries it, until a compaction (a
``compacted`` line) empties the context.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from codekeep.common.tokens import count_tokens
from codekeep.ledger.importers import LogScan, log_time, token_count
from codekeep.ledger.ledger import ImportedCall
from codekeep.ledger.prices import Bill
from codekeep.ledger.shell_reads import files_read


def codex_sessions_dir() -> Path:
    home = os.environ.get("CODEX_HOME")
    return (Path(home) if home else Path.home() / ".codex") / "sessions"


# What the model asked for decides the call type, as for Claude Code's tool names.
_TOOL_CALL_TYPES = (
    ({"apply_patch"}, "generate_code"),
    ({"update_plan"}, "plan"),
)
_TOOL_ITEMS = {"function_call", "custom_tool_call", "local_shell_call"}
_OUTPUT_ITEMS = {"function_call_output", "custom_tool_call_output"}


def codex_log_files(base: Path) -> list[Path]:
    """Every rollout below ``base`` (the sessions directory, a day folder or one file)."""
    return [base] if base.is_file() else sorted(base.rglob("*.jsonl"))


class CodexRollout:
    """Reads one rollout's lines; ``state()`` is what a later fold resumes from (the
    session id, model and folder named earlier, the tools asked for since the last call,
    the running totals already seen, the files in context and the shell reads waiting
    for their output)."""

    def __init__(self, state: dict[str, Any] | None = None, *, name: str = "") -> None:
        state = state or {}
        self._id: str = str(state.get("id") or name)
        self._model: str | None = state.get("model")
        self._cwd: str = str(state.get("cwd") or "")
        self._tools: set[str] = set(state.get("tools", []))
        self._seen: set[int] = set(state.get("seen", []))
        self._line = int(state.get("line", 0))
        self._carried: dict[str, int] = dict(state.get("carried", {}))  # path -> tokens
        self._fresh: list[str] = list(state.get("fresh", []))
        self._reads: dict[str, list[str]] = dict(state.get("reads", {}))  # call id -> paths
        self.scan = LogScan()

    def state(self) -> dict[str, Any]:
        return {"id": self._id, "model": self._model, "cwd": self._cwd,
                "tools": sorted(self._tools), "seen": sorted(self._seen), "line": self._line,
                "carried": self._carried, "fresh": self._fresh, "reads": self._reads}

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
        if kind in ("session_meta", "turn_context") and isinstance(payload.get("cwd"), str):
            self._cwd = payload["cwd"]
        if kind == "session_meta" and payload.get("id"):
            self._id = str(payload["id"])
        elif kind == "turn_context" and payload.get("model"):
            self._model = str(payload["model"])
        elif kind == "response_item" and payload.get("type") in _TOOL_ITEMS:
            self._tools.add(str(payload.get("name") or payload.get("type")))
            self._shell_read(payload)
        elif kind == "response_item" and payload.get("type") in _OUTPUT_ITEMS:
            self._tool_output(payload)
        elif kind == "compacted":
            self._carried, self._fresh = {}, []
        elif kind == "event_msg" and payload.get("type") == "token_count":
            self._token_count(entry, payload)

    def _shell_read(self, payload: dict[str, Any]) -> None:
        """Note the files a shell call's command reads, to weigh its output by."""
        call_id = payload.get("call_id")
        command, folder = _shell_command(payload)
        if not call_id or command is None:
            return
        base = Path(folder or self._cwd or ".")
        paths = [str(base / path) for path in files_read(command)]
        if paths:
            self._reads[str(call_id)] = paths

    def _tool_output(self, payload: dict[str, Any]) -> None:
        paths = self._reads.pop(str(payload.get("call_id")), None)
        if not paths:
            return
        tokens = count_tokens(_output_text(payload.get("output"))).tokens
        share, extra = divmod(tokens, len(paths))  # ``cat a b``: each file its half
        for index, path in enumerate(paths):
            weight = share + (1 if index < extra else 0)
            if weight:
                self._carried[path] = self._carried.get(path, 0) + weight
                self._fresh.append(path)

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
                files=dict(self._carried), fresh=frozenset(self._fresh),
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
        self._fresh = []  # this call's prompt carried them first
        if call.input_tokens + call.output_tokens:
            self.scan.calls.append(call)


def _call_type(tools: set[str]) -> str:
    for names, call_type in _TOOL_CALL_TYPES:
        if tools & names:
            return call_type
    return "tool" if tools else "other"


def _shell_command(payload: dict[str, Any]) -> tuple[str | list[str] | None, str | None]:
    """A shell call's command and folder, as each Codex version writes them: ``shell``
    (``arguments`` JSON with an argv ``command`` and ``workdir``), ``shell_command`` /
    ``exec_command`` (a string ``command`` or ``cmd``), ``local_shell_call`` (``action``)."""
    if payload.get("type") == "local_shell_call":
        action = payload.get("action")
        arguments: Any = action if isinstance(action, dict) else {}
        folder = arguments.get("working_directory")
    else:
        try:
            arguments = json.loads(str(payload.get("arguments") or "{}"))
        except json.JSONDecodeError:
            return None, None
        if not isinstance(arguments, dict):
            return None, None
        folder = arguments.get("workdir")
    command = arguments.get("command", arguments.get("cmd"))
    if isinstance(command, list) and all(isinstance(word, str) for word in command):
        return command, folder if isinstance(folder, str) else None
    if isinstance(command, str):
        return command, folder if isinstance(folder, str) else None
    return None, None


def _output_text(output: Any) -> str:
    """A tool output's text: Codex writes a string (older shells: JSON whose ``output``
    is the text), or a list of content items."""
    if isinstance(output, str):
        if output.startswith("{"):
            try:
                parsed = json.loads(output)
            except json.JSONDecodeError:
                return output
            if isinstance(parsed, dict) and isinstance(parsed.get("output"), str):
                return str(parsed["output"])
        return output
    if isinstance(output, dict):
        return _output_text(output.get("content") or output.get("output") or "")
    if isinstance(output, list):
        return "\n".join(str(item.get("text", "")) for item in output if isinstance(item, dict))
    return ""
