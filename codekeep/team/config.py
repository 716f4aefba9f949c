"""Who this member is on the team database, and the team settings a service uses.

The DSN itself is resolved once, by the settings tree (``codekeep.settings.team``): the
doors pass ``settings.team`` in and :func:`team_config` only turns it into what the team
services need. The member: ``codekeep.team.member`` (``[team] member`` /
``CODEKEEP_TEAM_MEMBER``), else git's ``user.email``, else the OS user — it is what the
team rows record as the writer, promoter or spender.
"""

from __future__ import annotations

import getpass
import subprocess
from dataclasses import dataclass
from pathlib import Path

from codekeep.common.workspace import state_dir
from codekeep.settings.team import TeamSettings
from codekeep.team.backoff import FILE as BACKOFF_FILE
from codekeep.team.backoff import Backoff
from codekeep.team.store.postgres import TeamDatabase


@dataclass(frozen=True, slots=True)
class TeamConfig:
    dsn: str
    member: str
    connect_timeout_s: float = 5.0

    def database(self, root: Path | None = None) -> TeamDatabase:
        """A connection to the team database; with ``root``, failures back off for every
        process of that workspace (``.codekeep/team_backoff.json``)."""
        path = state_dir(root) / BACKOFF_FILE if root is not None else None
        return TeamDatabase(self.dsn, self.connect_timeout_s, Backoff(path))


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


def member_identity(root: Path, configured: str = "") -> str:
    """Who this member is on the team database (setting, git user.email, OS user)."""
    return configured.strip() or _git_email(root) or getpass.getuser()


def team_config(settings: TeamSettings | None, root: Path) -> TeamConfig | None:
    """The team configuration of the workspace at ``root``; None when no DSN is set."""
    if settings is None or not settings.dsn.strip():
        return None
    return TeamConfig(
        settings.dsn.strip(), member_identity(root, settings.member), settings.connect_timeout_s
    )
