"""Digest of everything a code-map index holds: prints ONE JSON object.

For checking that a change to the indexing pipeline keeps the index's contents: index
a tree before and after the change and compare the two outputs (``diff``). Per table
(``files``, ``symbols``, ``refs`` with their encoded spans, ``imports``, every other
table, the schema and ``user_version``) it gives the row count and a hash of the rows
sorted, with row ids replaced by file paths (ids depend on the order results arrive
in); ``symbol_order`` is each file's symbols in insertion order. The walk's listing
times (``time_ns`` values) differ from run to run by design and are left out.

Usage: ``python bench/index_digest.py TREE/.codekeep/index.db``.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from collections.abc import Iterable
from typing import Any

_TIME_NS = 10**18  # a listing time: nanoseconds since 1970 are past this


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _untimed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_untimed(item) for item in value]
    return 0 if isinstance(value, int) and value > _TIME_NS else value


def digest(path: str) -> dict[str, tuple[int, str]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    paths = dict(conn.execute("SELECT id, path FROM files"))
    out: dict[str, tuple[int, str]] = {}

    def put(name: str, rows: Iterable[Any]) -> None:
        ordered = sorted(rows, key=repr)
        out[name] = (len(ordered), hashlib.sha256(repr(ordered).encode()).hexdigest()[:16])

    def columns(table: str, skip: tuple[str, ...]) -> str:
        return ", ".join(row[1] for row in conn.execute(f"PRAGMA table_info({table})")
                         if row[1] not in skip)

    put("schema", conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    put("user_version", [conn.execute("PRAGMA user_version").fetchone()])
    put("files", conn.execute(f"SELECT {columns('files', ('id',))} FROM files"))
    put("symbols", [(paths[row[0]], *row[1:]) for row in conn.execute(
        f"SELECT file_id, {columns('symbols', ('id', 'file_id'))} FROM symbols")])
    put("refs", [(name, paths[file_id], spans) for name, file_id, spans in
                 conn.execute("SELECT name, file_id, spans FROM refs")])
    put("imports", [(paths[file_id], facts) for file_id, facts in
                    conn.execute("SELECT file_id, facts FROM imports")])
    others = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name "
                          "NOT IN ('files', 'symbols', 'refs', 'imports')").fetchall()
    for (table,) in others:
        rows = conn.execute(f"SELECT * FROM {table}").fetchall()
        if table == "walk_listings":
            rows = [json.dumps(_untimed(json.loads(state)), sort_keys=True)
                    for _id, state in rows]
        put(table, rows)
    put("symbol_order", [(path, tuple(name for (name,) in conn.execute(
        "SELECT name FROM symbols WHERE file_id = ? ORDER BY id", (file_id,))))
        for file_id, path in paths.items()])
    conn.close()
    return out


if __name__ == "__main__":
    print(json.dumps(digest(sys.argv[1])))
