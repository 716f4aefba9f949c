"""Damaging a real SQLite file the way a bad disk or a torn write does: bytes over a page.

The page is the root page of one table or index (never page 1, the header), so the file
still opens and only what lives on that page is lost.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path


def damage_page_of(database: Path, table: str) -> int:
    """Overwrite the root page of ``table`` in ``database`` with garbage; its number."""
    conn = sqlite3.connect(database)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the page's bytes live in the file
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        (root,) = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    finally:
        conn.close()
    assert root > 1, "page 1 is the header; damage a table page"
    with database.open("r+b") as handle:
        handle.seek(page_size * (root - 1))
        handle.write(b"\xde\xad\xbe\xef" * (page_size // 4))
    return int(root)
