"""open_db waits for another process's write lock instead of failing at once."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from codekeep.common.sqlite import open_db


def test_first_open_waits_while_another_connection_holds_the_write_lock(tmp_path: Path) -> None:
    # Two processes creating the same database at once: switching it to WAL needs the
    # write lock, and SQLite does not call the busy handler for that step — it used to
    # fail with "database is locked" immediately, whatever the busy timeout.
    path = tmp_path / "memory.db"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.3, lambda: writer.execute("COMMIT"))
    release.start()
    try:
        conn = open_db(path, ["CREATE TABLE notes(text TEXT);"])
    finally:
        release.join()
        writer.close()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    conn.close()
