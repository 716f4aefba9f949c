"""The side tables of ``memory.db``: the event stream with its summary coverage, the
embedding vectors, and the digest of the last ``MEMORY.md`` sync.

Each is a small typed door onto its own tables; the policies that use them live in
``events`` (the event stream), ``retrieval`` with ``codekeep.embeddings`` (vectors) and
``notes_sync`` (the digest).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any


class EventTable:
    """``events`` is append-only (a trigger refuses updates); ``summary_coverage`` records
    which run of a task's events each summary replaced."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def append(
        self,
        task_id: str,
        at: float,
        event_type: str,
        summary: str,
        files: Sequence[str],
        data: dict[str, Any] | None,
        tokens: int,
    ) -> sqlite3.Row:
        """Insert one event; the stored row (with its id)."""
        cursor = self._conn.execute(
            "INSERT INTO events(task_id, at, event_type, summary, files, data, tokens) "
            "VALUES (?,?,?,?,?,?,?) RETURNING *",
            (
                task_id,
                at,
                event_type,
                summary,
                json.dumps(list(files)),
                json.dumps(data, sort_keys=True) if data else None,
                tokens,
            ),
        )
        row: sqlite3.Row = cursor.fetchone()
        cursor.close()
        return row

    def get(self, event_id: int) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self._conn.execute(
            "SELECT * FROM events WHERE id = ?", (event_id,)
        ).fetchone()
        return row

    def of_task(self, task_id: str, after: int = 0) -> list[sqlite3.Row]:
        return self._conn.execute(
            "SELECT * FROM events WHERE task_id = ? AND id > ? ORDER BY id", (task_id, after)
        ).fetchall()

    def summarised_up_to(self, task_id: str) -> int:
        """The id of the last event of ``task_id`` a summary covers (0: none)."""
        row = self._conn.execute(
            "SELECT max(last_event) FROM summary_coverage WHERE task_id = ?", (task_id,)
        ).fetchone()
        return int(row[0] or 0)

    def cover(
        self,
        summary_id: str,
        task_id: str,
        first_event: int,
        last_event: int,
        event_tokens: int,
        summary_tokens: int,
    ) -> None:
        self._conn.execute(
            "INSERT INTO summary_coverage(summary_id, task_id, first_event, last_event, "
            "event_tokens, summary_tokens) VALUES (?,?,?,?,?,?)",
            (summary_id, task_id, first_event, last_event, event_tokens, summary_tokens),
        )


class VectorTable:
    """One embedding per memory, tagged with the model that made it."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def put(self, model: str, vectors: Sequence[tuple[str, bytes]]) -> None:
        self._conn.executemany(
            "INSERT OR REPLACE INTO memory_vectors(memory_id, model, vector) VALUES (?, ?, ?)",
            [(memory_id, model, blob) for memory_id, blob in vectors],
        )

    def missing(self, model: str, statuses: Sequence[str], limit: int) -> list[tuple[str, str]]:
        """(id, content) of memories in ``statuses`` with no vector from ``model`` yet."""
        rows = self._conn.execute(
            f"SELECT id, content FROM memories WHERE status IN ({','.join('?' * len(statuses))}) "
            "AND id NOT IN (SELECT memory_id FROM memory_vectors WHERE model = ?) "
            "ORDER BY last_seen_at DESC LIMIT ?",
            (*statuses, model, limit),
        )
        return [(r[0], r[1]) for r in rows]

    def recent(self, statuses: Sequence[str], limit: int) -> list[tuple[str, bytes]]:
        """(id, vector) of the most recently seen memories in ``statuses``."""
        rows = self._conn.execute(
            "SELECT v.memory_id, v.vector FROM memory_vectors v JOIN memories m ON m.id "
            "= v.memory_id "
            f"WHERE m.status IN ({','.join('?' * len(statuses))}) "
            "ORDER BY m.last_seen_at DESC LIMIT ?",
            (*statuses, limit),
        )
        return [(r[0], r[1]) for r in rows]


class NotesDigests:
    """What ``MEMORY.md`` said at its last sync (its digest and text)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def get(self, path: str) -> str | None:
        row = self._conn.execute("SELECT sha256 FROM notes_sync WHERE path = ?", (path,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, path: str, digest: str, text: str, at: float) -> None:
        self._conn.execute(
            "INSERT OR REPLACE INTO notes_sync(path, sha256, text, synced_at) VALUES (?, ?, ?, ?)",
            (path, digest, text, at),
        )
