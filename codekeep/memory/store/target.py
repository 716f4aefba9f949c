"""What the write path and the feedback methods need of a memory database.

``MemoryStore`` (SQLite) is one; the team database's store (``codekeep.team.store``,
PostgreSQL) is the other. Both get the same state machine (ADD / REINFORCE /
SUPERSEDE / UPDATE / MERGE / SKIP) and the same feedback (forget, confirm, "not this")
from :mod:`codekeep.memory.write` and the service, instead of a copy per database.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from codekeep.memory.model import Memory
from codekeep.memory.store.filters import MemoryFilter


class TextIndex(Protocol):
    def text(
        self, text: str, statuses: Sequence[str], kinds: Sequence[str] | None, limit: int
    ) -> list[tuple[str, float]]: ...

    def document_frequencies(self, words: Sequence[str]) -> dict[str, int]: ...


class LinkIndex(Protocol):
    def add(self, memory_id: str, files: Iterable[str], symbols: Iterable[str]) -> None: ...


class WriteTarget(Protocol):
    """One memory database as the write path and feedback see it.

    Every change runs inside ``with target.transaction():`` (re-entrant), which also
    serialises concurrent writers, so the state machine's read-then-decide is atomic.
    """

    @property
    def search(self) -> TextIndex: ...

    @property
    def links(self) -> LinkIndex: ...

    def transaction(self) -> AbstractContextManager[Any]: ...

    def owns(self, memory_id: str) -> bool: ...

    def ids(self, where: MemoryFilter) -> list[str]: ...

    def consolidation_rows(self, ids: Sequence[str]) -> Sequence[Any]: ...

    def insert(self, row: dict[str, Any], files: Sequence[str], symbols: Sequence[str]) -> None:
        ...

    def update(self, memory_id: str, **fields: Any) -> None: ...

    def get(self, memory_id: str) -> Memory | None: ...

    def log(
        self, memory_id: str, at: float, action: str, detail: dict[str, Any] | None = None
    ) -> None: ...

    def history(self, memory_id: str) -> list[dict[str, Any]]: ...

    def add_support(self, memory_id: str, task_id: str) -> int: ...

    def add_feedback(self, memory_id: str, reason: str | None, at: float) -> None: ...

    def retract_feedback(self, memory_id: str, at: float) -> int: ...
