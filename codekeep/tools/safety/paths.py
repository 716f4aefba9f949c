"""The path guard: a tool may only touch real paths inside the workspace.

Checks run on the literal string (NUL bytes, URL-encoded traversal, ``~``), on the
lexical path (``..`` chains and absolute paths elsewhere) and on the real path after
resolving symlinks (links pointing out). Writes are also kept out of ``.git/`` and
CodeKeep's own databases; secret files are refused for reading and writing.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from pathlib import Path, PurePosixPath
from typing import Literal

Access = Literal["read", "write"]

SECRET_PATTERNS: tuple[str, ...] = (
    ".env",
    ".env.*",
    "*.env",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    ".netrc",
    "_netrc",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    "credentials",
    "credentials.*",
)
# Templates that document which secrets exist without holding them.
SECRET_EXCEPTIONS: tuple[str, ...] = (
    ".env.example",
    ".env.sample",
    ".env.template",
    ".env.dist",
    "*.pub",
)
SECRET_DIRECTORIES = frozenset({".ssh", ".gnupg", ".aws"})
# Percent-escapes of '.', '/', '\\', NUL and '%' itself (double encoding): never part of
# an honest file name sent by a model, always part of a traversal attempt.
ENCODED_SPECIAL = re.compile(r"%(2e|2f|5c|00|25)", re.IGNORECASE)


class PathRefusedError(ValueError):
    """The path is not allowed; ``rule`` names the check, the message says why."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(reason)
        self.rule = rule
        self.reason = reason


def _any_of(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns))


_SECRET = _any_of(SECRET_PATTERNS)
_NOT_SECRET = _any_of(SECRET_EXCEPTIONS)


def is_secret_name(name: str) -> bool:
    lowered = name.lower()
    return bool(_SECRET.match(lowered)) and not _NOT_SECRET.match(lowered)


def is_secret_path(relative: str) -> bool:
    """A workspace-relative POSIX path that names (or lies in) secret material."""
    parts = PurePosixPath(relative).parts
    return bool(parts) and (
        is_secret_name(parts[-1]) or any(p in SECRET_DIRECTORIES for p in parts)
    )


class PathGuard:
    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def check(self, path: str, access: Access) -> Path:
        """The real absolute path for ``path`` if ``access`` to it is allowed, else raise."""
        self._check_literal(path)
        candidate = Path(path) if os.path.isabs(path) else self.root / path
        lexical = Path(os.path.normpath(candidate))
        if not _inside(lexical, self.root):
            raise PathRefusedError(
                "path.outside",
                f"{path!r} is outside the workspace; use a path relative to the workspace root",
            )
        real = lexical.resolve(strict=False)
        if not _inside(real, self.root):
            raise PathRefusedError(
                "path.symlink_escape",
                f"{path!r} resolves through a symlink to a location outside the workspace",
            )
        for rel in {self._relative(lexical), self._relative(real)}:
            self._check_relative(path, rel, access)
        if _hard_linked(real):
            raise PathRefusedError(
                "path.hardlink",
                f"{path!r} is a hard link (the same file has another name, possibly outside "
                "the workspace or a secret file); tools treat it as outside",
            )
        return real

    def relative(self, path: str, access: Access) -> str:
        """Like :meth:`check` but returns the workspace-relative POSIX path (``.`` for the root)."""
        return self._relative(self.check(path, access)) or "."

    def _relative(self, absolute: Path) -> str:
        rel = absolute.relative_to(self.root).as_posix()
        return "" if rel == "." else rel

    def _check_literal(self, path: str) -> None:
        if not isinstance(path, str) or not path.strip():
            raise PathRefusedError("path.empty", "the path is empty")
        if "\x00" in path:
            raise PathRefusedError("path.nul", "the path contains a NUL byte")
        if ENCODED_SPECIAL.search(path):
            raise PathRefusedError(
                "path.encoded",
                f"{path!r} hides '.', '/', '\\', '%' or NUL in URL encoding; send the plain path",
            )
        if "\\" in path and ".." in path.split("\\"):
            raise PathRefusedError("path.outside", f"{path!r} uses backslash '..' traversal")
        if path.startswith("~"):
            raise PathRefusedError(
                "path.home",
                f"{path!r} points into a home directory; only workspace paths are allowed",
            )

    def _check_relative(self, original: str, rel: str, access: Access) -> None:
        parts = PurePosixPath(rel).parts
        if is_secret_path(rel):
            raise PathRefusedError(
                "path.secret",
                f"{original!r} is a secret file (credentials/keys); tools may never {access} it",
            )
        if access == "write" and ".git" in parts:
            raise PathRefusedError(
                "path.git_internal",
                f"{original!r} is inside .git/; write through git commands instead",
            )
        if access == "write" and parts[:1] == (".codekeep",) and rel != ".codekeep/MEMORY.md":
            raise PathRefusedError(
                "path.state_dir",
                f"{original!r} is CodeKeep's own state; only .codekeep/MEMORY.md is writable",
            )
        if access == "write" and rel == "":
            raise PathRefusedError("path.root", "the workspace root itself cannot be written")


def _hard_linked(real: Path) -> bool:
    """A regular file with more than one name. Its other names cannot be proven to lie
    inside the workspace (or to be no secret) without scanning every mounted folder, so
    it counts as outside: a link to ``~/.aws/credentials`` or ``.env`` reads the same."""
    try:
        info = real.stat()
    except OSError:
        return False  # missing: a file to be created
    return stat.S_ISREG(info.st_mode) and info.st_nlink > 1


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)
