"""The team database's one owner (every PostgreSQL statement) and the local outbox's.

``TeamDatabase`` connects and migrates; ``memories`` and ``calls`` are its tables;
``Outbox`` is the member's SQLite queue of ledger records not yet acknowledged by the
team database.
"""

from codekeep.team.store.outbox import Outbox
from codekeep.team.store.postgres import TeamDatabase

__all__ = ["Outbox", "TeamDatabase"]
