"""Team memory and the team ledger on PostgreSQL (docs/team.md).

One developer's CodeKeep lives in per-workspace SQLite; a team shares a PostgreSQL
database named by the settings tree's ``team.dsn`` (``CODEKEEP_TEAM_DSN`` /
``codekeep.team.dsn`` / ``[team] dsn``). What is shared: memories written to (or
promoted into) the ``team`` scope, redacted before they leave the machine, and each
member's ledger counts. Without a DSN nothing here is touched.

* :mod:`config`  — the member's identity and a connection from ``settings.team``;
* :mod:`store`   — the one owner of the team database's SQL (the memory write path's
  target, recall queries, the ledger's batches and budget claims, migrations);
* :mod:`memory`  — the ``team`` scope's recall, listing and promotion requests;
* :mod:`ledger`  — shipping the local outbox, the team report, the team budget;
* :mod:`sender`  — the background sender and the detached ``codekeep ledger ship``;
* :mod:`backoff` — not paying a connect timeout per attempt after a failure.
"""

from codekeep.team.config import TeamConfig, team_config
from codekeep.team.errors import TeamError

__all__ = ["TeamConfig", "TeamError", "team_config"]
