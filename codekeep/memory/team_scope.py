"""The team scope as memory needs it, declared here so that memory never imports the team
area (which sits above it and implements this on PostgreSQL).

:mod:`codekeep.services` opens the team's implementation
(:class:`codekeep.team.memory.TeamMemory`) and hands it to :meth:`MemoryService.open`;
memory routes writes to its ``store`` through the one write path, merges its ``recall``
with local results by score, and shares a local memory through :func:`promotion_request`.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from codekeep.memory.model import (
    ID_PREFIXES,
    RECALLABLE_STATUSES,
    Memory,
    MemoryInputError,
    RecalledMemory,
)
from codekeep.memory.store.target import WriteTarget
from codekeep.memory.write import WriteRequest

TEAM_SCOPE = "team"
PROMOTABLE_SCOPES = ("project", "user")


class TeamUnavailable(MemoryInputError):
    """The team database cannot answer (unreachable, refused, too new). Local scopes go
    on working: a recall keeps its local results and says why the team's are missing."""


class TeamTarget(WriteTarget, Protocol):
    """The team database as a write target, which also records who promoted a row."""

    def promoting(self, local_id: str) -> AbstractContextManager[None]: ...


class TeamScope(Protocol):
    """One member's team scope on one team database."""

    @property
    def store(self) -> TeamTarget: ...

    def recall(
        self,
        text: str,
        limit: int,
        kinds: Sequence[str] | None = None,
        files: Sequence[str] = (),
        symbols: Sequence[str] = (),
    ) -> builtins.list[RecalledMemory]:
        """The team's best ``limit`` memories, scored like local recall; raises
        :class:`TeamUnavailable` when the database cannot answer."""
        ...

    def list(
        self, statuses: Sequence[str], kinds: Sequence[str] | None, limit: int
    ) -> builtins.list[Memory]:
        """The team's memories with those statuses, newest first."""
        ...

    def close(self) -> None: ...


def is_team_id(memory_id: str) -> bool:
    """Whether an id names a team memory (known from its prefix, configured or not)."""
    return memory_id.startswith(ID_PREFIXES[TEAM_SCOPE])


def promotion_request(memory: Memory) -> WriteRequest:
    """The write that shares a project or user memory with the team (screened again)."""
    if memory.scope not in PROMOTABLE_SCOPES:
        raise MemoryInputError(
            f"only project or user memories can be promoted to the team ({memory.id} is "
            f"{memory.scope})"
        )
    if memory.status not in RECALLABLE_STATUSES:
        raise MemoryInputError(
            f"memory {memory.id} is {memory.status}: only active or confirmed memories "
            "can be promoted"
        )
    return WriteRequest(
        memory.content,
        memory.kind,
        memory.key,
        memory.value,
        memory.importance,
        tuple(memory.files),
        tuple(memory.symbols),
        memory.evidence,
        memory.source,
        memory.confidence,
    )
