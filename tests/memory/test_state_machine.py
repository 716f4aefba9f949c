"""Every transition of the write-path state machine, seen through the public service."""

from __future__ import annotations

from pathlib import Path

from codekeep.memory import MemoryService
from codekeep.memory.text import similarity


def _active_contents(service: MemoryService) -> list[str]:
    return sorted(m.content for m in service.list())


def test_add_creates_an_active_memory(service: MemoryService) -> None:
    result = service.remember("The billing module talks to Stripe through app/payments/client.py")
    assert result.action == "ADD"
    memory = service.get(result.id or "")
    assert memory is not None and memory.status == "active" and memory.scope == "project"


def test_same_content_reinforces_instead_of_duplicating(service: MemoryService, clock) -> None:
    first = service.remember("Migrations live in db/migrations and run with alembic")
    clock.advance(1)
    again = service.remember("migrations live in  db/migrations and run with Alembic.")
    assert (again.action, again.id) == ("REINFORCE", first.id)
    memory = service.get(first.id or "")
    assert memory is not None
    assert memory.support_count == 2
    assert memory.last_seen_at == clock.now
    assert len(service.list()) == 1


def test_reinforcement_from_the_same_task_counts_once(service: MemoryService) -> None:
    first = service.remember("The cache is warmed on startup", task_id="t1", source="agent")
    service.remember("The cache is warmed on startup", task_id="t1", source="agent")
    service.remember("The cache is warmed on startup", task_id="t2", source="agent")
    memory = service.get(first.id or "")
    assert memory is not None and memory.support_count == 2


def test_negation_conflict_supersedes_and_old_is_never_recalled(service: MemoryService) -> None:
    old = service.remember("use pnpm")
    new = service.remember("don't use pnpm")
    assert new.action == "SUPERSEDE" and new.previous_id == old.id
    superseded = service.get(old.id or "")
    assert superseded is not None
    assert superseded.status == "superseded" and superseded.superseded_by == new.id
    recalled = [r.memory.id for r in service.recall("pnpm")]
    assert recalled == [new.id]
    assert [h["action"] for h in service.history(old.id or "")] == ["ADD", "SUPERSEDED"]


def test_same_key_with_a_new_value_supersedes(service: MemoryService) -> None:
    old = service.remember("tests run with pytest -x")
    new = service.remember("tests run with pytest -q")
    assert new.action == "SUPERSEDE" and new.previous_id == old.id
    assert "pytest -x" in (new.reason or "") and "pytest -q" in (new.reason or "")
    assert service.preferences()["test_command"] == "pytest -q"


def test_explicit_custom_key_conflict_supersedes(service: MemoryService) -> None:
    service.remember("staging deploys go to eu-west-1", key="staging_region")
    result = service.remember("staging deploys go to us-east-2", key="staging_region")
    assert result.action == "SUPERSEDE"


def test_near_identical_wording_updates_in_place(service: MemoryService) -> None:
    old_text = (
        "Request handlers validate payloads with pydantic models before touching the database"
    )
    new_text = old_text + " layer"
    assert similarity(old_text, new_text) >= 0.85
    first = service.remember(old_text)
    result = service.remember(new_text, files=["app/handlers.py"])
    assert (result.action, result.id) == ("UPDATE", first.id)
    memory = service.get(first.id or "")
    assert memory is not None
    assert memory.content == new_text and memory.files == ["app/handlers.py"]
    assert service.history(first.id or "")[-1]["detail"]["before"] == old_text


def test_overlapping_content_merges_into_one_more_complete_memory(service: MemoryService) -> None:
    old_text = "The deploy script uploads compiled assets to the S3 bucket and purges the CDN"
    new_text = "The deploy script uploads compiled assets to the S3 bucket and notifies Slack"
    assert 0.60 <= similarity(old_text, new_text) < 0.85
    first = service.remember(old_text)
    result = service.remember(new_text)
    assert (result.action, result.id) == ("MERGE", first.id)
    merged = service.get(first.id or "")
    assert merged is not None
    assert "purges the CDN" in merged.content and "notifies Slack" in merged.content
    assert len(service.list()) == 1


def test_dissimilar_content_adds_a_second_memory(service: MemoryService) -> None:
    service.remember("The deploy script uploads assets to S3")
    result = service.remember("Integration tests need a running Redis on port 6380")
    assert result.action == "ADD"
    assert len(service.list(statuses=["active", "observed"])) == 2


def test_subset_of_known_memory_is_skipped(service: MemoryService) -> None:
    first = service.remember("The API client retries three times on timeout and logs a warning")
    result = service.remember("API client retries on timeout")
    assert (result.action, result.id) == ("SKIP", first.id)
    assert len(service.list()) == 1


def test_inferred_value_never_overrides_a_user_stated_one(service: MemoryService) -> None:
    service.remember("we use pnpm", source="user")
    result = service.remember("we use npm", source="agent")
    assert result.action == "SKIP" and "user-stated" in (result.reason or "")
    assert service.preferences()["package_manager"] == "pnpm"


def test_user_statement_supersedes_an_inferred_one(service: MemoryService) -> None:
    service.remember("we use npm", source="agent")
    result = service.remember("we use yarn", source="user")
    assert result.action == "SUPERSEDE"
    assert service.preferences()["package_manager"] == "yarn"


def test_forgotten_memory_is_not_relearned_by_the_agent(service: MemoryService) -> None:
    first = service.remember("The legacy importer is safe to delete", source="agent")
    assert service.forget(first.id or "", "wrong")
    again = service.remember("The legacy importer is safe to delete", source="agent")
    assert again.action == "SKIP" and "forgot" in (again.reason or "")
    assert service.recall("legacy importer") == []


def test_low_confidence_is_rejected_with_the_threshold(service: MemoryService) -> None:
    result = service.remember("Maybe the cron job runs hourly", confidence=0.4, source="agent")
    assert (
        result.action == "REJECT"
        and "0.4" in (result.reason or "")
        and "0.7" in (result.reason or "")
    )
    assert service.list(statuses=["active", "observed", "superseded", "disabled"]) == []


def test_case_requires_a_quote_found_in_its_file(service: MemoryService, workspace: Path) -> None:
    (workspace / "app").mkdir()
    (workspace / "app" / "db.py").write_text("POOL_SIZE = 20  # raised after the outage\n")
    missing = service.remember("Outage fixed by raising the pool size", kind="case")
    assert missing.action == "REJECT" and "evidence" in (missing.reason or "")
    wrong = service.remember(
        "Outage fixed by raising the pool size",
        kind="case",
        evidence={"file": "app/db.py", "quote": "POOL_SIZE = 50"},
    )
    assert wrong.action == "REJECT" and "not found" in (wrong.reason or "")
    outside = service.remember(
        "Outage fixed", kind="case", evidence={"file": "../x.py", "quote": "x"}
    )
    assert outside.action == "REJECT" and "outside the workspace" in (outside.reason or "")
    ok = service.remember(
        "Outage fixed by raising the pool size",
        kind="case",
        evidence={"file": "app/db.py", "quote": "pool_size = 20"},
    )
    assert ok.action == "ADD"
    case = service.get(ok.id or "")
    assert case is not None and case.status == "confirmed_resolved"
    assert case.evidence is not None and case.evidence["verified"] is True
    assert "historical" in case.flags


def test_preference_values_are_validated_against_the_catalog(service: MemoryService) -> None:
    bad = service.remember("verbosity: chatty", kind="preference")
    assert bad.action == "REJECT" and "concise" in (bad.reason or "")
    good = service.remember("verbosity: concise", kind="preference")
    assert good.action == "ADD"
    assert service.preferences()["verbosity"] == "concise"


def test_unslotted_preference_becomes_a_soft_preference(service: MemoryService) -> None:
    result = service.remember("explain the root cause before the fix", kind="preference")
    assert result.action == "ADD" and "soft preference" in (result.reason or "")
    memory = service.get(result.id or "")
    assert memory is not None and memory.kind == "soft_preference"


def test_one_off_requests_are_not_preferences(service: MemoryService) -> None:
    result = service.remember("be detailed this time", kind="preference")
    assert result.action == "REJECT" and "one-off" in (result.reason or "")


def test_bad_input_raises_a_clear_error(service: MemoryService) -> None:
    import pytest

    from codekeep.memory import MemoryInputError

    for kwargs in (
        {"kind": "gossip"},
        {"importance": 11},
        {"confidence": 1.5},
        {"scope": "galaxy"},
    ):
        with pytest.raises(MemoryInputError):
            service.remember("something", **kwargs)  # type: ignore[arg-type]
    with pytest.raises(MemoryInputError):
        service.remember("   ")


def test_user_scope_is_separate_and_merged_in_recall(
    service: MemoryService, tmp_path: Path
) -> None:
    user = service.remember("I like answers that cite file paths", scope="user")
    project = service.remember("This project cites file paths in every log line")
    assert (user.id or "").startswith("u") and (project.id or "").startswith("p")
    assert (tmp_path / "user" / "memory.db").exists()
    ids = {r.memory.id for r in service.recall("file paths")}
    assert ids == {user.id, project.id}


def test_writer_cannot_escape_its_scope(service: MemoryService) -> None:
    writer = service.writer(scope="user", source="agent")
    result = writer.remember("Prefers tabs in Go files")
    assert writer.scope == "user" and (result.id or "").startswith("u")
    assert "scope" not in writer.remember.__code__.co_varnames


def test_agent_rewording_does_not_rewrite_the_users_words(service: MemoryService) -> None:
    text = "Request handlers validate payloads with pydantic models before touching the database"
    first = service.remember(text, source="user")
    result = service.remember(text + " layer", source="agent")
    assert (result.action, result.id) == ("REINFORCE", first.id)
    memory = service.get(first.id or "")
    assert memory is not None and memory.content == text and memory.support_count == 2


def test_agent_additions_are_not_merged_into_user_memories(service: MemoryService) -> None:
    service.remember(
        "The deploy script uploads compiled assets to the S3 bucket and purges the CDN",
        source="user",
    )
    result = service.remember(
        "The deploy script uploads compiled assets to the S3 bucket and notifies Slack",
        source="agent",
    )
    assert result.action == "ADD"
    assert len(service.list(statuses=["active", "observed"])) == 2


def test_neighbours_are_found_among_many_memories_sharing_common_words(
    service: MemoryService,
) -> None:
    for number in range(300):
        service.remember(f"the service client handles request number{number} with retries{number}")
    target = service.remember(
        "the service client handles request timeouts with exponential backoff"
    )
    near = service.remember("the service client handles request timeouts with exponential backoffs")
    assert (near.action, near.id) == ("REINFORCE", target.id)
    merged = service.remember(
        "the service client handles request timeouts with exponential backoff and jitter"
    )
    assert (merged.action, merged.id) == ("UPDATE", target.id)
    negated = service.remember(
        "the service client never handles request timeouts with exponential backoff and jitter"
    )
    assert negated.action == "SUPERSEDE" and negated.previous_id == target.id


def test_negating_a_memory_md_preference_is_skipped_and_names_the_file(
    service: MemoryService,
) -> None:
    service.notes_path.parent.mkdir(parents=True, exist_ok=True)
    service.notes_path.write_text("## Preferences\n\n- package_manager: pnpm\n", encoding="utf-8")
    assert service.remember("we use pnpm").action == "REINFORCE"
    denied = service.remember("don't use pnpm")
    assert denied.action == "SKIP"
    assert "MEMORY.md" in (denied.reason or "") and "package_manager: pnpm" in (denied.reason or "")
    assert service.preferences()["package_manager"] == "pnpm"
    assert not [m for m in service.list() if "pnpm" in m.content and m.kind == "fact"]


def test_negating_a_remembered_preference_supersedes_it(service: MemoryService) -> None:
    stated = service.remember("package_manager: pnpm", kind="preference")
    denied = service.remember("never use pnpm")
    assert denied.action == "SUPERSEDE" and denied.previous_id == stated.id
    assert service.preferences()["package_manager"] == "auto"  # back to the default
