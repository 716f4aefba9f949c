"""Writing memories: the scope policy binds a writer to its scope; ``remember`` is the
user's (and the CLI's) door, which re-reads ``MEMORY.md`` first so a write is judged
against what the file says now."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypedDict, Unpack

from codekeep.memory.model import MemoryInputError, WriteResult
from codekeep.memory.scope import ScopeRequest
from codekeep.memory.service.core import ServiceCore
from codekeep.memory.write import WritePath, WriteRequest
from codekeep.settings.memory import DAY


class MemoryFields(TypedDict, total=False):
    """The optional fields of a write, as :meth:`ScopedWriter.remember` takes them."""

    key: str | None
    importance: int
    files: Sequence[str]
    symbols: Sequence[str]
    evidence: dict[str, Any] | None
    confidence: float
    ttl_days: float | None


class ScopedWriter:
    """What a writer (a tool, a handler) receives: its scope is fixed by the policy."""

    def __init__(
        self,
        write: WritePath,
        clock: Callable[[], float],
        scope: str,
        source: str,
        task_id: str | None,
    ) -> None:
        self._write = write
        self._clock = clock
        self.scope = scope
        self.source = source
        self.task_id = task_id

    def remember(
        self,
        content: str,
        *,
        kind: str = "fact",
        key: str | None = None,
        importance: int = 5,
        files: Sequence[str] = (),
        symbols: Sequence[str] = (),
        evidence: dict[str, Any] | None = None,
        confidence: float = 1.0,
        ttl_days: float | None = None,
    ) -> WriteResult:
        """``ttl_days``: the memory expires unless seen again within that many days."""
        if ttl_days is not None and ttl_days <= 0:
            raise MemoryInputError("ttl_days must be positive")
        request = WriteRequest(
            content,
            kind,
            key,
            None,
            importance,
            tuple(files),
            tuple(symbols),
            evidence,
            self.source,
            confidence,
            self.task_id,
            expires_at=None if ttl_days is None else self._clock() + ttl_days * DAY,
        )
        return self._write.remember(self.scope, request)


class Writing(ServiceCore):
    def writer(
        self,
        *,
        kind: str = "fact",
        scope: str | None = None,
        source: str = "agent",
        task_id: str | None = None,
    ) -> ScopedWriter:
        """A writer bound to the scope the policy resolves for this request."""
        resolved = self.scope_policy.resolve(ScopeRequest(kind, scope, task_id, source))
        return ScopedWriter(self._write, self.settings.clock, resolved, source, task_id)

    def remember(
        self,
        content: str,
        *,
        kind: str = "fact",
        scope: str = "project",
        source: str = "user",
        task_id: str | None = None,
        **fields: Unpack[MemoryFields],
    ) -> WriteResult:
        """Write through a writer for ``scope`` (the policy may decide another)."""
        self.refresh_notes()  # a write is judged against what MEMORY.md says now
        writer = self.writer(kind=kind, scope=scope, source=source, task_id=task_id)
        return writer.remember(content, kind=kind, **fields)
