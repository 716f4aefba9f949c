"""A team memory a model writes reaches teammates' recall only after a person confirms
it, whatever its evidence (two members on a real PostgreSQL)."""

from __future__ import annotations

import pytest

from tests.team.conftest import Member

# A real PostgreSQL server (started once per session): end to end, as the other team modules.
pytestmark = pytest.mark.slow

RELEASES = "Release branches are cut every Thursday"


def test_a_models_team_write_waits_for_a_person(member: Member) -> None:
    alice, bob = member("alice"), member("bob")
    (alice.root / "RELEASING.md").write_text("Release branches are cut every Thursday.\n")
    quoted = [{"file": "RELEASING.md", "quote": "cut every Thursday"}]
    written = alice.remember_asserted(RELEASES, scope="team", task_id="t1", evidence=quoted)
    assert "waits for a person's confirmation" in (written.reason or "")
    assert [r.memory.content for r in bob.recall("when are release branches cut")] == []
    # the model asserting it again, from other tasks, does not make it the team's
    for task in ("t2", "t3", "t4", "t5", "t6"):
        alice.remember_asserted(RELEASES, scope="team", task_id=task, evidence=quoted)
    assert [r.memory.content for r in bob.recall("when are release branches cut")] == []
    assert bob.confirm(written.id or "")
    assert [r.memory.content for r in bob.recall("when are release branches cut")] == [RELEASES]


def test_a_person_writing_to_the_team_needs_no_confirmation(member: Member) -> None:
    alice, bob = member("alice"), member("bob")
    alice.remember(RELEASES, scope="team")
    assert [r.memory.content for r in bob.recall("when are release branches cut")] == [RELEASES]
