"""One memory database (one scope family): the one owner of the SQL of ``memory.db``.

``MemoryStore`` knows SQL and nothing about policy. The service owns two of them
(project and user) and decides what to write; every multi-statement change runs in
``with store.transaction():`` (``BEGIN IMMEDIATE``) so concurrent writers serialise on
the busy timeout instead of failing, and a killed writer leaves either all or none of
a change. The rows live here; full-text search, code links and the side tables
(events, vectors, ``MEMORY.md`` digest) are the store's parts ``search``, ``links``,
``events``, ``vectors`` and ``notes``, on the same connection. Recalls count their
results in ``access`` (an :class:`AccessLog`): written by the next write transaction,
not by the read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from codekeep.common.sqlite import WriteTransaction, open_db, parameter_batches
from codekeep.memory.model import ID_PREFIXES, Memory, dumps
from codekeep.memory.schema import MIGRATIONS
from codekeep.memory.store.access import AccessLog
from codekeep.memory.store.filters import ORDER_BY, MemoryFilter, Order
from codekeep.memory.store.links import LinkTable
from codekeep.memory.store.search import TextSearch
from codekeep.memory.store.tables import EventTable, NotesDigests, VectorTable

_COLUMNS = (
    "id, kind, status, scope, key, value, content, fingerprint, importance, confidence, source, "
    "evidence, support_count, access_count, created_at, last_seen_at, last_accessed_at, "
    "expires_at, superseded_by, task_id"
)
_COLUMN_NAMES = frozenset(name.strip() for name in _COLUMNS.split(","))
# columns a Memory record carries as they are stored (evidence is JSON; fingerprint stays here)
_AS_STORED = tuple(sorted(_COLUMN_NAMES - {"evidence", "fingerprint"}))


class ScoreFields(NamedTuple):
    """A row's ranking inputs (see :meth:`MemoryStore.score_fields`)."""

    id: str
    kind: str
    importance: int
    last_seen_at: float
    last_accessed_at: float | None
    expires_at: float | None
    negative: int


def _columns(names: Iterable[str]) -> list[str]:
    """``names`` if every one is a column of ``memories`` (they are spliced into SQL)."""
    names = list(names)
    unknown = [name for name in names if name not in _COLUMN_NAMES]
    if unknown:
        raise ValueError(f"not a column of memories: {', '.join(unknown)}")
    return names


class MemoryStore:
    def __init__(self, path: Path, scopes: Sequence[str]) -> None:
        self.path = path
        self.scopes = tuple(scopes)
        self._prefixes = tuple(ID_PREFIXES[scope] for scope in self.scopes)
        # Public for tests and benchmarks that inspect the file; product code goes
        # through the methods and parts below, never through SQL of its own.
        self.conn = open_db(path, MIGRATIONS, check_same_thread=False)
        self.search = TextSearch(self.conn)
        self.links = LinkTable(self.conn)
        self.events = EventTable(self.conn)
        self.vectors = VectorTable(self.conn)
        self.notes = NotesDigests(self.conn)
        self.access = AccessLog()
        self.transaction = WriteTransaction(self.conn, self.access)

    def owns(self, memory_id: str) -> bool:
        """Ids begin with their scope's letter (see ``write.new_id``)."""
        return memory_id.startswith(self._prefixes)

    def close(self) -> None:
        """Write the queued access counts, then close (a clean shutdown loses none)."""
        try:
            self.flush_access()
        finally:
            self.conn.close()

    def flush_access(self) -> None:
        """Write the queued access counts now (one transaction; nothing when none wait)."""
        if self.access.waiting():
            with self.transaction():
                pass

    # ---- rows -------------------------------------------------------------------------

    def insert(self, row: dict[str, Any], files: Sequence[str], symbols: Sequence[str]) -> None:
        row = dict(row)
        row["evidence"] = dumps(row["evidence"]) if row.get("evidence") is not None else None
        names = ", ".join(_columns(row))
        marks = ", ".join(f":{name}" for name in row)
        with self.transaction():
            self.conn.execute(f"INSERT INTO memories ({names}) VALUES ({marks})", row)
            self.links.add(row["id"], files, symbols)

    def update(self, memory_id: str, **fields: Any) -> None:
        if "evidence" in fields and fields["evidence"] is not None:
            fields["evidence"] = dumps(fields["evidence"])
        assignments = ", ".join(f"{name} = :{name}" for name in _columns(fields))
        self.conn.execute(
            f"UPDATE memories SET {assignments} WHERE id = :_id", {**fields, "_id": memory_id}
        )

    def get(self, memory_id: str) -> Memory | None:
        found = self.load_many([memory_id])
        return found[0] if found else None

    def load_many(self, ids: Sequence[str]) -> list[Memory]:
        """Rows for ``ids`` (in that order) with links and live feedback counts."""
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = {
            r["id"]: r
            for r in self.conn.execute(
                f"SELECT {_COLUMNS} FROM memories WHERE id IN ({marks})", ids
            )
        }
        files = self.links.of("file", ids)
        symbols = self.links.of("symbol", ids)
        negative = dict(
            self.conn.execute(
                f"SELECT memory_id, count(*) FROM feedback WHERE retracted_at IS NULL "
                f"AND memory_id IN ({marks}) GROUP BY memory_id",
                ids,
            ).fetchall()
        )
        result = []
        for memory_id in ids:
            r = rows.get(memory_id)
            if r is None:
                continue
            f_links = files.get(memory_id, [])
            s_links = symbols.get(memory_id, [])
            fields = {name: r[name] for name in _AS_STORED}
            fields["access_count"], fields["last_accessed_at"] = self.access.seen(
                memory_id, r["access_count"], r["last_accessed_at"]
            )
            result.append(
                Memory(
                    **fields,
                    evidence=json.loads(r["evidence"]) if r["evidence"] else None,
                    files=[p for p, _ in f_links],
                    symbols=[s for s, _ in s_links],
                    stale_symbols=[s for s, stale in s_links if stale],
                    stale_files=[p for p, stale in f_links if stale],
                    negative_feedback=int(negative.get(memory_id, 0)),
                )
            )
        return result

    def score_fields(self, ids: Sequence[str]) -> list[ScoreFields]:
        """Just what ranking needs (no links): id, kind, importance, times, live feedback;
        ``last_accessed_at`` includes the queued recalls."""
        if not ids:
            return []
        rows = self.conn.execute(
            "SELECT id, kind, importance, last_seen_at, last_accessed_at, expires_at, "
            "(SELECT count(*) FROM feedback f WHERE f.memory_id = m.id AND f.retracted_at IS NULL)"
            f" FROM memories m WHERE id IN ({','.join('?' * len(ids))})",
            list(ids),
        ).fetchall()
        seen = self.access.seen
        return [
            ScoreFields(r[0], r[1], r[2], r[3], seen(r[0], 0, r[4])[1], r[5], r[6]) for r in rows
        ]

    def consolidation_rows(self, ids: Sequence[str]) -> list[sqlite3.Row]:
        """What the consolidation state machine compares a candidate with."""
        if not ids:
            return []
        return self.conn.execute(
            "SELECT id, kind, key, value, content, fingerprint, source, status, scope "
            f"FROM memories WHERE id IN ({','.join('?' * len(ids))})",
            list(ids),
        ).fetchall()

    def ids(
        self, where: MemoryFilter, order: Order = "recent", limit: int | None = None
    ) -> list[str]:
        """Ids of the rows ``where`` selects, in ``order``."""
        clause, params = where.where()
        sql = f"SELECT id FROM memories WHERE {clause} ORDER BY {ORDER_BY[order]}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [r[0] for r in self.conn.execute(sql, params)]

    def count(self, where: MemoryFilter) -> int:
        clause, params = where.where()
        return int(
            self.conn.execute(f"SELECT count(*) FROM memories WHERE {clause}", params).fetchone()[0]
        )

    def keyed_values(self, kinds: Sequence[str]) -> list[tuple[str, str | None, str]]:
        """(key, value, source) of active keyed memories of ``kinds``, oldest sighting first."""
        rows = self.conn.execute(
            "SELECT key, value, source FROM memories WHERE status = 'active' AND key IS NOT NULL "
            f"AND kind IN ({','.join('?' * len(kinds))}) ORDER BY last_seen_at",
            list(kinds),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def transition(self, where: MemoryFilter, action: str, now: float, **fields: Any) -> int:
        """Set ``fields`` on every row ``where`` selects, log ``action`` for each; how many."""
        clause, params = where.where()
        self.conn.execute(
            "INSERT INTO history(memory_id, at, action, detail) SELECT id, ?, ?, NULL FROM "
            f"memories WHERE {clause}",
            (now, action, *params),
        )
        assignments = ", ".join(f"{name} = ?" for name in _columns(fields))
        return self.conn.execute(
            f"UPDATE memories SET {assignments} WHERE {clause}", (*fields.values(), *params)
        ).rowcount

    def touch(self, ids: Sequence[str], now: float) -> None:
        """Count a recall of ``ids`` (access count up, last accessed now): queued in
        ``access`` for the next write transaction, written now only when the queue is due."""
        self.access.add(ids, now)
        if self.access.due():
            self.flush_access()

    def add_support(self, memory_id: str, task_id: str) -> int:
        """1 if ``task_id`` had not been counted as support for the memory yet, else 0."""
        return self.conn.execute(
            "INSERT OR IGNORE INTO memory_support(memory_id, task_id) VALUES (?, ?)",
            (memory_id, task_id),
        ).rowcount

    def purge(self, ids: Sequence[str], now: float) -> int:
        """Physically delete rows and their history, leaving one ``PURGE`` line per id."""
        with self.transaction():
            for chunk in parameter_batches(ids):
                marks = ",".join("?" * len(chunk))
                self.conn.execute(f"DELETE FROM history WHERE memory_id IN ({marks})", chunk)
                self.conn.execute(f"DELETE FROM memories WHERE id IN ({marks})", chunk)
                self.conn.executemany(
                    "INSERT INTO history(memory_id, at, action, detail) "
                    "VALUES (?, ?, 'PURGE', NULL)",
                    [(v, now) for v in chunk],
                )
        return len(ids)

    # ---- history and feedback ---------------------------------------------------------

    def log(
        self, memory_id: str, at: float, action: str, detail: dict[str, Any] | None = None
    ) -> None:
        self.conn.execute(
            "INSERT INTO history(memory_id, at, action, detail) VALUES (?, ?, ?, ?)",
            (memory_id, at, action, dumps(detail) if detail else None),
        )

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT at, action, detail FROM history WHERE memory_id = ? ORDER BY id", (memory_id,)
        )
        return [
            {
                "at": r["at"],
                "action": r["action"],
                "detail": json.loads(r["detail"]) if r["detail"] else None,
            }
            for r in rows
        ]

    def add_feedback(self, memory_id: str, reason: str | None, at: float) -> None:
        self.conn.execute(
            "INSERT INTO feedback(memory_id, reason, created_at) VALUES (?, ?, ?)",
            (memory_id, reason, at),
        )

    def retract_feedback(self, memory_id: str, at: float) -> int:
        """Retract the live negative feedback on a memory; how many items were retracted."""
        return self.conn.execute(
            "UPDATE feedback SET retracted_at = ? WHERE memory_id = ? AND retracted_at IS NULL",
            (at, memory_id),
        ).rowcount
