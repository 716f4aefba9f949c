"""Where the team DSN and the member's identity come from.

DSN, highest first: an explicit value (a command-line flag or the editor setting
``codekeep.team.dsn``), the environment ``CODEKEEP_TEAM_DSN``, the project config
(``[team] dsn`` in ``.codekeep/config.toml``, or ``[tool.codekeep.team] dsn`` in
``pyproject.toml``). The member: ``[team] member`` / ``CODEKEEP_TEAM_MEMBER``, else
git's ``user.email``, else the OS user — it is what the team rows record as the
writer, promoter or spender.
"""

from __future__ import annotations

import getpass
import os
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV_DSN = "CODEKEEP_TEAM_DSN"
ENV_MEMBER = "CODEKEEP_TEAM_MEMBER"


@dataclass(frozen=True, slots=True)
class TeamConfig:
    dsn: str
    member: str


def _project_team_table(root: Path) -> dict[str, Any]:
    """``[team]`` of ``.codekeep/config.toml``, else ``[tool.codekeep.team]`` of pyproject."""
    for path, trail in (
        (root / ".codekeep" / "config.toml", ("team",)),
        (root / "pyproject.toml", ("tool", "codekeep", "team")),
    ):
        try:
            table: Any = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        for name in trail:
            table = table.get(name) if isinstance(table, dict) else None
        if isinstance(table, dict):
            return table
    return {}


def _git_email(root: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", "config", "user.email"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    email = done.stdout.strip()
    return email or None


def member_identity(root: Path, configured: str | None = None) -> str:
    """Who this member is on the team database (setting, git user.email, OS user)."""
    for candidate in (configured, os.environ.get(ENV_MEMBER)):
        if candidate and candidate.strip():
            return candidate.strip()
    return _git_email(root) or getpass.getuser()


def resolve_team(root: Path, dsn: str | None = None) -> TeamConfig | None:
    """The team configuration of the workspace at ``root``; None when no DSN is set."""
    table = _project_team_table(root)
    found = dsn or os.environ.get(ENV_DSN) or table.get("dsn")
    if not isinstance(found, str) or not found.strip():
        return None
    member = table.get("member")
    configured = member if isinstance(member, str) else None
    return TeamConfig(found.strip(), member_identity(root, configured))
