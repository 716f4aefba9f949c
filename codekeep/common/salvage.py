"""Repairing a damaged store: keep every row that can still be read, in a fresh file.

SQLite cannot mend a damaged page, but a row lives on one leaf page: reading each table
by rowid ranges (split down to single rows around a damaged page) recovers everything
not on the damaged pages. The rows go into a new file built by the store's own
migrations (so derived structures such as full-text indexes are rebuilt by the store's
triggers), rows left pointing at lost parents are dropped, and the new file takes the
old one's place. The damaged file is kept beside it (``<name>.damaged-<stamp>``) so
nothing the repair could not read is destroyed.

Run it with the store closed (no server on the folder): it replaces the file.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from codekeep.common.sqlite import BUSY_TIMEOUT_MS, damaged_file, is_damage, open_db

CHUNK_ROWS = 1024


@dataclass(slots=True)
class SalvageReport:
    """What the repair kept and lost, per table, and where the damaged file went."""

    path: Path
    kept_as: Path
    rows_kept: dict[str, int] = field(default_factory=dict)
    rows_lost: dict[str, int] = field(default_factory=dict)  # -1: the table was unreadable
    orphans_dropped: int = 0

    def summary(self) -> str:
        kept = sum(self.rows_kept.values())
        lost_tables = sorted(t for t, n in self.rows_lost.items() if n)
        lost = (
            f"; unreadable rows in {', '.join(lost_tables)}" if lost_tables else "; nothing lost"
        )
        return (f"repaired {self.path}: kept {kept} rows{lost}; the damaged file is kept as "
                f"{self.kept_as.name}")


def salvage(path: Path, migrations: Sequence[str]) -> SalvageReport:
    """Replace the damaged database at ``path`` by a fresh one holding its readable rows."""
    fresh_path = path.with_name(f"{path.name}.repairing")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{fresh_path}{suffix}").unlink(missing_ok=True)
    kept_as = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    report = SalvageReport(path, kept_as)
    source = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
    fresh = open_db(fresh_path, migrations)
    try:
        fresh.execute("PRAGMA foreign_keys = OFF")
        fresh.execute("BEGIN")
        for table, rowid in _plain_tables(fresh):
            _copy_table(source, fresh, table, rowid, report)
        report.orphans_dropped = _drop_orphans(fresh)
        fresh.execute("COMMIT")
        fresh.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        fresh.close()
        source.close()
    path.rename(kept_as)
    for suffix in ("-wal", "-shm"):
        stale = Path(f"{path}{suffix}")
        if stale.exists():
            stale.rename(Path(f"{kept_as}{suffix}"))
        Path(f"{fresh_path}{suffix}").unlink(missing_ok=True)
    fresh_path.rename(path)
    return report


def repair_damaged(paths: Sequence[Path], migrations: Sequence[str]) -> list[SalvageReport]:
    """Salvage each file of ``paths`` that fails its check; the reports of those repaired."""
    return [salvage(path, migrations) for path in paths if damaged_file(path)]


def _plain_tables(conn: sqlite3.Connection) -> list[tuple[str, bool]]:
    """Ordinary tables of the fresh schema (virtual tables and their shadow tables are
    the store's derived indexes: its triggers rebuild them) and whether each has rowids."""
    rows = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).fetchall()
    virtual = [name for name, sql in rows if sql.upper().startswith("CREATE VIRTUAL")]
    return [
        (name, "WITHOUT ROWID" not in sql.upper())
        for name, sql in rows
        if name not in virtual and not any(name.startswith(f"{v}_") for v in virtual)
    ]


def _copy_table(source: sqlite3.Connection, fresh: sqlite3.Connection, table: str,
                rowid: bool, report: SalvageReport) -> None:
    fresh_columns = [r[1] for r in fresh.execute(f'PRAGMA table_info("{table}")')]
    try:
        source_columns = {r[1] for r in source.execute(f'PRAGMA table_info("{table}")')}
    except sqlite3.DatabaseError:
        source_columns = set()
    columns = [c for c in fresh_columns if c in source_columns]
    if not columns:
        report.rows_lost[table] = -1
        return
    names = ", ".join(f'"{c}"' for c in columns)
    if rowid:
        rows, lost = _rows_by_rowid(source, table, names)
        names = f"rowid, {names}"
    else:
        rows, lost = _rows_by_scan(source, table, names)
    marks = ", ".join("?" * (len(columns) + (1 if rowid else 0)))
    fresh.executemany(f'INSERT OR IGNORE INTO "{table}" ({names}) VALUES ({marks})', rows)
    report.rows_kept[table] = len(rows)
    report.rows_lost[table] = lost


def _rows_by_rowid(source: sqlite3.Connection, table: str, names: str
                   ) -> tuple[list[tuple[object, ...]], int]:
    """Every readable row, reading rowid ranges and narrowing around damaged pages."""
    try:
        low, high = source.execute(f'SELECT min(rowid), max(rowid) FROM "{table}"').fetchone()
    except sqlite3.DatabaseError as error:
        if not is_damage(error):
            raise
        return _rows_by_scan(source, table, f"rowid, {names}")
    if low is None:
        return [], 0
    rows: list[tuple[object, ...]] = []
    lost = 0
    pending = [(start, min(start + CHUNK_ROWS - 1, int(high)))
               for start in range(int(low), int(high) + 1, CHUNK_ROWS)]
    while pending:
        start, end = pending.pop()
        try:
            rows.extend(tuple(r) for r in source.execute(
                f'SELECT rowid, {names} FROM "{table}" WHERE rowid BETWEEN ? AND ?',
                (start, end)))
        except sqlite3.DatabaseError as error:
            if not is_damage(error):
                raise
            if start == end:
                lost += 1
                continue
            middle = (start + end) // 2
            pending += [(start, middle), (middle + 1, end)]
    return rows, lost


def _rows_by_scan(source: sqlite3.Connection, table: str, names: str
                  ) -> tuple[list[tuple[object, ...]], int]:
    """The rows a plain scan reads before it meets damage (tables without rowids)."""
    rows: list[tuple[object, ...]] = []
    try:
        for row in source.execute(f'SELECT {names} FROM "{table}"'):
            rows.append(tuple(row))
    except sqlite3.DatabaseError as error:
        if not is_damage(error):
            raise
        return rows, 1
    return rows, 0


def _drop_orphans(conn: sqlite3.Connection) -> int:
    """Delete rows whose parent row was lost (what ``foreign_key_check`` reports)."""
    dropped = 0
    for table, row_id, _parent, _fk in conn.execute("PRAGMA foreign_key_check").fetchall():
        if row_id is not None:
            conn.execute(f'DELETE FROM "{table}" WHERE rowid = ?', (row_id,))
            dropped += 1
    return dropped
