"""The one error every team operation raises: a one-line reason a user can act on."""

from __future__ import annotations

from codekeep.memory.team_scope import TeamUnavailable


class TeamError(TeamUnavailable):
    """The team database is not configured, unreachable, refused us or is too new.

    The message is one line, shown as it is by every door (CLI, LSP, tools) — which
    already show a :class:`MemoryInputError` that way, so the memory service's shared
    write and feedback paths need no translation; local scopes keep working whatever
    it says.
    """

