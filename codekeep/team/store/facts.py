"""The shared facts cache's SQL: which entries the team holds, fetching them, publishing
new ones — each a single statement over arrays, so a batch of a thousand keys is one
round trip."""

from __future__ import annotations

import time
from collections.abc import Sequence

import psycopg

Key = tuple[str, str]  # (content hash, kind)
# digest, kind, compressed rows, checksum, published by
FetchedRow = tuple[str, str, bytes, bytes, str]


# The rows of some (digest, kind) keys under one fingerprint, the keys sent as two arrays.
_MATCHING = ("FROM team_facts f JOIN unnest(%s::text[], %s::text[]) AS k(digest, kind) "
             "ON f.digest = k.digest AND f.kind = k.kind WHERE f.fingerprint = %s")


def _matching(conn: psycopg.Connection, columns: str, fingerprint: str,
              keys: Sequence[Key]) -> list[tuple[object, ...]]:
    digests = [digest for digest, _kind in keys]
    kinds = [kind for _digest, kind in keys]
    return conn.execute(f"SELECT {columns} {_MATCHING}",  # (columns: this module's own)
                        (digests, kinds, fingerprint)).fetchall()


def held(conn: psycopg.Connection, fingerprint: str, keys: Sequence[Key]) -> set[Key]:
    """Which of ``keys`` the team database holds an entry for (keys only, no bytes)."""
    return {(str(digest), str(kind))
            for digest, kind in _matching(conn, "f.digest, f.kind", fingerprint, keys)}


def fetch(conn: psycopg.Connection, fingerprint: str, keys: Sequence[Key]) -> list[FetchedRow]:
    rows = _matching(conn, "f.digest, f.kind, f.rows, f.checksum, f.published_by",
                     fingerprint, keys)
    return [(str(d), str(k), bytes(r), bytes(c), str(m))  # type: ignore[call-overload]
            for d, k, r, c, m in rows]


def publish(conn: psycopg.Connection, fingerprint: str, member: str,
            entries: Sequence[tuple[str, str, bytes, bytes]]) -> int:
    """Insert (digest, kind, compressed rows, checksum) entries the team lacks; how many
    were new (one held already, published meanwhile by another member, is kept)."""
    if not entries:
        return 0
    cursor = conn.execute(
        "INSERT INTO team_facts (fingerprint, digest, kind, rows, checksum, published_by, "
        "published_at) SELECT %s, e.digest, e.kind, e.rows, e.checksum, %s, %s "
        "FROM unnest(%s::text[], %s::text[], %s::bytea[], %s::bytea[]) "
        "AS e(digest, kind, rows, checksum) "
        "ON CONFLICT (fingerprint, digest, kind) DO NOTHING",
        (fingerprint, member, time.time(), [e[0] for e in entries], [e[1] for e in entries],
         [e[2] for e in entries], [e[3] for e in entries]),
    )
    return max(0, cursor.rowcount)
