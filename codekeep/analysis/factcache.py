"""Content-addressed cache of extracted facts, shared by every checkout on the machine.

A second clone, a new worktree or a branch switch holds mostly content some index
has already parsed. Facts depend only on the file's bytes, its language and the
extractor, so they are kept under ``<cache>/<extractor fingerprint>/<blake2b of
the content>.<language>``: one small file each (``marshal`` of the rows the store
inserts), so worker processes read and write it concurrently without a lock or a
database. An entry is written in place, not beside and renamed: a cold index writes
one per file, and the temporary file and rename doubled what each cost the kernel.
A reader meeting an entry mid-write (or one a killed writer left short) cannot
unmarshal it, which is a miss; the file is parsed and the entry written again whole.
Two writers of one entry write the same bytes.

Invalidation is by construction: the fingerprint hashes the source of every module
and query file that decides what a file's facts are (extraction, encoding, the
language tables, secret redaction, symbol ids) and the versions of tree-sitter and
its grammars; any change to them starts a new directory, and directories no version
has used for :data:`STALE_AFTER_S` are deleted. The cache is best effort: a full disk,
a read-only home or a damaged entry is a miss, never an error.

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
import time
from pathlib import Path

from codekeep.analysis.encoding import EncodedFacts

ENV = "CODEKEEP_PARSE_CACHE"
MAX_BYTES = 256 * 1024 * 1024  # past this, the oldest entries go
PRUNE_EVERY_S = 24 * 3600
STALE_AFTER_S = 14 * 24 * 3600  # a fingerprint unused this long belongs to an old version
_STAMP = "used"  # in a fingerprint's directory: touched (at most daily) while in use

_PACKAGE = Path(__file__).resolve().parent.parent
# What decides a file's facts besides its bytes (the language query files are added).
_SOURCES = ("analysis/extract.py", "analysis/doclinks.py", "analysis/go_scopes.py",
            "analysis/encoding.py", "analysis/facts.py", "analysis/parsing.py",
            "analysis/registry.py", "common/secrets.py", "common/symbol_id.py")
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


class FactCache:
    def __init__(self, base: Path):
        self.base = base
        self.dir = base / fingerprint()
        self._buckets: set[Path] = set()  # directories this process knows exist

    def _entry(self, language: str, digest: str) -> Path:
        return self.dir / digest[:2] / f"{digest}.{language}"

    def get(self, language: str, digest: str) -> EncodedFacts | None:
        try:
            value = marshal.loads(self._entry(language, digest).read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            return None
        if (isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], list)
                and isinstance(value[1], dict) and isinstance(value[2], str)):
            return EncodedFacts(*value)
        return None

    def put(self, language: str, digest: str, encoded: EncodedFacts) -> None:
        path = self._entry(language, digest)
        try:
            data = marshal.dumps(tuple(encoded))
            if path.parent not in self._buckets:
                path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                self._buckets.add(path.parent)
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(handle, view):]
            finally:
                os.close(handle)
        except (OSError, ValueError):  # a full disk or an unmarshallable value: no entry
            self._buckets.discard(path.parent)  # (or the directory was pruned meanwhile)

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
            _trim(self.dir, max_bytes)
        except OSError:
            pass
        return True


def _unused(directory: Path, now: float) -> bool:
    try:
        return now - (directory / _STAMP).stat().st_mtime > STALE_AFTER_S
    except OSError:
        return now - directory.stat().st_mtime > STALE_AFTER_S


def _trim(directory: Path, max_bytes: int) -> None:
    entries: list[tuple[float, int, str]] = []
    for bucket in os.scandir(directory):
        if bucket.is_dir():
            for entry in os.scandir(bucket.path):
                info = entry.stat()
                entries.append((info.st_mtime, info.st_size, entry.path))
    total = sum(size for _mtime, size, _path in entries)
    if total <= max_bytes:
        return
    entries.sort()
    for _mtime, size, path in entries:  # oldest first, down to 80 % of the cap
        if total <= max_bytes * 0.8:
            break
        with contextlib.suppress(OSError):
            os.unlink(path)
            total -= size


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
