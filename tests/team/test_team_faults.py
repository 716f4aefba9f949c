"""Faults of the team database: down, wrong credentials, not PostgreSQL, a newer schema,
migrations from empty and from an older schema — one-line reasons, local scopes intact."""

from __future__ import annotations

import psycopg
import pytest

from codekeep.memory import MemoryInputError
from codekeep.team.errors import TeamError
from codekeep.team.schema import MIGRATIONS
from codekeep.team.store import TeamDatabase
from codekeep.team.store.postgres import migrate, schema_version
from codekeep.testing.postgres import PostgresServer
from tests.team.conftest import Member

# A real PostgreSQL server (started once per session): end to end, as the other team modules.
pytestmark = pytest.mark.slow


def test_wrong_credentials_is_one_line(member: Member, pg: PostgresServer) -> None:
    alice = member("alice", dsn=pg.dsn("postgres", password="wrong"))
    with pytest.raises(MemoryInputError) as caught:
        alice.remember("shared", scope="team")
    assert "refused the credentials" in str(caught.value) and "\n" not in str(caught.value)
    assert "wrong" not in str(caught.value)  # the password is never echoed
    assert alice.remember("local still works").action == "ADD"
    found = alice.recall("local still works")
    assert [r.memory.scope for r in found] == ["project"]
    assert alice.team_warning and "refused the credentials" in alice.team_warning


def test_database_unreachable(member: Member, pg: PostgresServer) -> None:
    alice = member("alice", dsn=f"postgresql://postgres:x@127.0.0.1:{pg.port + 1}/postgres")
    with pytest.raises(MemoryInputError, match="not reachable"):
        alice.list(scope="team")
    assert alice.remember("still fine locally").action == "ADD"


def test_a_dsn_that_is_not_postgresql(member: Member) -> None:
    alice = member("alice", dsn="mysql://root@127.0.0.1/team")
    with pytest.raises(MemoryInputError, match="not a PostgreSQL connection string"):
        alice.remember("shared", scope="team")
    assert alice.remember("local").action == "ADD"


def test_newer_schema_is_refused_untouched(team_dsn: str) -> None:
    with psycopg.connect(team_dsn, autocommit=True) as conn:
        migrate(conn)
        conn.execute("UPDATE codekeep_team_schema SET version = %s", (len(MIGRATIONS) + 1,))
    db = TeamDatabase(team_dsn)
    with pytest.raises(TeamError, match="newer than this CodeKeep's"):
        db.run(lambda conn: None)
    with psycopg.connect(team_dsn) as conn:
        assert schema_version(conn) == len(MIGRATIONS) + 1


def test_migrations_from_empty_and_from_an_older_schema(member: Member, team_dsn: str) -> None:
    with psycopg.connect(team_dsn, autocommit=True) as conn:
        assert migrate(conn, upto=1) == 1  # what an older CodeKeep created
        conn.execute(
            "INSERT INTO team_memories (id, kind, status, content, fingerprint, importance, "
            "confidence, source, created_by, created_at, last_seen_at) VALUES ('gold00000001', "
            "'fact', 'active', 'kept across the upgrade', 'fp-old', 5, 1.0, 'user', 'eve', 1, 1)"
        )
    alice = member("alice")
    assert [m.content for m in alice.list(scope="team")] == ["kept across the upgrade"]
    with psycopg.connect(team_dsn) as conn:
        assert schema_version(conn) == len(MIGRATIONS)
        assert conn.execute("SELECT count(*) FROM team_calls").fetchone() == (0,)
