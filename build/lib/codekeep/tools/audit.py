"""The audit log: who called which tool, when, with what (secrets redacted), and how it ended.

Lives in ``<workspace>/.codekeep/audit.db`` so that refused and dangerous attempts
stay inspectable after the session ends.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codekeep.common.secrets import redact_value
from codekeep.common.sqlite import open_db
from codekeep.common.workspace import state_dir

AUDIT_DB = "audit.db"
KEEP_DAYS = 90  # long enough to investigate an incident, short enough to stay small
MIGRATIONS = (
    """
    CREATE TABLE audit (
        id INTEGER PRIMARY KEY,
        ts REAL NOT NULL,
        task_id TEXT,
        actor TEXT NOT NULL,
        tool TEXT NOT NULL,
        arguments TEXT NOT NULL,
        outcome TEXT NOT NULL,
        rule TEXT,
        reason TEXT,
        duration_ms REAL NOT NULL,
        call_id TEXT
    );
    CREATE INDEX audit_task ON audit(task_id, ts);
    CREATE INDEX audit_outcome ON audit(outcome, ts);
    """,
)


@dataclass(frozen=True, slots=True)
class AuditEntry:
    ts: float
    task_id: str | None
    actor: str
    tool: str
    arguments: Any
    outcome: str
    rule: str | None
    reason: str | None
    duration_ms: float
    call_id: str | None


def _text(value: str | None) -> str | None:
    """Text SQLite can store even when a model sent undecodable bytes (lone surrogates)."""
    return None if value is None else value.encode("utf-8", "backslashreplace").decode("utf-8")


class AuditLog:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._lock = threading.Lock()

    @classmethod
    def open(cls, root: Path, keep_days: float = KEEP_DAYS) -> AuditLog:
        """Open ``.codekeep/audit.db``, dropping entries older than ``keep_days``."""
        log = cls(open_db(state_dir(root) / AUDIT_DB, MIGRATIONS, check_same_thread=False))
        log.prune(time.time() - keep_days * 86_400)
        return log

    def prune(self, before: float) -> int:
        """Delete entries older than the ``before`` timestamp; returns how many went."""
        with self._lock:
            return self._conn.execute("DELETE FROM audit WHERE ts < ?", (before,)).rowcount

    def record(
        self,
        *,
        task_id: str | None,
        actor: str,
        tool: str,
        arguments: Any,
        outcome: str,
        rule: str | None,
        reason: str | None,
        duration_ms: float,
        call_id: str | None = None,
    ) -> None:
        """Append one entry; arguments are redacted here so no caller can forget to."""
        payload = json.dumps(redact_value(arguments), default=str)  # ASCII: lone surrogates survive
        with self._lock:
            self._conn.execute(
                "INSERT INTO audit (ts, task_id, actor, tool, arguments, outcome, rule, reason, "
                "duration_ms, call_id) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    time.time(),
                    task_id,
                    actor,
                    _text(tool),
                    payload,
                    outcome,
                    rule,
                    _text(reason),
                    duration_ms,
                    call_id,
                ),
            )

    def entries(
        self, *, task_id: str | None = None, outcome: str | None = None, limit: int = 1000
    ) -> list[AuditEntry]:
        clauses, params = [], []
        if task_id is not None:
            clauses.append("task_id = ?")
            params.append(task_id)
        if outcome is not None:
            clauses.append("outcome = ?")
            params.append(outcome)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._lock:
            rows = self._conn.execute(
                f"SELECT * FROM audit {where} ORDER BY id LIMIT ?", (*params, limit)
            ).fetchall()
        return [
            AuditEntry(
                ts=row["ts"],
                task_id=row["task_id"],
                actor=row["actor"],
                tool=row["tool"],
                arguments=json.loads(row["arguments"]),
                outcome=row["outcome"],
                rule=row["rule"],
                reason=row["reason"],
                duration_ms=row["duration_ms"],
                call_id=row["call_id"],
            )
            for row in rows
        ]

    def close(self) -> None:
        with self._lock:
            self._conn.close()
