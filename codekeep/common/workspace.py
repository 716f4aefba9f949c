"""Where CodeKeep keeps its files: ``<root>/.codekeep/`` per project, a user data dir.

``.codekeep/.gitignore`` keeps everything CodeKeep writes there out of git (the
databases, the saved map graph, the learned context windows, the team's marks: local
state, rebuildable or private) except what is meant to be shared: ``MEMORY.md`` (the
user's editable notes) and ``config.toml`` (the project's settings). An allow-list, so a
file a later version adds is kept out without anyone remembering to list it.
"""

from __future__ import annotations

import os
from pathlib import Path

STATE_DIR_NAME = ".codekeep"
GITIGNORE_TEXT = (
    "# CodeKeep's local state stays out of git; MEMORY.md and config.toml are meant to be\n"
    "# committed.\n"
    "*\n!.gitignore\n!MEMORY.md\n!config.toml\n"
)
# What earlier versions wrote: replaced by GITIGNORE_TEXT (a file edited by hand is kept).
_EARLIER_GITIGNORES = frozenset({
    "# CodeKeep databases are local state; MEMORY.md is meant to be committed.\n*.db\n*.db-*\n",
})


def resolve_root(root: str | os.PathLike[str] | None = None) -> Path:
    """The workspace root as an absolute, symlink-resolved path (default: the cwd)."""
    return Path(root if root is not None else os.getcwd()).expanduser().resolve()


class RootRefused(ValueError):
    """A folder no door works in (the filesystem root, a home directory); the message
    is the one every door shows."""


def too_wide(root: Path) -> str | None:
    """Why ``root`` is no project folder (the filesystem root, a home directory), or None.

    Indexing one would walk the whole machine or a person's every file, create
    ``/.codekeep`` or ``~/.codekeep``, and keep workers busy for minutes.
    """
    if root == Path(root.anchor):
        return "the filesystem root"
    homes = {Path.home().resolve(), Path("/root")}
    if root in homes or root.parent == Path("/home"):
        return "a home directory"
    return None


def refusal(root: Path) -> str | None:
    """What every door (CLI, language server, MCP, agent) says about a folder it will
    not work in, or None for a project folder: one check and one message, so no door
    indexes ``/`` or a home folder that another refuses."""
    why = too_wide(root)
    if why is None:
        return None
    return (f"CodeKeep does not index {root}: it is {why}. Open the project folder "
            "itself (the one holding its code) instead.")


def check_root(root: Path) -> Path:
    """``root``, or :class:`RootRefused` with :func:`refusal`'s message."""
    message = refusal(root)
    if message is not None:
        raise RootRefused(message)
    return root


def state_dir(root: Path) -> Path:
    """Create (if needed) and return ``<root>/.codekeep`` with its ``.gitignore``.

    Every store opens its database here, so a door that forgot to check its folder
    still cannot create ``/.codekeep`` or ``~/.codekeep`` (:class:`RootRefused`)."""
    directory = check_root(root) / STATE_DIR_NAME
    directory.mkdir(parents=True, exist_ok=True)
    _write_gitignore(directory / ".gitignore")
    return directory


def _write_gitignore(gitignore: Path) -> None:
    """Write the folder's ``.gitignore`` when missing or as an earlier version wrote it."""
    try:
        current: str | None = gitignore.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = None
    except (OSError, UnicodeDecodeError):
        return  # unreadable: not ours to touch
    if current is None or current in _EARLIER_GITIGNORES:
        gitignore.write_text(GITIGNORE_TEXT, encoding="utf-8")


def user_data_dir() -> Path:
    """``$XDG_DATA_HOME/codekeep`` (default ``~/.local/share/codekeep``), created on demand."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    directory = Path(base) / "codekeep"
    directory.mkdir(parents=True, exist_ok=True)
    return directory
