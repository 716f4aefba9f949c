"""Keeping memory links true to the code map's live changes.

``apply_code_changes`` takes the code map's ``ChangeSet`` duck-typed — memory must not
import ``codekeep.analysis``. Used attributes (all optional): ``renamed_files:
[(old, new)]``, ``symbol_renames: {old_id: new_id}``, ``deleted_files: [path]``,
``removed`` / ``added``: objects with ``.id`` and ``.path``. Renames and moves rewrite
links; a vanished symbol or file marks the link *stale* (recall shows the flag); a
symbol or file that comes back clears it.
"""

from __future__ import annotations

from typing import Any

from codekeep.common.symbol_id import SymbolId, moved_path
from codekeep.memory.store import Link, MemoryStore


def _moved_symbol(old: str, new: str, symbol_id: str) -> str | None:
    sid = SymbolId.try_parse(symbol_id)
    moved = sid.moved(old, new) if sid else None
    return None if moved is None else str(moved)


def _rewrite(store: MemoryStore, link: Link, rewrite: dict[str, str], now: float) -> int:
    """Move link rows to their new names; a memory already linked to the new name keeps one row."""
    moved = 0
    column = "path" if link == "file" else "symbol_id"
    for old, new in rewrite.items():
        for memory_id in store.links.move(link, old, new):
            store.log(memory_id, now, "RELINK", {column: [old, new]})
            moved += 1
    return moved


def apply_changes(store: MemoryStore, changes: Any, now: float) -> dict[str, int]:
    renamed_files = list(getattr(changes, "renamed_files", None) or [])
    symbol_renames = dict(getattr(changes, "symbol_renames", None) or {})
    deleted_files = list(getattr(changes, "deleted_files", None) or [])
    added = list(getattr(changes, "added", None) or [])
    removed = list(getattr(changes, "removed", None) or [])
    stats = {"relinked": 0, "stale": 0, "restored": 0}
    links = store.links
    with store.transaction():
        for old, new in renamed_files:
            paths = {p: moved_path(p, old, new) for p in links.names_under("file", old)}
            stats["relinked"] += _rewrite(store, "file", {k: v for k, v in paths.items() if v}, now)
            symbols = {s: _moved_symbol(old, new, s) for s in links.names_under("symbol", old)}
            symbol_renames.update(
                {k: v for k, v in symbols.items() if v and k not in symbol_renames}
            )
        stats["relinked"] += _rewrite(store, "symbol", symbol_renames, now)

        added_ids = {s.id for s in added}
        gone = [s.id for s in removed if s.id not in added_ids and s.id not in symbol_renames]
        for path in deleted_files:
            under = links.names_under("file", path.rstrip("/"))
            stats["stale"] += links.mark("file", under, stale=True)
            gone += links.names_under("symbol", path)
        stats["stale"] += links.mark("symbol", gone, stale=True)
        stats["restored"] += links.mark("symbol", sorted(added_ids), stale=False)
        back_paths = sorted({str(s.path) for s in added if getattr(s, "path", None)})
        stats["restored"] += links.mark("file", back_paths, stale=False)
    return stats
