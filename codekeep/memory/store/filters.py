"""``MemoryFilter``: which memory rows a store query means, as typed fields instead of SQL.

Callers (write path, retrieval, forgetting, MEMORY.md sync) say *what* they want; only
the store turns it into a ``WHERE`` clause, so the SQL of ``memory.db`` has one owner
and no caller can pass a fragment in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Order = Literal["recent", "least_valuable"]

ORDER_BY: dict[Order, str] = {
    "recent": "last_seen_at DESC",
    # a memory's value (access_count × importance), access counted from 1 so that
    # never-recalled memories still differ by importance instead of all tying at 0
    "least_valuable": "(access_count + 1) * importance ASC, last_seen_at ASC",
}


@dataclass(frozen=True, slots=True)
class MemoryFilter:
    """All given fields must hold (AND); a field left ``None`` does not filter."""

    ids: Sequence[str] | None = None
    statuses: Sequence[str] | None = None
    kinds: Sequence[str] | None = None
    sources: Sequence[str] | None = None
    scope: str | None = None
    key: str | None = None
    fingerprint: str | None = None
    task_id: str | None = None
    # rows of any task but this one (rows without a task count as another task)
    other_than_task: str | None = None
    # last used (seen again or recalled, whichever is later) before this time
    last_used_before: float | None = None
    # has a lifetime that ends at or before this time
    expires_by: float | None = None

    def where(self) -> tuple[str, list[Any]]:
        """The ``WHERE`` clause (``1`` when nothing filters) and its parameters."""
        parts: list[str] = []
        params: list[Any] = []
        for column, values in (
            ("id", self.ids),
            ("status", self.statuses),
            ("kind", self.kinds),
            ("source", self.sources),
        ):
            if values is not None:
                parts.append(f"{column} IN ({','.join('?' * len(values))})")
                params += list(values)
        for column, value in (
            ("scope", self.scope),
            ("key", self.key),
            ("fingerprint", self.fingerprint),
            ("task_id", self.task_id),
        ):
            if value is not None:
                parts.append(f"{column} = ?")
                params.append(value)
        if self.other_than_task is not None:
            parts.append("coalesce(task_id, '') != ?")
            params.append(self.other_than_task)
        if self.last_used_before is not None:
            parts.append("max(last_seen_at, coalesce(last_accessed_at, 0)) < ?")
            params.append(self.last_used_before)
        if self.expires_by is not None:
            parts.append("expires_at IS NOT NULL AND expires_at <= ?")
            params.append(self.expires_by)
        return " AND ".join(parts) or "1", params
