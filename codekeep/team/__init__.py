"""Team memory and the team ledger on PostgreSQL (issue 17).

One developer's CodeKeep lives in per-workspace SQLite; a team shares a PostgreSQL
database named by ``CODEKEEP_TEAM_DSN`` / ``codekeep.team.dsn`` / ``[team] dsn``. What
is shared: memories written to (or promoted into) the ``team`` scope, redacted before
they leave the machine.
Without a DSN nothing here is touched and every local scope works as before.

* :mod:`config`  — where the DSN and the member's identity come from;
* :mod:`store`   — the one owner of the team database's SQL;
* :mod:`memory`  — the ``team`` scope: remember, list, recall, promote, forget.
"""

from codekeep.team.config import TeamConfig, team_config
from codekeep.team.errors import TeamError

__all__ = ["TeamConfig", "TeamError", "team_config"]
