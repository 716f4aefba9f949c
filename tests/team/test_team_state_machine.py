"""Team writes go through the local state machine and feedback (one implementation):
two members on a real PostgreSQL, the second one's write decided against the first's."""

from __future__ import annotations

import psycopg
import pytest

from codekeep.memory.text import similarity
from tests.team.conftest import Member

# A real PostgreSQL server (started once per session): end to end, as the other team modules.
pytestmark = pytest.mark.slow

SECRET = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"

UPDATE_OLD = "Request handlers validate payloads with pydantic models before touching the database"
MERGE_OLD = "The deploy script uploads compiled assets to the S3 bucket and purges the CDN"
MERGE_NEW = "The deploy script uploads compiled assets to the S3 bucket and notifies Slack"


@pytest.mark.parametrize(
    ("first", "second", "action", "live"),
    [
        ("use pnpm", "don't use pnpm", "SUPERSEDE", ["don't use pnpm"]),
        ("staging deploys go to eu-west-1", "staging deploys go to us-east-2", "SUPERSEDE",
         ["staging deploys go to us-east-2"]),
        (UPDATE_OLD, UPDATE_OLD + " layer", "UPDATE", [UPDATE_OLD + " layer"]),
        (MERGE_OLD, MERGE_NEW, "MERGE", None),
        ("The API client retries three times on timeout and logs a warning",
         "API client retries on timeout", "SKIP",
         ["The API client retries three times on timeout and logs a warning"]),
    ],
)
def test_second_members_write_is_decided_like_a_local_one(
    member: Member, first: str, second: str, action: str, live: list[str] | None
) -> None:
    assert 0.60 <= similarity(MERGE_OLD, MERGE_NEW) < 0.85
    alice, bob = member("alice"), member("bob")
    key = "staging_region" if "staging" in first else None
    old = alice.remember(first, scope="team", key=key)
    new = bob.remember(second, scope="team", key=key)
    assert new.action == action
    contents = [m.content for m in alice.list(scope="team")]
    if live is None:  # merged: one row holding both halves
        (merged,) = contents
        assert "purges the CDN" in merged and "notifies Slack" in merged
    else:
        assert contents == live
    if action == "SUPERSEDE":
        assert new.previous_id == old.id
        gone = alice.get(old.id or "")
        assert gone is not None and gone.status == "superseded" and gone.superseded_by == new.id
        assert [(h["action"], h["member"]) for h in alice.history(old.id or "")] == [
            ("ADD", "alice"), ("SUPERSEDED", "bob")]
        assert [r.memory.id for r in alice.recall(second)] == [new.id]


def test_not_this_from_one_member_halves_the_score_for_everyone(member: Member) -> None:
    alice, bob = member("alice"), member("bob")
    added = alice.remember("the release branch is cut on fridays", scope="team")
    before = alice.recall("when is the release branch cut")[0]
    assert bob.not_this(added.id or "", "we moved to thursdays")
    after = alice.recall("when is the release branch cut")[0]
    assert after.memory.id == added.id and "not-this" in after.memory.flags
    assert after.score == pytest.approx(before.score * 0.5, rel=0.05)
    assert alice.undo_not_this(added.id or "")
    back = alice.recall("when is the release branch cut")[0]
    assert back.score == pytest.approx(before.score, rel=0.05)
    assert [(h["action"], h["member"]) for h in alice.history(added.id or "")][-2:] == [
        ("NOT_THIS", "bob"), ("UNDO_NOT_THIS", "alice")]


def test_confirming_an_observed_team_memory(member: Member) -> None:
    alice, bob = member("alice"), member("bob")
    observed = alice.remember("the nightly job reindexes search", scope="team",
                              source="summary")
    assert observed.action == "ADD"
    row = bob.get(observed.id or "")
    assert row is not None and row.status == "observed"
    assert bob.recall("nightly job reindexes") == []
    assert bob.confirm(observed.id or "")
    assert [r.memory.id for r in alice.recall("nightly job reindexes")] == [observed.id]


def test_repeated_sightings_from_two_tasks_count_once_each(member: Member) -> None:
    alice, bob = member("alice"), member("bob")
    text = "the cache is warmed on startup"
    first = alice.remember(text, scope="team", task_id="t1", source="agent")
    alice.remember(text, scope="team", task_id="t1", source="agent")
    bob.remember(text, scope="team", task_id="t1", source="agent")  # bob's t1 is another task
    row = alice.get(first.id or "")
    assert row is not None and row.support_count == 2


def test_feedback_reasons_and_forget_reasons_never_store_a_secret(
    member: Member, team_dsn: str
) -> None:
    alice = member("alice")
    added = alice.remember("the staging database is reset every monday", scope="team")
    assert alice.not_this(added.id or "", f"wrong, ask ops (token {SECRET})")
    assert alice.forget(added.id or "", f"rotated {SECRET}")
    with psycopg.connect(team_dsn) as conn:
        texts = [str(r) for r in conn.execute("SELECT * FROM team_memory_feedback")]
        texts += [str(r) for r in conn.execute("SELECT * FROM team_memory_history")]
        texts += [str(r) for r in conn.execute("SELECT * FROM team_memories")]
    assert texts and not any(SECRET in text for text in texts)
    assert any("[REDACTED" in text for text in texts)
