"""Keeping memory links true to the code map's live changes (seed 004 §7.4).

``apply_code_changes`` takes the code map's ``ChangeSet`` duck-typed — memory must not
import ``codekeep.analysis``. Used attributes (all optional): ``renamed_files:
[(old, new)]``, ``symbol_renames: {old_id: new_id}``, ``deleted_files: [path]``,
``removed`` / ``added``: objects with ``.id`` and ``.path``. Renames and moves rewrite
links; a vanished symbol or file marks the link *stale* (recall shows the flag); a
symbol or file that comes back clears it.
"""

from __future__ import annotations

from typing import Any

from codekeep.memory.store import MemoryStore


def _rename_prefix(old: str, new: str, value: str) -> str | None:
    if value == old:
        return new
    for separator in ("/", "::"):
        if value.startswith(old + separator):
            return new + value[len(old) :]
    return None


def _rewrite(
    store: MemoryStore, table: str, column: str, rewrite: dict[str, str], now: float
) -> int:
    """Move link rows to their new names; a memory already linked to the new name keeps one row."""
    moved = 0
    for old, new in rewrite.items():
        rows = store.conn.execute(
            f"SELECT memory_id FROM {table} WHERE {column} = ?", (old,)
        ).fetchall()
        for (memory_id,) in rows:
            store.conn.execute(
                f"INSERT OR IGNORE INTO {table}(memory_id, {column}, stale) VALUES (?, ?, 0)",
                (memory_id, new),
            )
            store.conn.execute(
                f"DELETE FROM {table} WHERE memory_id = ? AND {column} = ?", (memory_id, old)
            )
            store.log(memory_id, now, "RELINK", {column: [old, new]})
            moved += 1
    return moved


def _names_under(store: MemoryStore, table: str, column: str, prefix: str) -> list[str]:
    return [
        r[0]
        for r in store.conn.execute(
            f"SELECT DISTINCT {column} FROM {table} "
            f"WHERE {column} = ? OR substr({column}, 1, ?) IN (?, ?)",
            (prefix, len(prefix) + 1, prefix + "/", prefix + ":"),
        )
    ]


def apply_changes(store: MemoryStore, changes: Any, now: float) -> dict[str, int]:
    renamed_files = list(getattr(changes, "renamed_files", None) or [])
    symbol_renames = dict(getattr(changes, "symbol_renames", None) or {})
    deleted_files = list(getattr(changes, "deleted_files", None) or [])
    added = list(getattr(changes, "added", None) or [])
    removed = list(getattr(changes, "removed", None) or [])
    stats = {"relinked": 0, "stale": 0, "restored": 0}
    with store.transaction():
        for old, new in renamed_files:
            paths = {
                p: _rename_prefix(old, new, p)
                for p in _names_under(store, "memory_files", "path", old)
            }
            stats["relinked"] += _rewrite(
                store, "memory_files", "path", {k: v for k, v in paths.items() if v}, now
            )
            symbols = {
                s: _rename_prefix(old, new, s)
                for s in _names_under(store, "memory_symbols", "symbol_id", old)
            }
            symbol_renames.update(
                {k: v for k, v in symbols.items() if v and k not in symbol_renames}
            )
        stats["relinked"] += _rewrite(store, "memory_symbols", "symbol_id", symbol_renames, now)

        added_ids = {s.id for s in added}
        gone = [s.id for s in removed if s.id not in added_ids and s.id not in symbol_renames]
        for path in deleted_files:
            under = _names_under(store, "memory_files", "path", path.rstrip("/"))
            stats["stale"] += _mark(store, "memory_files", "path", under, stale=True)
            gone += _names_under(store, "memory_symbols", "symbol_id", path)
        stats["stale"] += _mark(store, "memory_symbols", "symbol_id", gone, stale=True)
        back = sorted(added_ids)
        stats["restored"] += _mark(store, "memory_symbols", "symbol_id", back, stale=False)
        back_paths = sorted({str(s.path) for s in added if getattr(s, "path", None)})
        stats["restored"] += _mark(store, "memory_files", "path", back_paths, stale=False)
    return stats


def _mark(store: MemoryStore, table: str, column: str, names: list[str], *, stale: bool) -> int:
    """Set (or clear) the stale flag of the links to ``names``; how many links changed."""
    if not names:
        return 0
    return store.conn.execute(
        f"UPDATE {table} SET stale = ? WHERE stale = ? "
        f"AND {column} IN ({','.join('?' * len(names))})",
        (int(stale), int(not stale), *names),
    ).rowcount
