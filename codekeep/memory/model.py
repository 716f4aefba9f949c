"""The vocabulary of memory: kinds, statuses, scopes, and the records the service hands out.

Kept free of storage and policy code so that every other module (and other areas of
CodeKeep) can import these names without pulling in SQLite or the write path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

MemoryKind = Literal[
    "event", "summary", "fact", "insight", "preference", "soft_preference", "note", "case"
]
MemoryStatus = Literal[
    "active", "superseded", "observed", "confirmed_resolved", "archived", "disabled"
]
MemoryScope = Literal["task", "project", "user", "team"]
# What a door may write: events and summaries come from the event stream, tasks from a task.
WritableKind = Literal["fact", "insight", "preference", "soft_preference", "note", "case"]
WritableScope = Literal["project", "user", "team"]
KINDS: tuple[MemoryKind, ...] = get_args(MemoryKind)
STATUSES: tuple[MemoryStatus, ...] = get_args(MemoryStatus)
SCOPES: tuple[MemoryScope, ...] = get_args(MemoryScope)
WRITABLE_KINDS: tuple[WritableKind, ...] = get_args(WritableKind)
WRITABLE_SCOPES: tuple[WritableScope, ...] = get_args(WritableScope)
# What the write path did with a candidate (docs/memory.md, "How a write is decided";
# REJECT: the safety filter or the gate refused it; PROMOTE: a promotion added the team's
# row), as every door reports it in ``action``.
WriteAction = Literal[
    "ADD", "REINFORCE", "SUPERSEDE", "UPDATE", "MERGE", "SKIP", "REJECT", "PROMOTE"
]
# The actions that leave a new or rewritten row holding the content (its links, vectors
# and capacity follow), and those after which memory holds it at all (learnt).
CONTENT_WRITTEN: tuple[WriteAction, ...] = ("ADD", "SUPERSEDE", "UPDATE", "MERGE")
KEPT: tuple[WriteAction, ...] = (*CONTENT_WRITTEN, "REINFORCE")

# A write's defaults and bounds, declared once for every door (CLI, LSP, tools, MCP).
DEFAULT_KIND: WritableKind = "fact"
DEFAULT_SCOPE: WritableScope = "project"
DEFAULT_IMPORTANCE = 5
IMPORTANCE_MIN, IMPORTANCE_MAX = 1, 10
# How many memories a read answers with unless asked, likewise for every door.
RECALL_LIMIT = 10
LIST_LIMIT = 200
# Scopes kept in this machine's SQLite; "team" lives in the team's PostgreSQL (codekeep.team).
LOCAL_SCOPES = ("task", "project", "user")
# The first letter of an id names its scope's database; "t" is the task scope's, so the
# team's ids start with "g".
ID_PREFIXES = {"task": "t", "project": "p", "user": "u", "team": "g"}

# Knowledge that lives across tasks and counts against the per-scope capacity.
LONG_TERM_KINDS = ("fact", "insight", "preference", "soft_preference", "note", "case")
# Statuses a recall may return: everything else is history kept for audit.
RECALLABLE_STATUSES = ("active", "confirmed_resolved")
# Sources that mean "the user said so" (they beat inferred ones).
# Preferences and notes that came from .codekeep/MEMORY.md; a re-sync owns exactly these.
MARKDOWN_SOURCE = "user_markdown"
USER_SOURCES = ("user", MARKDOWN_SOURCE, "explicit_command")

# Sources whose facts are *observations* until they recur (implicit extraction).
OBSERVING_SOURCES = ("summary", "automatic", "automatic_rule", "automatic_llm")
# Sources of what the conversation extraction found (rule stage, model stage).
EXTRACTED_SOURCES = ("automatic_rule", "automatic_llm")
# What a model asserts through ``remember`` (our agent, or an MCP host's model): no
# evidence, no knowledge — without a verified quote it is only observed, and in the team
# scope it also waits for a human's confirmation.
MODEL_SOURCES = ("agent",)


@dataclass(slots=True)
class Memory:
    """One stored memory row, links included."""

    id: str
    kind: str
    status: str
    scope: str
    key: str | None
    value: str | None
    content: str
    importance: int
    confidence: float
    source: str
    evidence: dict[str, Any] | None
    files: list[str]
    symbols: list[str]
    support_count: int
    access_count: int
    created_at: float
    last_seen_at: float
    last_accessed_at: float | None
    expires_at: float | None
    superseded_by: str | None
    task_id: str | None = None
    stale_symbols: list[str] = field(default_factory=list)
    stale_files: list[str] = field(default_factory=list)
    negative_feedback: int = 0
    author: str | None = None  # team scope: the member who wrote or promoted it

    @property
    def flags(self) -> list[str]:
        """Warnings a reader must see next to the content."""
        flags: list[str] = []
        if self.negative_feedback:
            flags.append("not-this")
        if self.stale_symbols or self.stale_files:
            flags.append("stale")
        if self.source not in USER_SOURCES:
            flags.append("inferred")
        if self.kind == "case":
            flags.append("historical")
        return flags

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "status": self.status,
            "scope": self.scope,
            "key": self.key,
            "value": self.value,
            "content": self.content,
            "importance": self.importance,
            "confidence": self.confidence,
            "source": self.source,
            "evidence": self.evidence,
            "files": list(self.files),
            "symbols": list(self.symbols),
            "supportCount": self.support_count,
            "accessCount": self.access_count,
            "createdAt": self.created_at,
            "lastSeenAt": self.last_seen_at,
            "lastAccessedAt": self.last_accessed_at,
            "expiresAt": self.expires_at,
            "supersededBy": self.superseded_by,
            "taskId": self.task_id,
            "staleSymbols": list(self.stale_symbols),
            "staleFiles": list(self.stale_files),
            "flags": self.flags,
            **({"author": self.author} if self.author else {}),
        }


@dataclass(frozen=True, slots=True)
class ScoreParts:
    recency: float
    importance: float
    relevance: float


@dataclass(slots=True)
class RecalledMemory:
    """A memory as recall ranks it: the final score and the parts it came from."""

    memory: Memory
    score: float
    parts: ScoreParts

    def to_json(self) -> dict[str, Any]:
        m = self.memory
        return {
            "id": m.id,
            "kind": m.kind,
            "status": m.status,
            "scope": m.scope,
            "key": m.key,
            "content": m.content,
            "files": list(m.files),
            "symbols": list(m.symbols),
            "score": round(self.score, 6),
            "scoreParts": {
                "recency": round(self.parts.recency, 6),
                "importance": round(self.parts.importance, 6),
                "relevance": round(self.parts.relevance, 6),
            },
            "flags": m.flags,
            **({"author": m.author} if m.author else {}),
        }


@dataclass(frozen=True, slots=True)
class WriteResult:
    """What the write path decided. ``id`` is the memory that now holds the content."""

    action: WriteAction
    id: str | None
    reason: str | None = None
    redactions: tuple[str, ...] = ()
    previous_id: str | None = None

    @property
    def rejected(self) -> bool:
        return self.action == "REJECT"

    def to_json(self) -> dict[str, Any]:
        payload: dict[str, Any] = {"id": self.id, "action": self.action}
        if self.reason:
            payload["reason"] = self.reason
        if self.redactions:
            payload["redactions"] = list(self.redactions)
        if self.previous_id:
            payload["previousId"] = self.previous_id
        return payload


class MemoryInputError(ValueError):
    """Bad input to the memory service (unknown id, invalid kind ...); message is user-facing."""


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
