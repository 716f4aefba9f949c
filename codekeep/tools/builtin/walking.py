"""Workspace files for the file tools, via the code map's walker (one set of ignore rules)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

from codekeep.analysis.discovery import WalkReport, walk
from codekeep.settings.codemap import IndexSettings
from codekeep.tools.safety.paths import PathGuard, PathRefusedError

BINARY_SNIFF_BYTES = 8192


def workspace_files(root: Path, under: str = ".") -> Iterator[tuple[str, int]]:
    """``(relative path, size)`` of every non-ignored file under ``under``, path-guarded.

    The walker follows symlinks, so each file is re-checked: links leading out of the
    workspace and secret files are skipped silently rather than read.
    """
    guard = PathGuard(root)
    prefix = "" if under in ("", ".") else under.rstrip("/") + "/"
    for candidate in walk(guard.root, IndexSettings(), WalkReport({})):
        if prefix and not candidate.rel.startswith(prefix):
            continue
        try:
            guard.check(candidate.rel, "read")
        except PathRefusedError:
            continue
        yield candidate.rel, candidate.size


def is_binary(path: Path) -> bool:
    with path.open("rb") as handle:
        return b"\x00" in handle.read(BINARY_SNIFF_BYTES)


def file_digest(path: Path) -> str:
    """What a re-read compares: the file's bytes (a change anywhere means read it again)."""
    return hashlib.sha1(path.read_bytes(), usedforsecurity=False).hexdigest()
