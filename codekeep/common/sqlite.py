"""One way to open CodeKeep's SQLite databases: WAL, busy timeout, versioned migrations.

Every store (index, memory, ledger, audit) goes through :func:`open_db` so that the
crash-safety settings and the migration rules are the same everywhere.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol, TypeVar

BUSY_TIMEOUT_MS = 10_000
T = TypeVar("T")


class SchemaTooNewError(RuntimeError):
    """The database was written by a newer CodeKeep; refusing to touch it protects the data."""


# SQLite's primary result codes for a damaged file (extended codes keep them in the low byte).
_DAMAGE_CODES = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB
QUICK_CHECK_MAX_BYTES = 2 * 1024 * 1024  # ~85 ms per 1.3 MB measured: above this, too slow per open


# Values bound per statement when a list is matched with ``IN (?, ?, …)``: well under
# SQLite's limit on host parameters (999 in builds before 3.32).
PARAMETER_BATCH = 500


def parameter_batches(values: Sequence[T]) -> Iterator[list[T]]:
    """``values`` in lists of at most :data:`PARAMETER_BATCH`, one ``IN`` list each."""
    for start in range(0, len(values), PARAMETER_BATCH):
        yield list(values[start : start + PARAMETER_BATCH])


def like_escape(text: str) -> str:
    """``text`` matched literally inside a ``LIKE ... ESCAPE '\\'`` pattern."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def is_damage(error: BaseException) -> bool:
    """``error`` says the database file itself is damaged (not locked, not misused)."""
    if not isinstance(error, sqlite3.DatabaseError):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in _DAMAGE_CODES:
        return True
    text = str(error)
    return "malformed" in text or "not a database" in text


def delete_database_files(path: Path | str) -> None:
    """Delete a database with its WAL and shared memory, those first: a process opening
    it meanwhile must not find the old ones beside a new database (it would replay old
    frames into it)."""
    for suffix in ("-wal", "-shm", ""):
        with contextlib.suppress(OSError):
            os.unlink(f"{path}{suffix}")


def open_private_cache(path: Path, migrations: Sequence[str],
                       busy_timeout_ms: int) -> sqlite3.Connection | None:
    """A best-effort cache database shared by every checkout on the machine (the facts
    cache, the vector cache): created private (0700 folder, 0600 file; its WAL and shared
    memory follow), unsynchronised (losing a cache's last writes is harmless), a damaged
    file deleted and created anew; None when it cannot be opened now (a read-only home,
    a full disk, a newer schema): a cache miss, never an error."""
    for _attempt in range(2):
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
            conn = open_db(path, migrations, check_same_thread=False, synchronous="OFF")
        except (OSError, sqlite3.Error, SchemaTooNewError) as error:
            if not (isinstance(error, sqlite3.Error) and is_damage(error)):
                return None
            delete_database_files(path)
            continue
        conn.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
        return conn
    return None


class DatabaseDamagedError(sqlite3.DatabaseError):
    """A store's file is damaged. The message is one line: which file, what SQLite said,
    and what the user can do (``repair`` says how to salvage it, e.g. "rerun with
    `--repair`")."""

    def __init__(self, path: Path, detail: str, repair: str | None = None) -> None:
        self.path = path
        self.detail = detail
        remedy = f"{repair} to keep every readable row (the damaged file stays beside it)"
        what_to_do = (
            f"{remedy}, or restore it from a backup; `codekeep doctor` checks every store"
            if repair else "restore it from a backup; `codekeep doctor` checks every store"
        )
        super().__init__(f"{path} is damaged ({detail}): {what_to_do}")


def quick_check(conn: sqlite3.Connection) -> str | None:
    """What ``PRAGMA quick_check`` finds wrong (its first line), or None when the file is
    sound; a check that cannot even run is damage too."""
    try:
        rows = conn.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as error:
        if is_damage(error):
            return str(error)
        raise
    first = str(rows[0][0]) if rows else "ok"
    return None if first == "ok" else first


def explain_damage(error: BaseException, paths: Sequence[Path], repair: str | None
                   ) -> DatabaseDamagedError | None:
    """``error`` as a :class:`DatabaseDamagedError` naming the damaged file among
    ``paths`` (checked in order), or None when ``error`` is not about damage."""
    if isinstance(error, DatabaseDamagedError):
        return error
    if not is_damage(error):
        return None
    for path in paths:
        problem = damaged_file(path)
        if problem is not None:
            return DatabaseDamagedError(path, problem, repair)
    return DatabaseDamagedError(paths[0], str(error), repair)


def damaged_file(path: Path) -> str | None:
    """:func:`quick_check` of the file at ``path`` on a connection of its own (read-only)."""
    if not path.is_file():
        return None
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
    except sqlite3.DatabaseError as error:
        return str(error)
    try:
        return quick_check(conn)
    except sqlite3.DatabaseError as error:
        return str(error) if is_damage(error) else None
    finally:
        conn.close()


def open_db(
    path: Path | str,
    migrations: Sequence[str],
    *,
    check_same_thread: bool = True,
    synchronous: str = "NORMAL",
) -> sqlite3.Connection:
    """Open (creating if needed) a SQLite database and bring its schema up to date.

    ``migrations[i]`` is the SQL script that moves the schema from version ``i`` to
    ``i + 1``; the version lives in ``PRAGMA user_version``. Each migration runs in
    its own transaction, so a crash mid-migration leaves the previous version intact.
    """
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(
        str(path),
        timeout=BUSY_TIMEOUT_MS / 1000,
        check_same_thread=check_same_thread,
        isolation_level=None,  # explicit BEGIN/COMMIT: we control transactions
    )
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    _enable_wal(conn)
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    conn.execute("PRAGMA foreign_keys = ON")
    migrate(conn, migrations)
    return conn


class Piggyback(Protocol):
    """Changes queued off a read path that ride on the next write transaction: written
    right after its ``BEGIN`` (so the transaction's own statements see them), forgotten
    once it commits, queued again if it rolls back."""

    def write(self, conn: sqlite3.Connection) -> None: ...

    def committed(self) -> None: ...

    def rolled_back(self) -> None: ...


class WriteTransaction:
    """``with store.transaction():`` for one connection: ``BEGIN IMMEDIATE`` … ``COMMIT``,
    ``ROLLBACK`` on any exception; nested uses join the outer transaction.

    ``IMMEDIATE`` takes the write lock up front, so concurrent writers wait on the busy
    timeout instead of failing halfway, and a killed writer leaves all or none of a change.
    ``piggyback``: queued changes every transaction writes first (see :class:`Piggyback`).
    """

    def __init__(self, conn: sqlite3.Connection, piggyback: Piggyback | None = None) -> None:
        self._conn = conn
        self._depth = 0
        self._piggyback = piggyback

    @contextmanager
    def __call__(self) -> Iterator[sqlite3.Connection]:
        if self._depth:
            self._depth += 1
            try:
                yield self._conn
            finally:
                self._depth -= 1
            return
        self._conn.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            if self._piggyback is not None:
                self._piggyback.write(self._conn)
            yield self._conn
            self._conn.execute("COMMIT")
        except BaseException:
            self._depth = 0
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            if self._piggyback is not None:
                self._piggyback.rolled_back()
            raise
        self._depth = 0
        if self._piggyback is not None:
            self._piggyback.committed()


def _enable_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL, waiting (up to the busy timeout) for another writer to finish.

    Changing the journal mode takes the write lock from a read lock, a step for which
    SQLite reports "database is locked" at once instead of calling the busy handler; two
    processes creating the same database together would otherwise fail.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def schema_version(conn: sqlite3.Connection) -> int:
    """The schema version a database is at (how many migrations it has seen)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, migrations: Sequence[str]) -> int:
    """Apply the migrations the database has not seen yet; return the final version."""
    target = len(migrations)
    if schema_version(conn) == target:
        # Current: nothing to write, so no write lock to wait for (another process may
        # hold it for seconds: an index being written, a VACUUM).
        return target
    # BEGIN IMMEDIATE serialises concurrent first opens of the same file.
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = schema_version(conn)
        if version > target:
            raise SchemaTooNewError(
                f"database schema version {version} is newer than this CodeKeep "
                f"understands ({target}); upgrade CodeKeep"
            )
        for number in range(version, target):
            for statement in _split_statements(migrations[number]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number + 1}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return target


def _split_statements(script: str) -> list[str]:
    """Split a migration script into complete statements (executescript would COMMIT)."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        raise ValueError(f"incomplete SQL statement in migration: {buffer.strip()[:80]!r}")
    return statements
