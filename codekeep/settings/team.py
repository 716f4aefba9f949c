"""The team database (``codekeep.team``, docs/team.md).

This section is the one place the team database is configured: the DSN comes from the
settings layers (``CODEKEEP_TEAM_DSN``, the editor's ``codekeep.team.dsn``, ``[team]
dsn`` in the project config) and every door hands ``settings.team`` to the services.
``dsn`` empty means no team scope and no team ledger. ``member`` is who this developer
is on the team database (empty: git's ``user.email``, else the OS user).
``daily_budget`` is the whole team's token allowance per day; every member's editor is
warned as the team's spend crosses the ledger's ``warn_ratios`` of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from codekeep.settings.fields import check_bounds, setting


@dataclass(frozen=True, slots=True)
class TeamSettings:
    dsn: str = setting(
        "PostgreSQL connection string of the team database (empty: no team scope).",
        default="", env=("CODEKEEP_TEAM_DSN",), secret=True)
    member: str = setting(
        "Who you are on the team database (empty: git user.email, else the OS user).",
        default="", env=("CODEKEEP_TEAM_MEMBER",))
    daily_budget: int = setting(
        "Tokens (input + output) the whole team may spend per day; every member's editor "
        "is warned at the ledger's `warnRatios` of it (0: no team budget).",
        default=0, minimum=0)
    connect_timeout_s: float = setting(
        "Seconds to wait for the team database to answer a connection; after a failure "
        "implicit uses (recall, the background sender) wait before trying again.",
        default=5.0, above=0)
    ship_interval_s: float = setting(
        "Seconds between the background sender's looks at the outbox and the team's spend.",
        default=10.0, above=0)

    def __post_init__(self) -> None:
        check_bounds(self)


# What every door says when the team scope or ledger is asked for without a DSN.
NOT_CONFIGURED = (
    "no team database configured: set CODEKEEP_TEAM_DSN, the editor setting "
    "codekeep.team.dsn or [team] dsn in .codekeep/config.toml"
)
