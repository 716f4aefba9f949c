"""Two processes writing one index (a language server and an MCP server on one
workspace): a write transaction that read first must wait its turn, not fail with
"database is locked" because the other writer committed in between."""

from __future__ import annotations

import threading
from pathlib import Path

from codekeep.analysis.store import IndexStore


def test_a_read_then_write_transaction_waits_for_the_other_writer(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    setup = IndexStore(path)
    setup.conn.execute("CREATE TABLE probe (who TEXT)")
    setup.close()
    has_read, errors = threading.Event(), []

    def slow_writer() -> None:  # reads, lets the other writer try, then writes
        store = IndexStore(path)
        try:
            with store.transaction():
                store.conn.execute("SELECT count(*) FROM probe").fetchone()
                has_read.set()
                threading.Event().wait(0.3)
                store.conn.execute("INSERT INTO probe VALUES ('slow')")
        except Exception as error:
            errors.append(error)
        finally:
            store.close()

    def quick_writer() -> None:
        has_read.wait(5)
        store = IndexStore(path)
        try:
            with store.transaction():
                store.conn.execute("INSERT INTO probe VALUES ('quick')")
        except Exception as error:
            errors.append(error)
        finally:
            store.close()

    threads = [threading.Thread(target=slow_writer), threading.Thread(target=quick_writer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    check = IndexStore(path)
    rows = sorted(row[0] for row in check.conn.execute("SELECT who FROM probe"))
    check.close()
    assert errors == []
    assert rows == ["quick", "slow"]
