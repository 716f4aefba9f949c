"""Which scope a write lands in is decided by a policy, not by the writer.

The service resolves the scope once (from the request: kind, requested scope, task)
and hands the writer a :class:`ScopedWriter` bound to it, so a tool or handler can only
write where it was allowed to. Replace :class:`DefaultScopePolicy` to add rules (e.g.
"preferences about answer style always go to the user scope").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from codekeep.memory.model import SCOPES, MemoryInputError


@dataclass(frozen=True, slots=True)
class ScopeRequest:
    kind: str
    requested: str | None
    task_id: str | None
    source: str


class ScopePolicy(Protocol):
    def resolve(self, request: ScopeRequest) -> str: ...


class DefaultScopePolicy:
    """Events belong to their task; everything else goes where it was asked (default project).

    A ``task`` scope without a task id is meaningless and is refused rather than guessed.
    """

    def resolve(self, request: ScopeRequest) -> str:
        if request.kind == "event":
            if not request.task_id:
                raise MemoryInputError("an event needs a task id")
            return "task"
        scope = request.requested or "project"
        if scope not in SCOPES:
            raise MemoryInputError(f"unknown scope {scope!r} (use one of {', '.join(SCOPES)})")
        if scope == "task" and not request.task_id:
            raise MemoryInputError("scope 'task' needs a task id")
        return scope
