"""The shared memories' SQL, and :class:`TeamStore`: the team database as the write
path's :class:`~codekeep.memory.store.target.WriteTarget`.

The local state machine (ADD / REINFORCE / SUPERSEDE / UPDATE / MERGE / SKIP) and the
feedback methods (forget, confirm, "not this") run unchanged on these rows: the store
only turns their calls into PostgreSQL statements. A write transaction takes one
advisory lock, so the state machine's look-then-decide is atomic across every member
and process writing at once. Every text that crosses into the database (content,
keys, evidence, history details, feedback reasons) is redacted again here, at the
boundary, on top of the write path's own filter. Rows are recorded with the member who
wrote, promoted or judged them.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

import psycopg
from psycopg.rows import dict_row

from codekeep.common.secrets import redact_value
from codekeep.memory.model import ID_PREFIXES, Memory
from codekeep.memory.store.filters import MemoryFilter
from codekeep.memory.text import STOP_WORDS, raw_tokens
from codekeep.team.store.postgres import TeamDatabase

T = TypeVar("T")

TEAM_SCOPE = "team"
_WRITE_LOCK = 0x636B6D656D  # "ckmem": one state-machine decision at a time, team-wide
_MAX_TERMS = 24
ROW_COLUMNS = (
    "m.id, m.kind, m.status, m.key, m.value, m.content, m.fingerprint, m.importance, "
    "m.confidence, m.source, m.evidence, m.files, m.symbols, m.created_by, m.promoted_by, "
    "m.promoted_from, m.support_count, m.access_count, m.created_at, m.last_seen_at, "
    "m.last_accessed_at, m.expires_at, m.superseded_by, (SELECT count(*) FROM "
    "team_memory_feedback f WHERE f.memory_id = m.id AND f.retracted_at IS NULL) AS negative"
)
# columns a Memory carries as the team row stores them
_AS_STORED = (
    "id", "kind", "status", "key", "value", "content", "importance", "confidence", "source",
    "support_count", "access_count", "created_at", "last_seen_at", "last_accessed_at",
    "expires_at", "superseded_by",
)
# columns the write path may set (UPDATE) — spliced into SQL, so checked against this
_UPDATABLE = frozenset({
    "status", "key", "value", "content", "fingerprint", "importance", "confidence",
    "evidence", "support_count", "last_seen_at", "expires_at", "superseded_by",
})
_TEXT = ("key", "value", "content")
_PROMOTING: ContextVar[str | None] = ContextVar("team_promoting", default=None)


def query_terms(text: str) -> list[str]:
    """Distinct words of ``text`` safe to OR together in ``to_tsquery``."""
    words: list[str] = []
    for word in raw_tokens(text):
        if word not in STOP_WORDS and word not in words and word.replace("_", "").isalnum():
            words.append(word)
    return words[:_MAX_TERMS]


def memory_of(row: dict[str, Any]) -> Memory:
    """A team row as the :class:`Memory` every door shows (``author``: who wrote or
    promoted it; ``evidence.promotedFrom``: the local memory it came from)."""
    evidence = dict(row["evidence"] or {})
    if row["promoted_from"]:
        evidence["promotedFrom"] = row["promoted_from"]
    return Memory(
        **{name: row[name] for name in _AS_STORED},
        scope=TEAM_SCOPE,
        evidence=evidence or None,
        files=list(row["files"]),
        symbols=list(row["symbols"]),
        negative_feedback=int(row["negative"]),
        author=row["promoted_by"] or row["created_by"],
    )


# ---- reads (also used by recall, one statement each) -----------------------------------


def search(
    conn: psycopg.Connection,
    words: Sequence[str],
    statuses: Sequence[str],
    kinds: Sequence[str] | None,
    limit: int,
) -> list[tuple[str, float]]:
    """(id, ts_rank) best first for memories containing any of ``words``."""
    if not words:
        return []
    kind_sql, params = ("AND kind = ANY(%s) ", [list(kinds)]) if kinds else ("", [])
    rows = conn.execute(
        "SELECT id, ts_rank(search, q) AS rank FROM team_memories, "
        "to_tsquery('english', %s) AS q WHERE search @@ q AND status = ANY(%s) "
        f"{kind_sql}ORDER BY rank DESC, id LIMIT %s",
        [" | ".join(words), list(statuses), *params, limit],
    ).fetchall()
    return [(str(r[0]), float(r[1])) for r in rows]


def linked(
    conn: psycopg.Connection,
    files: Sequence[str],
    symbols: Sequence[str],
    statuses: Sequence[str],
    limit: int,
) -> list[str]:
    """Ids of memories linked to any of ``files`` or ``symbols``, most recently seen first."""
    if not files and not symbols:
        return []
    rows = conn.execute(
        "SELECT id FROM team_memories WHERE (files ?| %s OR symbols ?| %s) "
        "AND status = ANY(%s) ORDER BY last_seen_at DESC LIMIT %s",
        (list(files), list(symbols), list(statuses), limit),
    ).fetchall()
    return [str(r[0]) for r in rows]


def recent(conn: psycopg.Connection, statuses: Sequence[str], kinds: Sequence[str] | None,
           limit: int) -> list[dict[str, Any]]:
    """Whole rows, most recently seen first."""
    kind_sql, params = ("AND m.kind = ANY(%s) ", [list(kinds)]) if kinds else ("", [])
    with conn.cursor(row_factory=dict_row) as cursor:
        cursor.execute(
            f"SELECT {ROW_COLUMNS} FROM team_memories m WHERE m.status = ANY(%s) "
            f"{kind_sql}ORDER BY m.last_seen_at DESC, m.id LIMIT %s",
            [list(statuses), *params, limit],
        )
        return list(cursor.fetchall())


def load(conn: psycopg.Connection, ids: Sequence[str]) -> list[dict[str, Any]]:
    """Whole rows for ``ids`` (any order)."""
    if not ids:
        return []
    with conn.cursor(row_factory=dict_row) as cursor:
        cursor.execute(
            f"SELECT {ROW_COLUMNS} FROM team_memories m WHERE m.id = ANY(%s)", (list(ids),)
        )
        return list(cursor.fetchall())


def add_accesses(conn: psycopg.Connection, counted: Sequence[tuple[int, float, str]]) -> None:
    """Write queued recalls: (how many, last recalled at, id) rows. Another member may
    have recalled a memory later: the latest time wins."""
    if counted:
        with conn.cursor() as cursor:
            cursor.executemany(
                "UPDATE team_memories SET access_count = access_count + %s, "
                "last_accessed_at = GREATEST(last_accessed_at, %s) WHERE id = %s",
                counted,
            )


def count(conn: psycopg.Connection, statuses: Sequence[str]) -> int:
    row = conn.execute(
        "SELECT count(*) FROM team_memories WHERE status = ANY(%s)", (list(statuses),)
    ).fetchone()
    return int(row[0]) if row else 0


# ---- the write path's target -----------------------------------------------------------


class _TeamSearch:
    """``store.search`` for the state machine's neighbour probe."""

    def __init__(self, store: TeamStore) -> None:
        self._store = store

    def text(
        self, text: str, statuses: Sequence[str], kinds: Sequence[str] | None, limit: int
    ) -> list[tuple[str, float]]:
        words = query_terms(text)
        return self._store.read(lambda conn: search(conn, words, statuses, kinds, limit))

    def document_frequencies(self, words: Sequence[str]) -> dict[str, int]:
        """Unknown here: the probe then ORs any of the words it needs, which finds the same
        neighbours (rarest-first only saves SQLite work on common words' postings)."""
        return {}


class _TeamLinks:
    def __init__(self, store: TeamStore) -> None:
        self._store = store

    def add(self, memory_id: str, files: Iterable[str], symbols: Iterable[str]) -> None:
        files, symbols = list(files), list(symbols)
        if not files and not symbols:
            return

        def body(conn: psycopg.Connection) -> None:
            found = conn.execute(
                "SELECT files, symbols FROM team_memories WHERE id = %s", (memory_id,)
            ).fetchone()
            if found is None:
                return
            merged = [list(dict.fromkeys([*found[0], *files])),
                      list(dict.fromkeys([*found[1], *symbols]))]
            conn.execute(
                "UPDATE team_memories SET files = %s, symbols = %s WHERE id = %s",
                (json.dumps(merged[0]), json.dumps(merged[1]), memory_id),
            )

        self._store.read(body)


class TeamStore:
    """The team's memories, as one member (``member``) writes and reads them."""

    def __init__(self, db: TeamDatabase, member: str) -> None:
        self.db = db
        self.member = member
        self._local = threading.local()  # the open write transaction of this thread
        self._search = _TeamSearch(self)
        self._links = _TeamLinks(self)

    @property
    def search(self) -> _TeamSearch:
        return self._search

    @property
    def links(self) -> _TeamLinks:
        return self._links

    def close(self) -> None:
        self.db.close()

    def owns(self, memory_id: str) -> bool:
        return memory_id.startswith(ID_PREFIXES[TEAM_SCOPE])

    # ---- transactions ---------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """A write transaction holding the team-wide write lock (re-entrant)."""
        conn: psycopg.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            yield conn
            return
        with self.db.transaction() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_WRITE_LOCK,))
            self._local.conn = conn
            try:
                yield conn
            finally:
                self._local.conn = None

    def read(self, body: Callable[[psycopg.Connection], T], *, implicit: bool = False) -> T:
        """``body`` inside this thread's open transaction, else in a transaction of its own."""
        conn: psycopg.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return body(conn)
        return self.db.run(body, implicit=implicit)

    @contextmanager
    def promoting(self, local_id: str) -> Iterator[None]:
        """Writes inside are a promotion of local memory ``local_id``: a new row records
        it and its promoter, and its history says ``PROMOTE``."""
        token = _PROMOTING.set(local_id)
        try:
            yield
        finally:
            _PROMOTING.reset(token)

    # ---- rows -----------------------------------------------------------------------------

    def ids(self, where: MemoryFilter) -> list[str]:
        """Ids ``where`` selects (the fields the write path uses), most recently seen first."""
        unsupported = [
            name for name in ("sources", "task_id", "other_than_task", "last_used_before",
                              "expires_by")
            if getattr(where, name) is not None
        ]
        if unsupported or where.scope not in (None, TEAM_SCOPE):
            raise ValueError(f"the team store cannot filter by {unsupported or ['scope']}")
        parts: list[str] = []
        params: list[Any] = []
        for column, values in (("id", where.ids), ("status", where.statuses),
                               ("kind", where.kinds)):
            if values is not None:
                parts.append(f"{column} = ANY(%s)")
                params.append(list(values))
        for column, value in (("key", where.key), ("fingerprint", where.fingerprint)):
            if value is not None:
                parts.append(f"{column} = %s")
                params.append(value)
        clause = " AND ".join(parts) or "true"
        return self.read(lambda conn: [str(r[0]) for r in conn.execute(
            f"SELECT id FROM team_memories WHERE {clause} ORDER BY last_seen_at DESC, id",
            params,
        ).fetchall()])

    def consolidation_rows(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        if not ids:
            return []

        def body(conn: psycopg.Connection) -> list[dict[str, Any]]:
            with conn.cursor(row_factory=dict_row) as cursor:
                cursor.execute(
                    "SELECT id, kind, key, value, content, fingerprint, source, status, "
                    "'team' AS scope FROM team_memories WHERE id = ANY(%s)",
                    (list(ids),),
                )
                return list(cursor.fetchall())

        return self.read(body)

    def insert(self, row: dict[str, Any], files: Sequence[str], symbols: Sequence[str]) -> None:
        promoted_from = _PROMOTING.get()
        values = (
            row["id"], row["kind"], row["status"], *(redact_value(row[t]) for t in _TEXT),
            row["fingerprint"], row["importance"], float(row["confidence"]), row["source"],
            _json(row.get("evidence")), json.dumps(list(dict.fromkeys(files))),
            json.dumps(list(dict.fromkeys(symbols))), self.member,
            self.member if promoted_from else None, promoted_from, row["created_at"],
            row["last_seen_at"], row.get("expires_at"),
        )
        self.read(lambda conn: conn.execute(
            "INSERT INTO team_memories (id, kind, status, key, value, content, fingerprint, "
            "importance, confidence, source, evidence, files, symbols, created_by, "
            "promoted_by, promoted_from, created_at, last_seen_at, expires_at) VALUES "
            f"({', '.join(['%s'] * len(values))})",
            values,
        ))

    def update(self, memory_id: str, **fields: Any) -> None:
        unknown = set(fields) - _UPDATABLE
        if unknown:
            raise ValueError(f"not a column the write path sets: {', '.join(sorted(unknown))}")
        values = [
            _json(v) if name == "evidence" else redact_value(v) if name in _TEXT else v
            for name, v in fields.items()
        ]
        assignments = ", ".join(f"{name} = %s" for name in fields)
        self.read(lambda conn: conn.execute(
            f"UPDATE team_memories SET {assignments} WHERE id = %s", [*values, memory_id]
        ))

    def get(self, memory_id: str) -> Memory | None:
        found = self.read(lambda conn: load(conn, [memory_id]))
        return memory_of(found[0]) if found else None

    def add_support(self, memory_id: str, task_id: str) -> int:
        return int(self.read(lambda conn: conn.execute(
            "INSERT INTO team_memory_support (memory_id, member, task_id) VALUES (%s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            (memory_id, self.member, task_id),
        ).rowcount))

    # ---- history and feedback -------------------------------------------------------------

    def log(
        self, memory_id: str, at: float, action: str, detail: dict[str, Any] | None = None
    ) -> None:
        promoted_from = _PROMOTING.get()
        if promoted_from and action == "ADD":
            action, detail = "PROMOTE", {**(detail or {}), "promotedFrom": promoted_from}
        self.read(lambda conn: conn.execute(
            "INSERT INTO team_memory_history (memory_id, at, action, member, detail) "
            "VALUES (%s, %s, %s, %s, %s)",
            (memory_id, at, action, self.member, _json(detail)),
        ))

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        rows = self.read(lambda conn: conn.execute(
            "SELECT at, action, member, detail FROM team_memory_history WHERE memory_id = %s "
            "ORDER BY id",
            (memory_id,),
        ).fetchall())
        return [{"at": r[0], "action": r[1], "member": r[2], "detail": r[3]} for r in rows]

    def add_feedback(self, memory_id: str, reason: str | None, at: float) -> None:
        self.read(lambda conn: conn.execute(
            "INSERT INTO team_memory_feedback (memory_id, member, reason, created_at) "
            "VALUES (%s, %s, %s, %s)",
            (memory_id, self.member, redact_value(reason), at),
        ))

    def retract_feedback(self, memory_id: str, at: float) -> int:
        return int(self.read(lambda conn: conn.execute(
            "UPDATE team_memory_feedback SET retracted_at = %s WHERE memory_id = %s "
            "AND retracted_at IS NULL",
            (at, memory_id),
        ).rowcount))


def _json(value: Any) -> str | None:
    """JSON text for a jsonb column, secrets redacted (None stays SQL NULL)."""
    return None if value is None else json.dumps(redact_value(value))
