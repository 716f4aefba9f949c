"""The memory database's one owner: every SQL statement against ``memory.db`` lives here.

``MemoryStore`` (rows, history, feedback) with its parts on the same connection:
``search`` (FTS5), ``links`` (files and symbols), ``events``, ``vectors``, ``notes``.
Callers select rows with a typed :class:`MemoryFilter`, never with SQL text.
"""

from codekeep.memory.store.filters import MemoryFilter, Order
from codekeep.memory.store.links import Link
from codekeep.memory.store.memories import MemoryStore

__all__ = ["Link", "MemoryFilter", "MemoryStore", "Order"]
