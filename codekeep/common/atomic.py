"""Replacing a file whole: written beside it, then renamed over it; and a change of
several files that happens whole or not at all.

A reader (another process, a worker) or a crash mid-write never sees half a file; the
temporary name is unique, so two writers never write into the same scratch file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path


def write_atomically(path: Path, data: bytes, *, keep_mode: bool = False) -> None:
    """Make ``path`` hold ``data``; with ``keep_mode`` an existing file keeps its mode."""
    mode = path.stat().st_mode & 0o7777 if keep_mode and path.exists() else None
    fd, scratch = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if mode is not None:
            os.chmod(scratch, mode)
        os.replace(scratch, path)
    except BaseException:
        Path(scratch).unlink(missing_ok=True)
        raise


class PartialWriteError(OSError):
    """A failed all-or-nothing write whose put-back failed too: ``left`` names the files
    that hold the new bytes although the write as a whole failed."""

    def __init__(self, message: str, left: list[Path]) -> None:
        super().__init__(message)
        self.left = left


def write_all_or_none(files: Mapping[Path, bytes], *, keep_mode: bool = False) -> None:
    """Make every path hold its bytes, or leave every one as it was.

    A change spread over files (a rename) must not stop half way: every new text is
    written beside its file first (a full disk or a read-only folder fails here, before
    any file changes), then renamed over it; if one rename fails, the files already
    replaced get their old bytes back. Raises the first OSError (or PartialWriteError
    when the put-back failed as well)."""
    old = {path: path.read_bytes() for path in files}
    scratches: dict[Path, str] = {}
    done: list[Path] = []
    current = None
    try:
        for current, data in files.items():
            mode = current.stat().st_mode & 0o7777 if keep_mode else None
            fd, scratch = tempfile.mkstemp(dir=current.parent, prefix=f".{current.name}.",
                                           suffix=".tmp")
            scratches[current] = scratch
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            if mode is not None:
                os.chmod(scratch, mode)
        for current, scratch in scratches.items():
            os.replace(scratch, current)
            done.append(current)
    except OSError as error:
        _put_back(done, old, keep_mode)
        # named by the file it was for, not by its scratch
        raise OSError(error.errno, error.strerror, str(current)) from error
    finally:
        for scratch in scratches.values():
            Path(scratch).unlink(missing_ok=True)


def _put_back(done: list[Path], old: Mapping[Path, bytes], keep_mode: bool) -> None:
    left = []
    for path in done:
        try:
            write_atomically(path, old[path], keep_mode=keep_mode)
        except OSError:
            left.append(path)
    if left:
        raise PartialWriteError(
            "could not put back " + ", ".join(map(str, left)) + " after a failed write", left)
