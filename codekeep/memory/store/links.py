"""The links between memories and code: ``memory_files`` (paths) and ``memory_symbols``.

A link can be *stale* (its file or symbol vanished from the code map): recall still
finds the memory and shows the flag; the link comes back to life when the code does.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from codekeep.common.sqlite import like_escape, parameter_batches
from codekeep.common.symbol_id import SEPARATOR, file_prefix, prefix_range

Link = Literal["file", "symbol"]
_TABLES: dict[Link, tuple[str, str]] = {
    "file": ("memory_files", "path"),
    "symbol": ("memory_symbols", "symbol_id"),
}


class LinkTable:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def add(self, memory_id: str, files: Iterable[str], symbols: Iterable[str]) -> None:
        self._conn.executemany(
            "INSERT OR IGNORE INTO memory_files(memory_id, path) VALUES (?, ?)",
            [(memory_id, f) for f in files],
        )
        self._conn.executemany(
            "INSERT OR IGNORE INTO memory_symbols(memory_id, symbol_id) VALUES (?, ?)",
            [(memory_id, s) for s in symbols],
        )

    def of(self, link: Link, ids: Sequence[str]) -> dict[str, list[tuple[str, int]]]:
        """memory id -> [(linked name, stale flag)], names in order."""
        table, column = _TABLES[link]
        links: dict[str, list[tuple[str, int]]] = {}
        for r in self._conn.execute(
            f"SELECT memory_id, {column}, stale FROM {table} "
            f"WHERE memory_id IN ({','.join('?' * len(ids))}) ORDER BY {column}",
            list(ids),
        ):
            links.setdefault(r[0], []).append((r[1], r[2]))
        return links

    def linked(
        self, files: Sequence[str], symbols: Sequence[str], statuses: Sequence[str], limit: int
    ) -> list[tuple[str, int]]:
        """(id, number of matching links) for memories tied to these files or symbols."""
        parts: list[str] = []
        params: list[Any] = []
        for path in files:
            # the file itself, anything under it (a directory), the same file named by its
            # tail ("billing.py" for "app/billing.py"), and symbols defined in it
            path = path.rstrip("/")
            tail = "%/" + like_escape(path)
            parts.append(
                "SELECT memory_id FROM memory_files WHERE path = ? OR (path >= ? AND path < ?) "
                "OR path LIKE ? ESCAPE '\\' UNION ALL SELECT memory_id FROM memory_symbols "
                "WHERE (symbol_id >= ? AND symbol_id < ?) OR symbol_id LIKE ? ESCAPE '\\'"
            )
            params += [path, *prefix_range(path + "/"), tail]
            params += [*prefix_range(file_prefix(path)), f"{tail}{SEPARATOR}%"]
        for symbol in symbols:
            parts.append("SELECT memory_id FROM memory_symbols WHERE symbol_id = ?")
            params.append(symbol)
        if not parts:
            return []
        union = " UNION ALL ".join(parts)
        sql = (
            f"SELECT l.memory_id, count(*) AS hits FROM ({union}) l JOIN memories m ON m.id "
            "= l.memory_id "
            f"WHERE m.status IN ({','.join('?' * len(statuses))}) GROUP BY l.memory_id "
            f"ORDER BY hits DESC, m.importance DESC LIMIT {int(limit)}"
        )
        return [(r[0], int(r[1])) for r in self._conn.execute(sql, [*params, *statuses])]

    def linked_by_name(
        self, name: str, statuses: Sequence[str], limit: int
    ) -> list[tuple[str, int]]:
        """Memories linked to a symbol called ``name`` (any container) or a file of that stem."""
        escaped = like_escape(name)
        sql = (
            "SELECT l.memory_id, count(*) FROM ("
            "SELECT memory_id FROM memory_symbols WHERE symbol_id = ? OR symbol_id LIKE ? "
            "ESCAPE '\\' "
            "OR symbol_id LIKE ? ESCAPE '\\' "
            "UNION ALL SELECT memory_id FROM memory_files WHERE path LIKE ? ESCAPE '\\') l "
            "JOIN memories m ON m.id = l.memory_id WHERE m.status IN "
            f"({','.join('?' * len(statuses))}) "
            f"GROUP BY l.memory_id LIMIT {int(limit)}"
        )
        params = [name, f"%{SEPARATOR}{escaped}", f"%.{escaped}", f"%{escaped}.%", *statuses]
        return [(r[0], int(r[1])) for r in self._conn.execute(sql, params)]

    def counts_for_symbols(
        self, symbol_ids: Sequence[str], statuses: Sequence[str]
    ) -> dict[str, int]:
        """How many memories in ``statuses`` are linked to each of ``symbol_ids``."""
        counts: dict[str, int] = {}
        ids = list(dict.fromkeys(symbol_ids))
        for chunk in parameter_batches(ids):
            rows = self._conn.execute(
                "SELECT s.symbol_id, count(*) FROM memory_symbols s JOIN memories m ON "
                "m.id = s.memory_id "
                f"WHERE s.symbol_id IN ({','.join('?' * len(chunk))}) "
                f"AND m.status IN ({','.join('?' * len(statuses))}) GROUP BY s.symbol_id",
                (*chunk, *statuses),
            )
            for symbol_id, count in rows:
                counts[symbol_id] = int(count)
        return counts

    def names_under(self, link: Link, prefix: str) -> list[str]:
        """Linked names equal to ``prefix`` or below it: files under a directory, symbols
        defined in a file or anywhere under a directory (prefix queries on the index)."""
        table, column = _TABLES[link]
        starts = [prefix + "/"] + ([file_prefix(prefix)] if link == "symbol" else [])
        ranges = " OR ".join(f"({column} >= ? AND {column} < ?)" for _ in starts)
        bounds = [bound for start in starts for bound in prefix_range(start)]
        return [
            r[0]
            for r in self._conn.execute(
                f"SELECT DISTINCT {column} FROM {table} WHERE {column} = ? OR {ranges}",
                (prefix, *bounds),
            )
        ]

    def move(self, link: Link, old: str, new: str) -> list[str]:
        """Point the links to ``old`` at ``new`` (a memory already linked to both keeps one
        row); the ids of the memories whose link moved."""
        table, column = _TABLES[link]
        moved = [
            r[0]
            for r in self._conn.execute(
                f"SELECT memory_id FROM {table} WHERE {column} = ?", (old,)
            ).fetchall()
        ]
        for memory_id in moved:
            self._conn.execute(
                f"INSERT OR IGNORE INTO {table}(memory_id, {column}, stale) VALUES (?, ?, 0)",
                (memory_id, new),
            )
            self._conn.execute(
                f"DELETE FROM {table} WHERE memory_id = ? AND {column} = ?", (memory_id, old)
            )
        return moved

    def mark(self, link: Link, names: Sequence[str], *, stale: bool) -> int:
        """Set (or clear) the stale flag of the links to ``names``; how many links changed."""
        if not names:
            return 0
        table, column = _TABLES[link]
        return self._conn.execute(
            f"UPDATE {table} SET stale = ? WHERE stale = ? "
            f"AND {column} IN ({','.join('?' * len(names))})",
            (int(stale), int(not stale), *names),
        ).rowcount
