"""CodeKeep memory: layered, scored, consolidated long-term memory tied to files and symbols.

The public surface is :class:`MemoryService` and the records
it returns; everything else in this package is an implementation detail.
"""

from codekeep.memory.model import (
    KINDS,
    SCOPES,
    STATUSES,
    Memory,
    MemoryInputError,
    RecalledMemory,
    ScoreParts,
    WriteResult,
)
from codekeep.memory.service import MemoryService, ScopedWriter
from codekeep.memory.working import WorkingMemory
from codekeep.settings.memory import EmbeddingSettings, MemorySettings

__all__ = [
    "KINDS",
    "SCOPES",
    "STATUSES",
    "EmbeddingSettings",
    "Memory",
    "MemoryInputError",
    "MemoryService",
    "MemorySettings",
    "RecalledMemory",
    "ScopedWriter",
    "ScoreParts",
    "WorkingMemory",
    "WriteResult",
]
