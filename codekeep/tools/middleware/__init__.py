"""The pipeline's middlewares, one module per job, and the default chain in its fixed order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from codekeep.tools.middleware.audit import AuditRecord
from codekeep.tools.middleware.cache import CacheCheck
from codekeep.tools.middleware.contract import ToolMiddleware
from codekeep.tools.middleware.dedup import DuplicateWriteCheck
from codekeep.tools.middleware.exploration import ExplorationSignal
from codekeep.tools.middleware.gates import AllowlistGate, ArgumentValidation, SafetyGate
from codekeep.tools.middleware.knowledge import MemoryKnowledge
from codekeep.tools.middleware.observation import ObservationRecord
from codekeep.tools.middleware.trace import TraceRecord

if TYPE_CHECKING:
    from codekeep.tools.audit import AuditLog
    from codekeep.tools.registry import ToolRegistry

__all__ = [
    "AllowlistGate",
    "ArgumentValidation",
    "AuditRecord",
    "CacheCheck",
    "DuplicateWriteCheck",
    "ExplorationSignal",
    "MemoryKnowledge",
    "ObservationRecord",
    "SafetyGate",
    "TraceRecord",
    "default_middlewares",
]


def default_middlewares(
    registry: ToolRegistry,
    audit: AuditLog | None = None,
    extra_after: Sequence[ToolMiddleware] = (),
) -> list[ToolMiddleware]:
    """Gate -> validate -> safety -> cache | knowledge -> observe -> explore -> trace ->
    dedup -> audit."""
    chain: list[ToolMiddleware] = [
        AllowlistGate(registry),
        ArgumentValidation(),
        SafetyGate(),
        CacheCheck(),
        MemoryKnowledge(),
        ObservationRecord(),
        ExplorationSignal(),
        TraceRecord(),
        *extra_after,
        DuplicateWriteCheck(),
    ]
    if audit is not None:
        chain.append(AuditRecord(audit))
    return chain
