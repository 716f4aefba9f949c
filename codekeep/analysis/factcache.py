"""Content-addressed cache of extracted facts, shared by every checkout on the machine.

A second clone, a new worktree or a branch switch holds mostly content some index
has already parsed. Facts depend only on the file's bytes, its language and the
extractor, so they are kept in ``<cache>/<extractor fingerprint>/facts.db``: one SQLite
row per (blake2b of the content, language) holding the ``marshal`` of the rows the store
inserts. One database rather than a file per entry: a cold index of Django wrote 2,830
files, and creating them cost the kernel 0.1-1 s of CPU (a tenth of the whole index at
worst); a worker's batch of entries now goes in with one transaction (~0.05 s for all
of Django). WAL mode: readers (every worker) never wait for a writer; writers (the
workers of one index, two indexes at once) take turns, and one that cannot have the
lock within :data:`WRITE_WAIT_MS` drops its entries (a parse later, never an error).
A transaction is whole or absent, so a killed writer leaves no short entry.

Invalidation is by construction: the fingerprint hashes the source of every module
and query file that decides what a file's facts are (extraction, encoding, the
language tables, secret redaction, symbol ids) and the versions of tree-sitter and
its grammars; any change to them starts a new directory, and directories no version
has used for :data:`STALE_AFTER_S` are deleted. The cache is best effort: a full disk,
a read-only home, a locked or damaged database or a damaged entry is a miss, never an
error (a damaged database is deleted and started over).

``CODEKEEP_PARSE_CACHE`` names the directory (default
``$XDG_CACHE_HOME/codekeep/facts``, i.e. ``~/.cache/codekeep/facts``); ``off``
disables it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.metadata
import marshal
import os
import shutil
import sqlite3
import threading
import time
import weakref
import zlib
from collections.abc import Iterator
from pathlib import Path

from codekeep.analysis.encoding import EncodedFacts
from codekeep.common.sqlite import delete_database_files, is_damage, open_private_cache

ENV = "CODEKEEP_PARSE_CACHE"
MAX_BYTES = 256 * 1024 * 1024  # past this, the oldest entries go
PRUNE_EVERY_S = 24 * 3600
STALE_AFTER_S = 14 * 24 * 3600  # a fingerprint unused this long belongs to an old version
_STAMP = "used"  # in a fingerprint's directory: touched (at most daily) while in use

_PACKAGE = Path(__file__).resolve().parent.parent
# What decides a file's facts besides its bytes (the language query files are added).
_SOURCES = ("analysis/extract.py", "analysis/doclinks.py", "analysis/go_scopes.py",
            "analysis/python_scopes.py", "analysis/encoding.py", "analysis/facts.py",
            "analysis/parsing.py", "analysis/registry.py", "common/secrets.py",
            "common/symbol_id.py")
_DISTRIBUTIONS = ("tree-sitter", "tree-sitter-language-pack")


@functools.cache
def fingerprint() -> str:
    digest = hashlib.blake2b(digest_size=10)
    languages = sorted((_PACKAGE / "analysis" / "languages").iterdir())
    for path in [_PACKAGE / name for name in _SOURCES] + languages:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for name in _DISTRIBUTIONS:
        try:
            digest.update(f"{name}={importlib.metadata.version(name)}\0".encode())
        except importlib.metadata.PackageNotFoundError:
            digest.update(f"{name}=?\0".encode())
    return digest.hexdigest()


DB_NAME = "facts.db"
WRITE_WAIT_MS = 100  # a writer waits this long for another's transaction, then drops
MIGRATIONS = (
    """
    CREATE TABLE facts(
        digest TEXT NOT NULL,
        language TEXT NOT NULL,
        rows BLOB NOT NULL,
        written INTEGER NOT NULL,
        PRIMARY KEY (digest, language)
    ) WITHOUT ROWID;
    """,
    # Each entry's checksum (entry_checksum): an entry without one, or whose bytes no
    # longer match it, is a miss. Imported entries come with theirs and are checked twice.
    "ALTER TABLE facts ADD COLUMN checksum BLOB;",
)
# digest, language, marshalled rows, written (s), checksum
_Entry = tuple[str, str, bytes, int, bytes]


def entry_checksum(digest: str, language: str, rows: bytes) -> bytes:
    """What an entry's bytes must check to, bound to its content hash, its language and
    this extractor's fingerprint: a damaged, truncated or misfiled entry (another
    content's facts, another version's) does not match. A CRC-32 over the key and the
    rows, and their length: it runs on every cache hit, and a cryptographic hash (7×
    the CPU: a fifth of a second checkout's) would add nothing, since without a secret
    key anyone can recompute either."""
    key = f"{fingerprint()}\0{digest}\0{language}\0".encode()
    return (zlib.crc32(rows, zlib.crc32(key)) << 32 | len(rows) & 0xFFFFFFFF).to_bytes(8, "big")
# Connections a forked process inherited anyway (a fork that skipped the at-fork hook
# below): SQLite forbids using them in the child, and letting them be collected would
# close them there; kept, untouched, for the life of the process.
_INHERITED: list[sqlite3.Connection] = []
_OPEN: weakref.WeakSet[FactCache] = weakref.WeakSet()  # caches holding a connection


def _close_before_fork() -> None:
    """A child must not inherit an open SQLite connection, not even one it never uses:
    its copy of SQLite's lock bookkeeping would claim locks only the parent holds. So
    every cache closes its connection before a fork (the index's worker pool); it is
    reopened on next use."""
    for cache in list(_OPEN):
        with cache._lock:
            cache._close()


if hasattr(os, "register_at_fork"):  # POSIX: where processes fork
    os.register_at_fork(before=_close_before_fork)


class FactCache:
    def __init__(self, base: Path):
        self.base = base
        self.dir = base / fingerprint()
        self.path = self.dir / DB_NAME
        self._lock = threading.Lock()  # one connection, shared by the process's threads
        self._conn: sqlite3.Connection | None = None
        self._owner = 0  # the process that opened ``_conn``
        self._inode = 0  # of the file ``_conn`` opened (deleted or replaced: reopen)
        self._batches = threading.local()  # this thread's open batch (``pending``)

    def get(self, language: str, digest: str) -> EncodedFacts | None:
        data = self.get_bytes(language, digest)
        if data is None:
            return None
        try:
            value = marshal.loads(data)
        except (ValueError, EOFError, TypeError):
            return None
        if (isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], list)
                and isinstance(value[1], dict) and isinstance(value[2], str)):
            return EncodedFacts(*value)
        return None

    def get_bytes(self, language: str, digest: str) -> bytes | None:
        """The stored bytes of one entry whose checksum matches (else None: a miss).
        ``language`` names what the bytes are: a language's facts, or another kind of
        entry keyed by content the same way (the docs' parsed pages)."""
        with self._lock:
            conn = self._connection()
            if conn is None:
                return None
            try:
                row = conn.execute("SELECT rows, checksum FROM facts "
                                   "WHERE digest = ? AND language = ?",
                                   (digest, language)).fetchone()
            except sqlite3.Error as error:
                self._failed(error)
                return None
        if row is None or row[1] != entry_checksum(digest, language, row[0]):
            return None
        return bytes(row[0])

    def put(self, language: str, digest: str, encoded: EncodedFacts) -> None:
        try:
            data = marshal.dumps(tuple(encoded))
        except ValueError:  # an unmarshallable value: no entry
            return
        self.put_bytes(language, digest, data)

    def put_bytes(self, language: str, digest: str, data: bytes) -> None:
        """Keep one entry (written with this thread's open :meth:`batch`, if any)."""
        entry = (digest, language, data, int(time.time()),
                 entry_checksum(digest, language, data))
        pending: list[_Entry] | None = getattr(self._batches, "pending", None)
        if pending is not None:
            pending.append(entry)
        else:
            self._write([entry])

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """The entries this thread puts meanwhile are written together on leaving, in
        one transaction: what a worker does for each batch of files it parses (two
        folders indexing in one process keep a batch each)."""
        pending: list[_Entry] = []
        self._batches.pending = pending
        try:
            yield
        finally:
            self._batches.pending = None
            if pending:
                self._write(pending)

    def _write(self, entries: list[_Entry]) -> None:
        with self._lock:
            conn = self._connection(writing=True)
            if conn is None:
                return
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as error:  # locked past WRITE_WAIT_MS, read-only …
                self._failed(error)
                return
            try:
                conn.executemany("INSERT OR REPLACE INTO facts VALUES (?, ?, ?, ?, ?)",
                                 entries)
                conn.execute("COMMIT")
            except sqlite3.Error as error:  # a full disk …: the entries are dropped
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                self._failed(error)

    def entries(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], bytes]:
        """The marshalled rows of those (digest, language) ``keys`` the cache holds
        with a matching checksum (what an export copies)."""
        found: dict[tuple[str, str], bytes] = {}
        with self._lock:
            conn = self._connection()
            if conn is None:
                return found
            query = ("SELECT digest, language, rows, checksum FROM facts "
                     "WHERE digest = ? AND language = ?")
            try:
                for key in keys:
                    row = conn.execute(query, key).fetchone()
                    if row is not None and row[3] == entry_checksum(*row[:3]):
                        found[key] = row[2]
            except sqlite3.Error as error:
                self._failed(error)
        return found

    def add(self, entries: list[tuple[str, str, bytes]]) -> bool:
        """Store (digest, language, marshalled rows) entries made elsewhere (an import),
        each with its checksum (an entry held already is replaced). False: nothing was written
        (the cache cannot be opened or written now)."""
        now = int(time.time())
        rows = [(digest, language, data, now, entry_checksum(digest, language, data))
                for digest, language, data in entries]
        with self._lock:
            conn = self._connection(writing=True)
            if conn is None:
                return False
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany("INSERT OR REPLACE INTO facts VALUES (?, ?, ?, ?, ?)", rows)
                conn.execute("COMMIT")
            except sqlite3.Error as error:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                self._failed(error)
                return False
        return True

    def _connection(self, writing: bool = False) -> sqlite3.Connection | None:
        """This process's connection, opened on first use (None: the database cannot
        be opened now). Before a write, a file deleted or replaced since is reopened,
        so entries never go to a file nobody can find any more."""
        if self._conn is not None and self._owner != os.getpid():
            _INHERITED.append(self._conn)  # forked: the parent's, not ours
            self._conn = None
        if self._conn is not None and writing and self._inode != _inode(self.path):
            self._close()
        if self._conn is None:
            conn = open_private_cache(self.path, MIGRATIONS, WRITE_WAIT_MS)
            if conn is not None:
                conn.row_factory = None
                self._conn, self._owner, self._inode = conn, os.getpid(), _inode(self.path)
                _OPEN.add(self)
        return self._conn

    def _failed(self, error: sqlite3.Error) -> None:
        if is_damage(error):
            self._close()
            delete_database_files(self.path)

    def _close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None
            _OPEN.discard(self)

    def prune(self, max_bytes: int = MAX_BYTES, now: float | None = None) -> bool:
        """At most once a day: delete other versions' directories left unused, then
        this version's oldest entries while it holds more than ``max_bytes``.
        True when it ran (the daily stamp was old or missing)."""
        now = time.time() if now is None else now
        stamp = self.dir / _STAMP
        with contextlib.suppress(OSError):
            if now - stamp.stat().st_mtime < PRUNE_EVERY_S:
                return False
        try:
            self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            stamp.touch()
            os.utime(stamp, (now, now))
            for other in self.base.iterdir():
                if other != self.dir and other.is_dir() and _unused(other, now):
                    shutil.rmtree(other, ignore_errors=True)
        except OSError:
            pass
        with self._lock:
            if (conn := self._connection(writing=True)) is not None:
                try:
                    _trim(conn, max_bytes)
                except sqlite3.Error as error:
                    self._failed(error)
        return True


def _inode(path: Path) -> int:
    try:
        return os.stat(path).st_ino
    except OSError:
        return -1


def _unused(directory: Path, now: float) -> bool:
    try:
        return now - (directory / _STAMP).stat().st_mtime > STALE_AFTER_S
    except OSError:
        return now - directory.stat().st_mtime > STALE_AFTER_S


def _trim(conn: sqlite3.Connection, max_bytes: int) -> None:
    """Delete the oldest entries (by the time they were written) down to 80 % of
    ``max_bytes`` once the entries hold more than that, and give the space back."""
    entries = conn.execute("SELECT written, digest, language, length(rows) FROM facts "
                           "ORDER BY written, digest, language").fetchall()
    total = sum(size for *_key, size in entries)
    if total <= max_bytes:
        return
    gone = []
    for _written, digest, language, size in entries:  # oldest first
        if total <= max_bytes * 0.8:
            break
        gone.append((digest, language))
        total -= size
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.executemany("DELETE FROM facts WHERE digest = ? AND language = ?", gone)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("VACUUM")


@functools.cache
def _cache_at(location: str, cache_home: str) -> FactCache | None:
    if location.strip().lower() == "off":
        return None
    if location:
        return FactCache(Path(location).expanduser())
    home = cache_home or os.path.join(os.path.expanduser("~"), ".cache")
    return FactCache(Path(home) / "codekeep" / "facts")


def default_cache() -> FactCache | None:
    """The cache ``CODEKEEP_PARSE_CACHE`` names (read on every call: tests change it)."""
    return _cache_at(os.environ.get(ENV, ""), os.environ.get("XDG_CACHE_HOME", ""))
