"""Replacing a file whole: written beside it, then renamed over it.

A reader (another process, a worker) or a crash mid-write never sees half a file; the
temporary name is unique, so two writers never write into the same scratch file.
"""

from __future__ import annotations

import os
import tempfile
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
