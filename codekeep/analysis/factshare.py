"""One file holding the facts cache's entries of an index: a team indexes once.

``codekeep index --export FILE`` writes the cache entries of every file the index holds
(built in CI, published as an artifact); ``codekeep index --import FILE`` adds them to
this machine's cache before indexing, so a new checkout of the same content parses
only what differs. The file is a SQLite database: a ``meta`` table (format, the
extractor's fingerprint) and one row per (content hash, language) with the marshalled
rows, zlib-compressed, and their checksum.

Nothing in it is trusted as it stands. An import refuses a file made by another
extractor (its fingerprint differs: its facts would be another version's) and every
entry whose bytes do not match its checksum — the checksum (a CRC-32 and the length)
binds the rows to the content hash of the file they were extracted from, its language
and the fingerprint
(:func:`.factcache.entry_checksum`); the cache checks it again on every use, and an
entry is only ever looked up by the hash of the bytes read from disk. (A checksum
catches damage and misfiled entries, not a forger who recomputes it: import artifacts
from where you would take the code itself.)
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import zlib
from dataclasses import dataclass
from pathlib import Path

from codekeep.analysis.errors import CodeMapError
from codekeep.analysis.factcache import FactCache, entry_checksum, fingerprint

FORMAT = "codekeep-facts 1"
IMPORT_CHUNK = 2000  # entries per cache transaction on import
_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE facts(
    digest TEXT NOT NULL,
    language TEXT NOT NULL,
    rows BLOB NOT NULL,
    checksum BLOB NOT NULL,
    PRIMARY KEY (digest, language)
) WITHOUT ROWID;
"""


class FactShareError(CodeMapError):
    """An export or import that cannot be done; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class ShareStats:
    entries: int  # written (export) or added to the cache (import)
    missing: int = 0  # export: indexed files the cache held no entry for
    refused: int = 0  # import: entries whose checksum did not match

    def to_json(self) -> dict[str, int]:
        return {"entries": self.entries, "missing": self.missing, "refused": self.refused}


def export_facts(cache: FactCache, keys: list[tuple[str, str]], target: Path) -> ShareStats:
    """Write the cache's entries for those (content hash, language) ``keys`` to
    ``target`` (replaced whole: written beside it, then renamed into place)."""
    found = cache.entries(keys)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    with contextlib.suppress(FileNotFoundError):
        partial.unlink()
    try:
        conn = sqlite3.connect(partial)
    except sqlite3.Error as error:
        raise FactShareError(f"cannot write {target}: {error}") from None
    try:
        conn.executescript(_SCHEMA)
        conn.executemany("INSERT INTO meta VALUES (?, ?)", [
            ("format", FORMAT), ("fingerprint", fingerprint()), ("entries", str(len(found)))])
        conn.executemany("INSERT INTO facts VALUES (?, ?, ?, ?)", [
            (digest, language, zlib.compress(rows, 1), entry_checksum(digest, language, rows))
            for (digest, language), rows in found.items()])
        conn.commit()
        conn.close()
        os.replace(partial, target)
    except (sqlite3.Error, OSError) as error:
        conn.close()
        with contextlib.suppress(OSError):
            partial.unlink()
        raise FactShareError(f"cannot write {target}: {error}") from None
    return ShareStats(len(found), missing=len(set(keys)) - len(found))


def import_facts(cache: FactCache, source: Path) -> ShareStats:
    """Add the entries of an exported file to ``cache``, each checked first."""
    if not source.is_file():
        raise FactShareError(f"{source}: no such file")
    try:
        conn = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise FactShareError(f"{source}: cannot open: {error}") from None
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("format") != FORMAT:
            raise FactShareError(f"{source} is not a facts export of this kind "
                                 f"({meta.get('format')!r}, expected {FORMAT!r})")
        if meta.get("fingerprint") != fingerprint():
            raise FactShareError(
                f"{source} was made by another CodeKeep (extractor {meta.get('fingerprint')}, "
                f"this one is {fingerprint()}): export it again with this version")
        added = refused = 0
        batch: list[tuple[str, str, bytes]] = []
        for digest, language, packed, checksum in conn.execute(
                "SELECT digest, language, rows, checksum FROM facts"):
            rows = _unpacked(packed)
            if rows is None or checksum != entry_checksum(digest, language, rows):
                refused += 1
                continue
            batch.append((digest, language, rows))
            if len(batch) >= IMPORT_CHUNK:
                added += _add(cache, batch, source)
        added += _add(cache, batch, source)
    except sqlite3.Error as error:
        raise FactShareError(f"{source}: not a readable facts export ({error})") from None
    finally:
        conn.close()
    return ShareStats(added, refused=refused)


def _unpacked(packed: object) -> bytes | None:
    if not isinstance(packed, bytes):
        return None
    try:
        return zlib.decompress(packed)
    except zlib.error:
        return None


def _add(cache: FactCache, batch: list[tuple[str, str, bytes]], source: Path) -> int:
    if not batch:
        return 0
    if not cache.add(batch):
        raise FactShareError(f"cannot add the entries of {source} to the facts cache at "
                             f"{cache.path} (read-only, full or locked); the rest was not imported")
    count = len(batch)
    batch.clear()
    return count
