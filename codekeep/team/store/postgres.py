"""Connecting to the team database: one-line reasons for every way it can fail, and
forward migrations under an advisory lock.

A connection is opened on first use and kept; any failure closes it (the next
operation reconnects), so a database that went away and came back is simply used
again. Every operation is one transaction: it commits whole or not at all.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import psycopg
from psycopg import conninfo

from codekeep.team.backoff import Backoff
from codekeep.team.errors import TeamError
from codekeep.team.schema import MIGRATIONS, SCHEMA_TABLE

CONNECT_TIMEOUT_S = 5.0
_MIGRATION_LOCK = 0x636B7465616D  # "ckteam": serialises migrations of concurrent members
_SCHEMES = ("postgresql", "postgres")

T = TypeVar("T")


def check_dsn(dsn: str) -> None:
    """Refuse a DSN that is not a PostgreSQL connection string, before any network use."""
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", dsn)
    if scheme and scheme.group(1).lower() not in _SCHEMES:
        raise TeamError(
            f"the team DSN is not a PostgreSQL connection string (scheme {scheme.group(1)!r}; "
            "use postgresql://user:password@host:port/database)"
        )
    try:
        conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError as exc:
        reason = f"the team DSN is not a PostgreSQL connection string: {_line(exc)}"
        raise TeamError(reason) from None


def _line(exc: BaseException) -> str:
    """The first meaningful line of a driver error (libpq's are multi-line)."""
    for line in str(exc).splitlines():
        line = line.strip()
        if line:
            return line
    return type(exc).__name__


def _reason(exc: BaseException, where: str) -> str:
    text = str(exc)
    if "password authentication failed" in text or "authentication failed" in text:
        return f"the team database at {where} refused the credentials (authentication failed)"
    if "does not exist" in text and "database" in text:
        return f"the team database at {where}: {_line(exc)}"
    if "Connection refused" in text or "could not connect" in text:
        return f"the team database at {where} is not reachable (connection refused)"
    if "timeout" in text.lower():
        return f"the team database at {where} did not answer in time"
    return f"the team database at {where} failed: {_line(exc)}"


def _where(dsn: str) -> str:
    """host:port/database of a DSN, never its password."""
    try:
        parts = conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return "?"
    host = parts.get("host") or "localhost"
    port = parts.get("port") or "5432"
    return f"{host}:{port}/{parts.get('dbname') or parts.get('user') or ''}"


class TeamDatabase:
    """A lazily opened, self-healing connection to the team database.

    ``backoff`` remembers a failure: an *implicit* operation (``run(..., implicit=True)``:
    recall's team half, the background sender) inside its window fails at once with the
    last reason instead of paying another connect timeout.
    """

    def __init__(
        self,
        dsn: str,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
        backoff: Backoff | None = None,
    ) -> None:
        check_dsn(dsn)
        self.dsn = dsn
        self.where = _where(dsn)
        self.connect_timeout_s = connect_timeout_s
        self.backoff = backoff or Backoff(None)
        self._conn: psycopg.Connection | None = None
        self._lock = threading.Lock()  # one operation at a time on the connection

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            finally:
                self._conn = None

    def _connect(self) -> psycopg.Connection:
        if self._conn is None or self._conn.closed:
            # libpq takes whole seconds (and treats 1 as 2)
            timeout = max(2, round(self.connect_timeout_s))
            conn = psycopg.connect(self.dsn, connect_timeout=timeout)
            try:
                migrate(conn)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    @contextmanager
    def transaction(self, *, implicit: bool = False) -> Iterator[psycopg.Connection]:
        """One transaction on the shared connection; any driver failure is a TeamError.

        A failure to reach the database (not one of a statement) starts or extends the
        backoff; any completed transaction clears it.
        """
        if implicit and self._conn is None:
            waiting = self.backoff.waiting()
            if waiting:
                raise TeamError(waiting)
        with self._lock:
            try:
                conn = self._connect()
                with conn.transaction():
                    yield conn
            except TeamError as exc:
                self._drop()
                self.backoff.failed(str(exc))
                raise
            except psycopg.OperationalError as exc:
                self._drop()
                reason = _reason(exc, self.where)
                self.backoff.failed(reason)
                raise TeamError(reason) from None
            except psycopg.Error as exc:
                self._drop()
                raise TeamError(_reason(exc, self.where)) from None
        self.backoff.succeeded()

    def run(self, body: Callable[[psycopg.Connection], T], *, implicit: bool = False) -> T:
        with self.transaction(implicit=implicit) as conn:
            return body(conn)


def schema_version(conn: psycopg.Connection) -> int:
    conn.execute(SCHEMA_TABLE)
    row = conn.execute("SELECT version FROM codekeep_team_schema").fetchone()
    return 0 if row is None else int(row[0])


def migrate(conn: psycopg.Connection, upto: int | None = None) -> int:
    """Apply the missing migrations (all, or the first ``upto``); the version now.

    Refuses a schema newer than this CodeKeep knows, changing nothing.
    """
    target = len(MIGRATIONS) if upto is None else upto
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        version = schema_version(conn)
        if version > len(MIGRATIONS):
            raise TeamError(
                f"the team database has schema version {version}, newer than this CodeKeep's "
                f"{len(MIGRATIONS)}: upgrade CodeKeep to use it"
            )
        for index in range(version, target):
            conn.execute(MIGRATIONS[index])
        if target > version:
            conn.execute(
                "INSERT INTO codekeep_team_schema (one, version) VALUES (true, %s) "
                "ON CONFLICT (one) DO UPDATE SET version = EXCLUDED.version",
                (target,),
            )
            return target
    return version
