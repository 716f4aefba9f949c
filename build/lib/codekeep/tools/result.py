"""What a tool call gives back: to the model (``content``) and to the agent (everything else)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class FileSpan:
    """Characters ``[start, end)`` of a result's content that are text of the file ``path``.

    The ledger bills a model call's input to the files whose text its prompt carries;
    spans say exactly which characters of a tool result are file text (numbered lines of
    a read, code lines of search hits) and which are headers, notes or symbol lists.
    """

    path: str
    start: int
    end: int

    @property
    def chars(self) -> int:
        return self.end - self.start

    def clipped(self, limit: int) -> int:
        """Characters of this span inside the first ``limit`` characters of the content."""
        return max(0, min(self.end, limit) - self.start)


@dataclass(slots=True)
class ToolOutput:
    """What a handler returns: structured data plus the facts the pipeline records.

    ``files`` are the workspace paths the result is about (exploration signal),
    ``files_read`` maps path -> characters read into the context (ledger attribution),
    ``query`` is the pattern or name searched for, if any.
    """

    data: Any
    text: str | None = None  # when set, the model sees exactly this (already compact)
    files: list[str] = field(default_factory=list)
    files_read: dict[str, int] = field(default_factory=dict)
    query: str | None = None
    spans: tuple[FileSpan, ...] = ()  # file text inside ``text``, when ``text`` is given


@dataclass(slots=True)
class ToolResult:
    """The outcome of one call through the pipeline; blocked calls are results, never raises."""

    tool: str
    ok: bool
    content: str
    data: Any = None
    refused: str | None = None  # reason, when a gate blocked the call
    rule: str | None = None  # which gate/rule refused or failed it
    error: str | None = None  # handler failure or invalid arguments
    cached: bool = False
    files: list[str] = field(default_factory=list)
    files_read: dict[str, int] = field(default_factory=dict)
    query: str | None = None
    spans: tuple[FileSpan, ...] = ()  # where ``content`` carries file text
    new_information: bool = False
    dropped: str | None = None  # what compression left out, also stated in ``content``
    duration_ms: float = 0.0
    call_id: str | None = None

    @property
    def outcome(self) -> str:
        """One word for logs: ok, cached, refused or error."""
        if self.refused is not None:
            return "refused"
        if not self.ok:
            return "error"
        return "cached" if self.cached else "ok"

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "ok": self.ok,
            "outcome": self.outcome,
            "content": self.content,
            "refused": self.refused,
            "rule": self.rule,
            "error": self.error,
            "cached": self.cached,
            "newInformation": self.new_information,
            "filesRead": self.files_read,
            "dropped": self.dropped,
            "durationMs": round(self.duration_ms, 3),
        }


def refusal(tool: str, rule: str, reason: str, **details: Any) -> ToolResult:
    """A structured refusal the model can act on: which rule, why, and what to do instead."""
    payload = {"refused": True, "rule": rule, "reason": reason, **details}
    return ToolResult(
        tool=tool,
        ok=False,
        content=f"REFUSED [{rule}]: {reason}",
        data=payload,
        refused=reason,
        rule=rule,
    )


def failure(tool: str, rule: str, message: str) -> ToolResult:
    """The call was allowed but could not be carried out (bad arguments, missing file ...)."""
    return ToolResult(
        tool=tool, ok=False, content=f"ERROR [{rule}]: {message}", error=message, rule=rule
    )


def dumps(value: Any) -> str:
    """Compact, stable JSON for tool content and cache keys."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)


class ToolError(Exception):
    """Raised by a handler for an expected failure; the message is shown to the model."""

    def __init__(self, message: str, rule: str = "tool") -> None:
        super().__init__(message)
        self.rule = rule


class ToolRefusedError(Exception):
    """Raised by a handler whose inner call was refused (forged tools): stays a refusal."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(reason)
        self.rule = rule
        self.reason = reason
