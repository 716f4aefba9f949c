"""The member's local outbox (``.codekeep/team_outbox.db``): ledger records waiting for
the team database.

A record is queued in the same process that wrote it to the local ledger and leaves
the outbox only after the team database committed the batch holding it. A crash
between that commit and the local delete re-sends the batch, which the team's
``(member, id)`` key turns into no change: nothing acknowledged is lost, nothing is
counted twice.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codekeep.common.sqlite import WriteTransaction, open_db

MIGRATIONS = [
    """
    CREATE TABLE outbox (
        id TEXT PRIMARY KEY,
        payload TEXT NOT NULL
    );
    """
]


class Outbox:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = open_db(path, MIGRATIONS, check_same_thread=False)
        self._transaction = WriteTransaction(self._db)
        self._lock = threading.Lock()

    def close(self) -> None:
        self._db.close()

    def put(self, records: Sequence[dict[str, Any]]) -> None:
        """Queue records (each with an ``id``); a record queued twice is kept once."""
        with self._lock, self._transaction():
            self._db.executemany(
                "INSERT OR IGNORE INTO outbox(id, payload) VALUES (?, ?)",
                [(r["id"], json.dumps(r, sort_keys=True)) for r in records],
            )

    def peek(self, limit: int) -> list[dict[str, Any]]:
        """The oldest ``limit`` queued records."""
        with self._lock:
            rows = self._db.execute(
                "SELECT payload FROM outbox ORDER BY rowid LIMIT ?", (limit,)
            ).fetchall()
        return [json.loads(r[0]) for r in rows]

    def remove(self, ids: Sequence[str]) -> None:
        """Forget records the team database acknowledged."""
        with self._lock, self._transaction():
            self._db.executemany("DELETE FROM outbox WHERE id = ?", [(i,) for i in ids])

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM outbox").fetchone()[0])
