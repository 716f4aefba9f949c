"""Where CodeKeep keeps its files: ``<root>/.codekeep/`` per project, a user data dir.

``.codekeep/.gitignore`` keeps the rebuildable and private databases out of git while
``MEMORY.md`` (the user's editable notes) stays committable.
"""

from __future__ import annotations

import os
from pathlib import Path

STATE_DIR_NAME = ".codekeep"
GITIGNORE_TEXT = (
    "# CodeKeep databases are local state; MEMORY.md is meant to be committed.\n"
    "*.db\n*.db-*\n"
)


def resolve_root(root: str | os.PathLike[str] | None = None) -> Path:
    """The workspace root as an absolute, symlink-resolved path (default: the cwd)."""
    return Path(root if root is not None else os.getcwd()).expanduser().resolve()


def state_dir(root: Path) -> Path:
    """Create (if needed) and return ``<root>/.codekeep`` with its ``.gitignore``."""
    directory = root / STATE_DIR_NAME
    directory.mkdir(parents=True, exist_ok=True)
    gitignore = directory / ".gitignore"
    if not gitignore.exists():
        gitignore.write_text(GITIGNORE_TEXT, encoding="utf-8")
    return directory


def user_data_dir() -> Path:
    """``$XDG_DATA_HOME/codekeep`` (default ``~/.local/share/codekeep``), created on demand."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    directory = Path(base) / "codekeep"
    directory.mkdir(parents=True, exist_ok=True)
    return directory
