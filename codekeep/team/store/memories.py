"""The shared memories' SQL: insert-or-reinforce by fingerprint, full-text search with
``ts_rank`` over the GIN-indexed ``tsvector``, listings, lookups and the history.

Rows come back as plain dicts; the policy (scoring, what a result looks like) lives in
:mod:`codekeep.team.memory`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.rows import dict_row

ROW_COLUMNS = (
    "id, kind, status, key, value, content, importance, confidence, source, files, symbols, "
    "created_by, promoted_by, promoted_from, support_count, access_count, created_at, "
    "last_seen_at, last_accessed_at"
)


@dataclass(frozen=True, slots=True)
class NewMemory:
    id: str
    kind: str
    status: str
    key: str | None
    value: str | None
    content: str
    fingerprint: str
    importance: int
    confidence: float
    source: str
    files: Sequence[str]
    symbols: Sequence[str]
    member: str
    promoted_from: str | None
    at: float


def upsert(conn: psycopg.Connection, row: NewMemory) -> tuple[str, bool]:
    """(id of the live row holding this meaning, whether it is new).

    The live-fingerprint unique index decides, inside the database, between two
    members writing the same thing at once: one inserts, the other reinforces.
    """
    inserted = conn.execute(
        "INSERT INTO team_memories (id, kind, status, key, value, content, fingerprint, "
        "importance, confidence, source, files, symbols, created_by, promoted_by, "
        "promoted_from, created_at, last_seen_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, "
        "%s, %s, %s, %s, %s, %s, %s, %s, %s) "
        "ON CONFLICT (fingerprint) WHERE status IN ('active', 'confirmed_resolved') "
        "DO NOTHING RETURNING id",
        (
            row.id, row.kind, row.status, row.key, row.value, row.content, row.fingerprint,
            row.importance, row.confidence, row.source, json.dumps(list(row.files)),
            json.dumps(list(row.symbols)), row.member,
            row.member if row.promoted_from else None, row.promoted_from, row.at, row.at,
        ),
    ).fetchone()
    if inserted is not None:
        log(conn, row.id, row.at, "PROMOTE" if row.promoted_from else "ADD", row.member,
            {"content": row.content, "source": row.source, "promotedFrom": row.promoted_from})
        return row.id, True
    found = conn.execute(
        "UPDATE team_memories SET support_count = support_count + 1, last_seen_at = %s, "
        "importance = GREATEST(importance, %s) WHERE fingerprint = %s "
        "AND status IN ('active', 'confirmed_resolved') RETURNING id",
        (row.at, row.importance, row.fingerprint),
    ).fetchone()
    if found is None:  # the live row was disabled between the two statements: try again
        return upsert(conn, row)
    log(conn, found[0], row.at, "REINFORCE", row.member, {"candidate": row.content})
    return str(found[0]), False


def log(
    conn: psycopg.Connection,
    memory_id: str,
    at: float,
    action: str,
    member: str,
    detail: dict[str, Any] | None,
) -> None:
    conn.execute(
        "INSERT INTO team_memory_history (memory_id, at, action, member, detail) "
        "VALUES (%s, %s, %s, %s, %s)",
        (memory_id, at, action, member, json.dumps(detail) if detail else None),
    )


def search(
    conn: psycopg.Connection, words: Sequence[str], statuses: Sequence[str], limit: int
) -> list[tuple[str, float]]:
    """(id, ts_rank) best first for memories containing any of ``words``."""
    if not words:
        return []
    query = " | ".join(words)
    rows = conn.execute(
        "SELECT id, ts_rank(search, q) AS rank FROM team_memories, "
        "to_tsquery('english', %s) AS q WHERE search @@ q AND status = ANY(%s) "
        "ORDER BY rank DESC, id LIMIT %s",
        (query, list(statuses), limit),
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
    with conn.cursor(row_factory=dict_row) as cursor:
        if kinds:
            cursor.execute(
                f"SELECT {ROW_COLUMNS} FROM team_memories WHERE status = ANY(%s) "
                "AND kind = ANY(%s) ORDER BY last_seen_at DESC, id LIMIT %s",
                (list(statuses), list(kinds), limit),
            )
        else:
            cursor.execute(
                f"SELECT {ROW_COLUMNS} FROM team_memories WHERE status = ANY(%s) "
                "ORDER BY last_seen_at DESC, id LIMIT %s",
                (list(statuses), limit),
            )
        return list(cursor.fetchall())


def load(conn: psycopg.Connection, ids: Sequence[str]) -> list[dict[str, Any]]:
    """Whole rows for ``ids`` (any order)."""
    if not ids:
        return []
    with conn.cursor(row_factory=dict_row) as cursor:
        cursor.execute(
            f"SELECT {ROW_COLUMNS} FROM team_memories WHERE id = ANY(%s)", (list(ids),)
        )
        return list(cursor.fetchall())


def touch(conn: psycopg.Connection, ids: Sequence[str], at: float) -> None:
    """Count a recall of ``ids``."""
    if ids:
        conn.execute(
            "UPDATE team_memories SET access_count = access_count + 1, last_accessed_at = %s "
            "WHERE id = ANY(%s)",
            (at, list(ids)),
        )


def history(conn: psycopg.Connection, memory_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT at, action, member, detail FROM team_memory_history WHERE memory_id = %s "
        "ORDER BY id",
        (memory_id,),
    ).fetchall()
    return [{"at": r[0], "action": r[1], "member": r[2], "detail": r[3]} for r in rows]


def disable(conn: psycopg.Connection, memory_id: str, at: float, member: str,
            reason: str | None) -> bool:
    """Forget a shared memory (kept for audit, no longer recalled)."""
    done = conn.execute(
        "UPDATE team_memories SET status = 'disabled' WHERE id = %s AND status <> 'disabled' "
        "RETURNING id",
        (memory_id,),
    ).fetchone()
    if done is not None:
        log(conn, memory_id, at, "FORGET", member, {"reason": reason} if reason else None)
    return done is not None


def count(conn: psycopg.Connection, statuses: Sequence[str]) -> int:
    row = conn.execute(
        "SELECT count(*) FROM team_memories WHERE status = ANY(%s)", (list(statuses),)
    ).fetchone()
    return int(row[0]) if row else 0
