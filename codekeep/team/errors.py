"""The one error every team operation raises: a one-line reason a user can act on."""

from __future__ import annotations

from codekeep.memory.model import MemoryInputError


class TeamError(MemoryInputError):
    """The team database is not configured, unreachable, refused us or is too new.

    The message is one line, shown as it is by every door (CLI, LSP, tools) — which
    already show a :class:`MemoryInputError` that way, so the memory service's shared
    write and feedback paths need no translation; local scopes keep working whatever
    it says.
    """


NOT_CONFIGURED = (
    "no team database configured: set CODEKEEP_TEAM_DSN, the editor setting "
    "codekeep.team.dsn or [team] dsn in .codekeep/config.toml"
)
