"""The team scope on a real PostgreSQL: members share what they learn, promote with
redaction, recall merges local and team results by the same score."""

from __future__ import annotations

import threading

import psycopg
import pytest

from codekeep.memory import MemoryInputError
from codekeep.settings.team import NOT_CONFIGURED
from tests.common.secret_corpus import PROSE_FACT, PROSE_KEY
from tests.team.conftest import Member

# A real PostgreSQL server (started once per session): end to end, as the other team modules.
pytestmark = pytest.mark.slow

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def test_two_members_share_a_memory(member: Member) -> None:
    alice, bob = member("alice"), member("bob")
    added = alice.remember("staging deploys need the VPN", scope="team", importance=8)
    assert added.action == "ADD" and added.id and added.id.startswith("g")

    listed = bob.list(scope="team")
    assert [(m.id, m.content, m.author, m.scope) for m in listed] == [
        (added.id, "staging deploys need the VPN", "alice", "team")
    ]
    recalled = bob.recall("how do staging deploys work")
    assert recalled and recalled[0].memory.id == added.id
    assert recalled[0].to_json()["scope"] == "team"
    assert recalled[0].to_json()["author"] == "alice"
    # bob's own project memories stay his
    bob.remember("bob's local scratch note about deploys", scope="project")
    assert [m.scope for m in alice.list()] == []


def test_same_meaning_from_two_members_is_one_row_reinforced(member: Member) -> None:
    alice, bob = member("alice"), member("bob")
    first = alice.remember("the flaky test is fixed by clearing the cache", scope="team")
    second = bob.remember("The flaky test is fixed by clearing the cache.", scope="team")
    assert second.action == "REINFORCE" and second.id == first.id
    (row,) = bob.list(scope="team")
    assert row.support_count == 2
    assert [(h["action"], h["member"]) for h in bob.history(first.id or "")] == [
        ("ADD", "alice"),
        ("REINFORCE", "bob"),
    ]


def test_secret_redacted_before_it_reaches_the_team_database(member: Member, team_dsn: str) -> None:
    alice = member("alice")
    result = alice.remember(f"CI pushes with the token {SECRET} from the vault", scope="team")
    assert result.action == "ADD" and result.redactions
    with psycopg.connect(team_dsn) as conn:
        stored = [r[0] for r in conn.execute("SELECT content FROM team_memories")]
        history = [str(r[0]) for r in conn.execute("SELECT detail FROM team_memory_history")]
    assert stored and all(SECRET not in text for text in stored + history)
    assert "[REDACTED" in stored[0]


def test_a_secret_in_prose_reaches_the_team_database_redacted(member: Member,
                                                             team_dsn: str) -> None:
    """Written to the team scope, and promoted from a project row stored in clear before
    the detector knew the form."""
    alice = member("alice")
    assert alice.remember(PROSE_FACT, scope="team").redactions == ("secret in prose",)
    local = alice.remember("uploads go to the eu-west-1 bucket", importance=7)
    assert local.id is not None
    alice.project.update(local.id, content=f"uploads use the secret key {PROSE_KEY}")
    assert alice.promote(local.id, "team").redactions == ("secret in prose",)
    with psycopg.connect(team_dsn) as conn:
        stored = [r[0] for r in conn.execute("SELECT content FROM team_memories")]
        history = [str(r[0]) for r in conn.execute("SELECT detail FROM team_memory_history")]
    assert len(stored) == 2 and all("[REDACTED:secret in prose]" in text for text in stored)
    assert all(PROSE_KEY not in text for text in stored + history)


def test_promote_re_redacts_and_records_who(member: Member, team_dsn: str) -> None:
    alice, bob = member("alice"), member("bob")
    local = alice.remember("run migrations with make migrate before the deploy", importance=7)
    assert local.id and local.id.startswith("p")
    # a row written before the detector knew this secret form: promotion must catch it
    alice.project.update(local.id, content=f"run migrations with token {SECRET} first")

    promoted = alice.promote(local.id, "team")
    assert promoted.action == "PROMOTE" and promoted.id and promoted.id.startswith("g")
    assert promoted.redactions
    (shared,) = bob.list(scope="team")
    assert SECRET not in shared.content and "[REDACTED" in shared.content
    assert shared.author == "alice" and shared.evidence == {"promotedFrom": local.id}
    with psycopg.connect(team_dsn) as conn:
        (row,) = conn.execute("SELECT created_by, promoted_by FROM team_memories").fetchall()
    assert row == ("alice", "alice")
    assert alice.history(local.id)[-1]["action"] == "PROMOTED"
    # promoting again reinforces the team's row
    assert alice.promote(local.id, "team").action == "REINFORCE"


def test_promote_refuses_what_cannot_be_shared(member: Member) -> None:
    alice = member("alice")
    local = alice.remember("a fact that will be forgotten")
    assert local.id
    alice.forget(local.id)
    with pytest.raises(MemoryInputError, match="only active or confirmed"):
        alice.promote(local.id, "team")
    with pytest.raises(MemoryInputError, match="no memory with id"):
        alice.promote("p000000000000", "team")
    with pytest.raises(MemoryInputError, match="only to the team scope"):
        alice.promote(local.id, "user")


def test_recall_merges_local_and_team_by_score(member: Member) -> None:
    alice, bob = member("alice"), member("bob")
    alice.remember("the payments service retries webhooks three times", scope="team", importance=9)
    bob.remember("the payments service webhook secret rotates monthly", importance=2)
    found = bob.recall("payments service webhooks", limit=5)
    assert [r.memory.scope for r in found] == ["team", "project"]
    assert found[0].score >= found[1].score
    assert bob.team_warning is None


def test_a_team_recall_is_one_read_its_counts_written_later(
    member: Member, team_dsn: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A recall writes nothing to the team database: its counts wait and ride on a later
    recall's read once due, or are written when the member's service closes."""
    alice, bob = member("alice"), member("bob")
    added = alice.remember("the nightly build publishes to the artifact store", scope="team")

    def counted() -> tuple[int, float | None]:
        with psycopg.connect(team_dsn) as conn:
            row = conn.execute("SELECT access_count, last_accessed_at FROM team_memories "
                               "WHERE id = %s", (added.id,)).fetchone()
        assert row is not None
        return row[0], row[1]

    for _ in range(3):
        assert [r.memory.id for r in bob.recall("nightly build artifact")] == [added.id]
    assert counted() == (0, None)
    bob.close()
    count, last = counted()
    assert count == 3 and last is not None

    monkeypatch.setattr("codekeep.memory.store.access.MAX_AGE_SECONDS", 0.0)
    alice.recall("nightly build artifact")  # queued
    assert counted()[0] == 3
    alice.recall("nightly build artifact")  # due: carries the first, queues its own
    assert counted()[0] == 4


def test_forget_a_team_memory(member: Member) -> None:
    alice, bob = member("alice"), member("bob")
    added = alice.remember("use the old build server", scope="team")
    assert added.id and bob.forget(added.id, "moved")
    assert alice.list(scope="team") == []
    assert alice.recall("old build server") == []


def test_no_team_database_configured(member: Member) -> None:
    solo = member("solo", dsn=None)
    with pytest.raises(MemoryInputError) as caught:
        solo.remember("shared knowledge", scope="team")
    assert str(caught.value) == NOT_CONFIGURED
    with pytest.raises(MemoryInputError, match="no team database configured"):
        solo.list(scope="team")
    solo.remember("local still works")
    assert [r.memory.content for r in solo.recall("local still works")] == ["local still works"]


def test_four_members_writing_at_once_lose_nothing(member: Member) -> None:
    services = [member(f"w{i}") for i in range(4)]
    errors: list[BaseException] = []

    def work(index: int) -> None:
        try:
            for round_ in range(10):
                services[index].remember("the shared cache lives in redis", scope="team")
                tag = f"{index}x{round_}"  # distinct words: nothing to merge
                services[index].remember(
                    f"module{tag} needs flag{tag} before step{tag}", scope="team")
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    listed = services[0].list(scope="team", limit=1000)
    shared = [m for m in listed if m.content == "the shared cache lives in redis"]
    assert len(shared) == 1 and shared[0].support_count == 40
    assert len(listed) == 1 + 40
