"""The team database's one owner: every PostgreSQL statement lives in this package.

``TeamDatabase`` connects and migrates; ``memories`` holds the shared memories' SQL.
"""

from codekeep.team.store.postgres import TeamDatabase

__all__ = ["TeamDatabase"]
