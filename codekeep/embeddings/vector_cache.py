"""Chunk vectors of the local model, shared by every checkout on the machine.

Embedding Django's 7,895 doc chunks with the in-process model costs minutes of CPU, and
a second clone, a new worktree or a branch switch holds mostly the same chunks. The local
model is pinned (its weights are checked against fixed checksums), so a vector depends
only on the exact text the model reads and its word-piece budget: it is kept under the
SHA-256 of the model's name, that budget and the text, in
``$XDG_CACHE_HOME/codekeep/vectors.db`` (``CODEKEEP_VECTOR_CACHE`` names another file,
``off`` disables it). Only vectors and hashes are stored, never the text. Vectors of an
endpoint are not cached: the model behind a name can change without the name.

Best effort, like the facts cache: a locked, read-only or damaged database is a miss
(a damaged one is deleted and started over), never an error; a writer that cannot have
the lock within :data:`WRITE_WAIT_MS` drops its vectors (they are embedded again later).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

from codekeep.common.sqlite import delete_database_files, is_damage, open_private_cache

ENV = "CODEKEEP_VECTOR_CACHE"
WRITE_WAIT_MS = 100
MIGRATIONS = ["CREATE TABLE vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL) WITHOUT ROWID;"]


def cache_key(model: str, max_tokens: int, text: str) -> bytes:
    return hashlib.sha256(f"{model}\0{max_tokens}\0{text}".encode()).digest()


class VectorCache:
    """``get`` the vectors known for some keys; ``put`` new ones. Thread-safe."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    def get(self, keys: Sequence[bytes]) -> dict[bytes, bytes]:
        with self._lock:
            conn = self._connection()
            if conn is None or not keys:
                return {}
            marks = ",".join("?" * len(keys))
            try:
                return dict(conn.execute(
                    f"SELECT key, vector FROM vectors WHERE key IN ({marks})", list(keys)))
            except sqlite3.Error as error:
                self._failed(error)
                return {}

    def put(self, entries: Iterable[tuple[bytes, bytes]]) -> bool:
        """Keep the vectors; False when they were dropped (locked, unwritable, damaged)."""
        with self._lock:
            conn = self._connection()
            if conn is None:
                return False
            try:
                with conn:
                    conn.executemany("INSERT OR IGNORE INTO vectors(key, vector) VALUES (?, ?)",
                                     list(entries))
            except sqlite3.Error as error:
                self._failed(error)
                return False
            return True

    def close(self) -> None:
        with self._lock:
            self._close()

    def _connection(self) -> sqlite3.Connection | None:
        if self._conn is None:
            self._conn = open_private_cache(self.path, MIGRATIONS, WRITE_WAIT_MS)
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


def default_vector_cache() -> VectorCache | None:
    """The cache ``CODEKEEP_VECTOR_CACHE`` names (read on every call: tests change it)."""
    location = os.environ.get(ENV, "")
    if location.strip().lower() == "off":
        return None
    if location:
        return VectorCache(Path(location).expanduser())
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return VectorCache(Path(home) / "codekeep" / "vectors.db")
