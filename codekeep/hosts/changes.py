"""A planned edit of one config file: shown as a diff, applied with a backup, undone exactly.

Install and uninstall only ever compute :class:`Change` objects (the file's text before
and after); nothing is written until :func:`apply` runs, so ``--dry-run`` shows exactly
what would land and a half-computed plan never touches disk. Before a file that exists
is changed, its text is copied to the user's data folder (``backups/``), never next to
the file, where it would show up in the user's ``git status``.

Uninstall restores the user's own bytes: when the file, with our entries removed, holds
the same data as the text install backed up, that text is written back as it was
(formatting the JSON writer would have normalised included).
"""

from __future__ import annotations

import difflib
import hashlib
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from codekeep.common.atomic import write_atomically
from codekeep.common.workspace import user_data_dir


@dataclass(frozen=True, slots=True)
class Change:
    """``before`` None: the file does not exist; ``after`` None: the file is deleted."""

    path: Path
    before: str | None
    after: str | None
    note: str = ""

    @property
    def changes_anything(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        """A unified diff (``/dev/null`` for a created or deleted file)."""
        old = "/dev/null" if self.before is None else str(self.path)
        new = "/dev/null" if self.after is None else str(self.path)
        lines = difflib.unified_diff((self.before or "").splitlines(keepends=True),
                                     (self.after or "").splitlines(keepends=True), old, new)
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


class ConfigError(Exception):
    """A config file CodeKeep must not rewrite (unparsable, or holding a CodeKeep entry
    the user wrote by hand); the message says what to do."""


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path} is not UTF-8 text ({error.reason}); left alone") from error


def planned(path: Path, edit: Callable[[str | None], str | None], note: str = "") -> Change:
    """The change ``edit`` (old text -> new text, None for no file) makes to ``path``."""
    before = read_text(path)
    return Change(path, before, edit(before), note)


def backup_dir() -> Path:
    return user_data_dir() / "backups"


def _backup_stem(path: Path) -> str:
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    return f"{path.name}.{digest}"


def backups_of(path: Path) -> list[Path]:
    """Backups install made of ``path``, oldest first."""
    return sorted(backup_dir().glob(_backup_stem(path) + ".*.bak"))


def apply(changes: Iterable[Change]) -> list[Path]:
    """Write every change (backing the old text up first); the backups written."""
    backups = []
    for change in changes:
        if not change.changes_anything:
            continue
        if change.before is not None:
            folder = backup_dir()
            folder.mkdir(parents=True, exist_ok=True)
            backup = folder / f"{_backup_stem(change.path)}.{time.time_ns()}.bak"
            backup.write_text(change.before, encoding="utf-8")
            backups.append(backup)
        if change.after is None:
            change.path.unlink(missing_ok=True)
            _remove_empty_parents(change.path.parent)
        else:
            change.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(change.path, change.after.encode("utf-8"), keep_mode=True)
            if change.before is None:  # a new file gets the mode any editor would give it
                change.path.chmod(0o666 & ~_umask())
    return backups


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: The hosts' own config folders: emptied by an uninstall, they go (a workspace or home
#: folder never does, whatever it is called).
CONFIG_FOLDERS = frozenset({".claude", ".cursor", "rules", ".gemini", ".vscode", ".codex",
                            ".github", ".clinerules"})


def _remove_empty_parents(folder: Path) -> None:
    for directory in (folder, folder.parent):
        if directory.name not in CONFIG_FOLDERS:
            return
        try:
            directory.rmdir()
        except OSError:
            return


def first_backup_matching(path: Path, same: Callable[[str], bool]) -> str | None:
    """The newest backup of ``path`` whose text ``same`` accepts."""
    for backup in reversed(backups_of(path)):
        text = backup.read_text(encoding="utf-8")
        if same(text):
            return text
    return None
