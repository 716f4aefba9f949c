"""Access counts kept off the read path: a recall queues what it returned instead of
writing it.

Before, every recall opened a write transaction per database to count its results
(``access_count + 1``, ``last_accessed_at = now``): a read that takes the write lock,
commits, and now and then pays a WAL checkpoint. Now the counts wait here and ride on
the store's next write transaction (a :class:`~codekeep.common.sqlite.Piggyback`:
written right after ``BEGIN``, so capacity and forgetting inside that transaction see
them), on ``close()``, or on a flush the recall asks for when the queue is big or old
(:meth:`AccessLog.due`). Reads on this connection see queued counts as if written
(:meth:`AccessLog.seen`), so a recall ranks exactly as it did when every recall wrote.
A killed process loses at most the queue (bounded by ``due``); a clean shutdown none.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence

# flush when this many memories wait, or the oldest waited this long (seconds)
MAX_QUEUED = 4096
MAX_AGE_SECONDS = 30.0


class AccessLog:
    def __init__(self) -> None:
        # id -> [recalls not written yet, last time recalled]
        self._queued: dict[str, list[float]] = {}
        self._writing: dict[str, list[float]] | None = None  # in an open transaction
        self._since: float | None = None  # when the oldest queued entry arrived

    def add(self, ids: Sequence[str], now: float) -> None:
        """Count one recall of each of ``ids`` at ``now``."""
        for memory_id in ids:
            entry = self._queued.get(memory_id)
            if entry is None:
                self._queued[memory_id] = [1, now]
            else:
                entry[0] += 1
                entry[1] = now
        if ids and self._since is None:
            self._since = time.monotonic()

    def seen(self, memory_id: str, count: int, last: float | None) -> tuple[int, float | None]:
        """(access_count, last_accessed_at) of a row as stored, with the queue applied."""
        entry = self._queued.get(memory_id)
        if entry is None:
            return count, last
        return count + int(entry[0]), entry[1]

    def waiting(self) -> bool:
        """Some recalls wait to be written."""
        return bool(self._queued)

    def due(self) -> bool:
        """The queue is big or old enough that the next recall should write it."""
        if not self._queued or self._since is None:
            return False
        return (
            len(self._queued) >= MAX_QUEUED
            or time.monotonic() - self._since >= MAX_AGE_SECONDS
        )

    # ---- Piggyback: the store's write transactions carry the queue ----------------------

    def write(self, conn: sqlite3.Connection) -> None:
        queued = self.take()
        if queued:
            conn.executemany(
                "UPDATE memories SET access_count = access_count + ?, last_accessed_at = ? "
                "WHERE id = ?", queued)

    def take(self) -> list[tuple[int, float, str]]:
        """The queue as (recalls, last recalled, id) rows for a transaction about to write
        them (then :meth:`committed` or :meth:`rolled_back`); empty when nothing waits."""
        if not self._queued:
            return []
        self._writing, self._queued, self._since = self._queued, {}, None
        return [(int(count), last, memory_id)
                for memory_id, (count, last) in self._writing.items()]

    def committed(self) -> None:
        self._writing = None

    def rolled_back(self) -> None:
        """The transaction that carried the queue failed: queue it again (older first)."""
        if self._writing is None:
            return
        newer, self._queued = self._queued, self._writing
        self._writing = None
        for memory_id, (count, last) in newer.items():
            entry = self._queued.setdefault(memory_id, [0, last])
            entry[0] += count
            entry[1] = last
        if self._queued and self._since is None:
            self._since = time.monotonic()
