"""Reading other agents' usage logs into the ledger.

Claude Code writes one JSON object per line to ``~/.claude/projects/<project>/<session>.jsonl``
(sub-agents under ``<session>/subagents/*.jsonl``); assistant entries carry
``message.usage`` with ``input_tokens``, ``output_tokens``,
``cache_creation_input_tokens`` and ``cache_read_input_tokens``. A streamed answer may be
written several times with the same ``message.id`` and ``requestId``, so that pair is the
import key (as ccusage does). Each Claude Code session becomes task ``claude-code:<sessionId>``.

The call type is read from the tools the answer asked for (``message.content`` tool_use
blocks): an edit is ``generate_code``, a Read is ``read_code`` (per distinct file), a
Grep/Glob/LS ``read_code.directory``, a todo list or plan ``plan``, any other tool
``tool``, a plain answer ``other``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from codekeep.ledger.ledger import ImportedCall

CLAUDE_PROJECTS = Path.home() / ".claude" / "projects"

# First matching group wins: writing code outranks reading it, reading outranks planning.
_TOOL_CALL_TYPES = (
    ({"Edit", "MultiEdit", "Write", "NotebookEdit"}, "generate_code"),
    ({"Read", "NotebookRead"}, "read_code"),
    ({"Grep", "Glob", "LS"}, "read_code.directory"),
    ({"TodoWrite", "ExitPlanMode"}, "plan"),
)


@dataclass(slots=True)
class LogScan:
    """What a scan found: the calls, plus how many lines had to be skipped and why."""

    calls: list[ImportedCall] = field(default_factory=list)
    files: int = 0
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def claude_code_log_files(base: Path = CLAUDE_PROJECTS) -> list[Path]:
    """Every session and sub-agent transcript below ``base`` (a projects dir or one file)."""
    if base.is_file():
        return [base]
    return sorted({*base.glob("*/*.jsonl"), *base.glob("*/*/subagents/*.jsonl"),
                   *base.glob("*.jsonl")})


def read_claude_code_logs(paths: Iterable[Path]) -> LogScan:
    scan = LogScan()
    for path in paths:
        scan.files += 1
        with path.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.strip():
                    _read_line(line, path, scan)
    return scan


def _read_line(line: str, path: Path, scan: LogScan) -> None:
    try:
        entry = json.loads(line)
    except json.JSONDecodeError:
        scan.skip("not JSON")
        return
    if not isinstance(entry, dict) or entry.get("type") != "assistant":
        return  # user turns, summaries, tool results: no model call
    message = entry.get("message")
    usage = message.get("usage") if isinstance(message, dict) else None
    if not isinstance(message, dict) or not isinstance(usage, dict):
        scan.skip("assistant entry without usage")
        return
    model = message.get("model")
    if not model or model == "<synthetic>":
        return  # Claude Code's own placeholder messages cost nothing
    try:
        call = _call(entry, message, usage, str(model), path)
    except (TypeError, ValueError):
        scan.skip("unreadable usage or timestamp")
        return
    if call.input_tokens + call.output_tokens:
        scan.calls.append(call)


def _call(entry: dict[str, Any], message: dict[str, Any], usage: dict[str, Any], model: str,
          path: Path) -> ImportedCall:
    fresh, written, read, output = (
        token_count(usage, name) for name in ("input_tokens", "cache_creation_input_tokens",
                                              "cache_read_input_tokens", "output_tokens")
    )
    timestamp = log_time(entry["timestamp"])
    session = str(entry.get("sessionId") or path.stem)
    message_id = message.get("id") or entry.get("uuid")
    if not message_id:
        raise ValueError("entry has no id")
    return ImportedCall(
        source_id=f"claude-code:{message_id}:{entry.get('requestId', '')}",
        ts=timestamp.timestamp(), task_id=f"claude-code:{session}", session_id=session,
        model=model, input_tokens=fresh + written + read, output_tokens=output,
        cached_tokens=read, cache_write_tokens=written,
        call_type=_call_type(message.get("content")),
    )


def _call_type(content: Any) -> str:
    """The call type implied by the tool calls in an assistant message."""
    uses = [block for block in content if isinstance(block, dict)
            and block.get("type") == "tool_use"] if isinstance(content, list) else []
    names = {str(block.get("name")) for block in uses}
    for tools, call_type in _TOOL_CALL_TYPES:
        if names & tools:
            if call_type != "read_code":
                return call_type
            files = {str(_input(block).get("file_path")) for block in uses
                     if block.get("name") in tools}
            return "read_code.file" if len(files) <= 1 else "read_code.files"
    return "tool" if uses else "other"


def log_time(value: Any) -> datetime:
    """An ISO-8601 timestamp as agents write them (``...Z`` included)."""
    return datetime.fromisoformat(str(value).replace("Z", "+00:00"))


def token_count(usage: dict[str, Any], name: str) -> int:
    """A non-negative token count from a usage object (absent or null: 0)."""
    value = usage.get(name) or 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} is not a token count")
    return value


def _input(block: dict[str, Any]) -> dict[str, Any]:
    arguments = block.get("input")
    return arguments if isinstance(arguments, dict) else {}
