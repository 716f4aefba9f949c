"""open_db waits for another process's write lock instead of failing at once; write transactions
nest and roll back as one."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from codekeep.common.sqlite import WriteTransaction, open_db


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


def test_opening_a_current_database_does_not_wait_for_a_writer(tmp_path: Path) -> None:
    """A reader (a CLI query while the server writes the index) opens at once: a schema
    that is up to date needs no write lock."""
    path = tmp_path / "index.db"
    schema = ["CREATE TABLE notes(text TEXT);"]
    open_db(path, schema).close()
    writer = open_db(path, schema)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO notes VALUES ('being written')")
    try:
        reader = open_db(path, schema)
        reader.execute("PRAGMA busy_timeout = 0")  # a wait would fail here, not stall
        assert reader.execute("SELECT count(*) FROM notes").fetchone()[0] == 0
        reader.close()
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_write_transaction_nests_and_rolls_back_as_one(tmp_path: Path) -> None:
    conn = open_db(tmp_path / "t.db", ("CREATE TABLE t (x INTEGER);",))
    transaction = WriteTransaction(conn)
    with transaction(), transaction():  # the inner one joins the outer
        conn.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(RuntimeError), transaction():
        conn.execute("INSERT INTO t VALUES (2)")
        with transaction():
            conn.execute("INSERT INTO t VALUES (3)")
        raise RuntimeError("killed mid-change")
    assert [r[0] for r in conn.execute("SELECT x FROM t")] == [1]  # all or none of a change
    with transaction():  # usable again after a rollback
        conn.execute("INSERT INTO t VALUES (4)")
    assert not conn.in_transaction
    assert [r[0] for r in conn.execute("SELECT x FROM t ORDER BY x")] == [1, 4]
