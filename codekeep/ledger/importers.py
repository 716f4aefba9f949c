"""Reading Claude Code transcripts into ledger calls, line by line.

Claude Code writes one JSON object per line to ``~/.claude/projects/<project>/<session>.jsonl``
(sub-agents, each with its own model, under ``<session>/subagents/*.jsonl``). An
assistant entry carries ``message.usage``: ``input_tokens`` (fresh input),
``cache_read_input_tokens``, ``cache_creation_input_tokens`` split by lifetime in
``cache_creation.ephemeral_5m_input_tokens`` / ``ephemeral_1h_input_tokens``,
``output_tokens`` (thinking included, ``output_tokens_details.thinking_tokens`` of it),
``server_tool_use.web_search_requests``, ``speed`` and ``inference_geo``. A streamed
answer is written as several entries with the same ``message.id`` and ``requestId``,
one per content block, whose output grows: that pair is the import key, and the
largest snapshot is the call (the first one undercounts the output). An API error
Claude Code answered itself (``isApiErrorMessage``, model ``<synthetic>``) is an error
event, not a call. Each session becomes task ``claude-code:<sessionId>``.

Cost per file: a Read result (``toolUseResult.file``) puts a file's text into the
context; every later call's prompt carries it, weighted by the tokens of that result,
until a compact boundary (``type: system, subtype: compact_boundary``) empties the
context. Sub-agents keep their own context.

The call type is read from the tools the answer asked for (``message.content`` tool_use
blocks): an edit is ``generate_code``, a Read is ``read_code`` (per distinct file), a
Grep/Glob/LS ``read_code.directory``, a todo list or plan ``plan``, any other tool
``tool``, a plain answer ``other``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from codekeep.common.tokens import count_tokens
from codekeep.ledger.ledger import ImportedCall
from codekeep.ledger.prices import Bill
from codekeep.ledger.records import ErrorEvent

CLAUDE_PROJECTS = Path.home() / ".claude" / "projects"
HOST = "claude-code"

# First matching group wins: writing code outranks reading it, reading outranks planning.
_TOOL_CALL_TYPES = (
    ({"Edit", "MultiEdit", "Write", "NotebookEdit"}, "generate_code"),
    ({"Read", "NotebookRead"}, "read_code"),
    ({"Grep", "Glob", "LS"}, "read_code.directory"),
    ({"TodoWrite", "ExitPlanMode"}, "plan"),
)
_READ_TOOLS = {"Read", "NotebookRead"}


@dataclass(slots=True)
class LogScan:
    """What a read found: the calls, error events, and the lines skipped and why."""

    calls: list[ImportedCall] = field(default_factory=list)
    errors: list[ErrorEvent] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def claude_code_log_files(base: Path = CLAUDE_PROJECTS) -> list[Path]:
    """Every session and sub-agent transcript below ``base`` (a projects dir or one file)."""
    if base.is_file():
        return [base]
    return sorted({*base.glob("*/*.jsonl"), *base.glob("*/*/subagents/*.jsonl"),
                   *base.glob("*.jsonl")})


def session_files(transcript: Path) -> list[Path]:
    """A session's transcript and its sub-agents' (``<session>/subagents/*.jsonl``)."""
    subagents = transcript.with_suffix("") / "subagents"
    return [transcript, *sorted(subagents.glob("*.jsonl"))] if transcript.is_file() else []


class ClaudeTranscript:
    """Reads one transcript's lines; ``state()`` is what a later fold resumes from.

    Calls are emitted by :meth:`finish`, one per import key with its largest snapshot,
    so a streamed answer whose entries were all read in one go is one call.
    """

    def __init__(self, state: dict[str, Any] | None = None) -> None:
        state = state or {}
        # context id (main or a sidechain's agent) -> path -> tokens of its text carried
        self._carried: dict[str, dict[str, int]] = state.get("carried", {})
        self._fresh: dict[str, list[str]] = state.get("fresh", {})
        self._reads: dict[str, str] = state.get("reads", {})  # tool_use id -> path
        self._calls: dict[str, ImportedCall] = {}
        self.scan = LogScan()

    def state(self) -> dict[str, Any]:
        return {"carried": self._carried, "fresh": self._fresh, "reads": self._reads}

    def feed(self, line: str) -> None:
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            self.scan.skip("not JSON")
            return
        if not isinstance(entry, dict):
            return
        kind = entry.get("type")
        if kind == "assistant":
            self._assistant(entry)
        elif kind == "user":
            self._tool_results(entry)
        elif kind == "system" and entry.get("subtype") == "compact_boundary":
            self._carried[_context(entry)] = {}
            self._fresh[_context(entry)] = []

    def finish(self) -> LogScan:
        self.scan.calls.extend(self._calls.values())
        self._calls = {}
        return self.scan

    def _assistant(self, entry: dict[str, Any]) -> None:
        message = entry.get("message")
        if not isinstance(message, dict):
            self.scan.skip("assistant entry without a message")
            return
        if entry.get("isApiErrorMessage"):
            self._api_error(entry, message)
            return
        usage = message.get("usage")
        model = message.get("model")
        if not model or model == "<synthetic>":
            return  # Claude Code's own placeholder messages cost nothing
        if not isinstance(usage, dict):
            self.scan.skip("assistant entry without usage")
            return
        for block in _blocks(message.get("content")):
            if block.get("type") == "tool_use" and block.get("name") in _READ_TOOLS:
                path = _input(block).get("file_path") or _input(block).get("notebook_path")
                if path and block.get("id"):
                    self._reads[str(block["id"])] = str(path)
        try:
            call = self._call(entry, message, usage, str(model))
        except (KeyError, TypeError, ValueError):
            self.scan.skip("unreadable usage or timestamp")
            return
        if not call.input_tokens + call.output_tokens:
            return
        earlier = self._calls.get(call.source_id)
        if earlier is None:
            self._fresh[_context(entry)] = []  # this call's prompt carried them first
            self._calls[call.source_id] = call
        elif call.output_tokens >= earlier.output_tokens:  # a later snapshot of the answer
            self._calls[call.source_id] = ImportedCall(
                source_id=call.source_id, ts=earlier.ts, task_id=call.task_id,
                session_id=call.session_id, model=call.model, bill=call.bill,
                reasoning_tokens=call.reasoning_tokens,
                call_type=_merged_type(earlier.call_type, call.call_type),
                files=earlier.files, fresh=earlier.fresh)

    def _call(self, entry: dict[str, Any], message: dict[str, Any], usage: dict[str, Any],
              model: str) -> ImportedCall:
        fresh, read, written, output = (
            token_count(usage, name) for name in ("input_tokens", "cache_read_input_tokens",
                                                  "cache_creation_input_tokens", "output_tokens"))
        split = usage.get("cache_creation")
        split = split if isinstance(split, dict) else {}
        one_hour = min(max(token_count(split, "ephemeral_1h_input_tokens"), 0), written)
        details = usage.get("output_tokens_details")
        searches = usage.get("server_tool_use")
        session = str(entry.get("sessionId") or "unknown")
        message_id = message.get("id") or entry.get("uuid")
        if not message_id:
            raise ValueError("entry has no id")
        context = _context(entry)
        return ImportedCall(
            source_id=f"{HOST}:{message_id}:{entry.get('requestId', '')}",
            ts=log_time(entry["timestamp"]).timestamp(), task_id=f"{HOST}:{session}",
            session_id=session, model=model,
            bill=Bill(input_tokens=fresh + read + written, output_tokens=output,
                      cached_tokens=read, cache_write_5m=written - one_hour,
                      cache_write_1h=one_hour,
                      web_searches=token_count(searches, "web_search_requests")
                      if isinstance(searches, dict) else 0,
                      fast=usage.get("speed") == "fast",
                      us_only=usage.get("inference_geo") == "us"),
            reasoning_tokens=token_count(details, "thinking_tokens")
            if isinstance(details, dict) else 0,
            call_type=_call_type(message.get("content")),
            files=dict(self._carried.get(context, {})),
            fresh=frozenset(self._fresh.get(context, [])),
        )

    def _tool_results(self, entry: dict[str, Any]) -> None:
        """Note the files whose text a Read result put into the context."""
        message = entry.get("message")
        if not isinstance(message, dict):
            return
        result = entry.get("toolUseResult")
        context = _context(entry)
        for block in _blocks(message.get("content")):
            if block.get("type") != "tool_result":
                continue
            path = self._reads.pop(str(block.get("tool_use_id")), None)
            if path is None and isinstance(result, dict) and isinstance(result.get("file"),
                                                                        dict):
                path = result["file"].get("filePath")
            if not path or block.get("is_error"):
                continue
            tokens = count_tokens(_text(block.get("content"))).tokens
            if tokens:
                carried = self._carried.setdefault(context, {})
                carried[str(path)] = carried.get(str(path), 0) + tokens
                self._fresh.setdefault(context, []).append(str(path))

    def _api_error(self, entry: dict[str, Any], message: dict[str, Any]) -> None:
        text = _text(message.get("content"))
        session = str(entry.get("sessionId") or "unknown")
        try:
            ts = log_time(entry["timestamp"]).timestamp()
        except (KeyError, ValueError):
            self.scan.skip("unreadable usage or timestamp")
            return
        self.scan.errors.append(ErrorEvent(
            source_id=f"{HOST}:error:{entry.get('uuid') or message.get('id')}", ts=ts,
            task_id=f"{HOST}:{session}", session_id=session, model=str(message.get("model")),
            kind="connection" if "connection" in text.lower() else "api", detail=text[:500]))


def _context(entry: dict[str, Any]) -> str:
    """Which context an entry belongs to: the main conversation or one sidechain's."""
    return str(entry.get("agentId") or "sidechain") if entry.get("isSidechain") else "main"


def _blocks(content: Any) -> list[dict[str, Any]]:
    return [block for block in content if isinstance(block, dict)] \
        if isinstance(content, list) else []


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(block.get("text", "")) for block in _blocks(content))


def _merged_type(first: str, later: str) -> str:
    """A streamed answer's type from all its blocks (a later tool_use block decides)."""
    return later if later != "other" else first


def _call_type(content: Any) -> str:
    """The call type implied by the tool calls in an assistant message."""
    uses = [block for block in _blocks(content) if block.get("type") == "tool_use"]
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
