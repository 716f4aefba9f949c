"""The team database (``codekeep.team``; issue 17, docs/team.md).

``dsn`` is a PostgreSQL connection string (``CODEKEEP_TEAM_DSN``, the editor's
``codekeep.team.dsn``, ``[team] dsn`` in the project config); empty means no team
scope and no team ledger. ``member`` is who this developer is on the team database
(empty: git's ``user.email``, else the OS user).
"""

from __future__ import annotations

from dataclasses import dataclass

from codekeep.settings.fields import setting


@dataclass(frozen=True, slots=True)
class TeamSettings:
    dsn: str = setting(
        "PostgreSQL connection string of the team database (empty: no team scope).",
        default="", env=("CODEKEEP_TEAM_DSN",), secret=True)
    member: str = setting(
        "Who you are on the team database (empty: git user.email, else the OS user).",
        default="", env=("CODEKEEP_TEAM_MEMBER",))
