"""No evidence, no knowledge: what a model asserts through ``remember`` is knowledge only
when a quote backs it (a workspace file, or the user's own words in this task)."""

from __future__ import annotations

from pathlib import Path

from codekeep.memory import MemoryService
from codekeep.memory.model import STATUSES

FRIDAYS = "The project deploys to production on Fridays"


def recalled(service: MemoryService, query: str) -> list[str]:
    return [hit.memory.content for hit in service.recall(query)]


def test_a_fact_the_model_asserts_alone_is_only_observed(service: MemoryService) -> None:
    service.record_event("t1", "user_message", "Where is the deploy script?")
    written = service.remember_asserted(FRIDAYS, task_id="t1")
    stored = service.get(written.id or "")
    assert stored is not None and stored.status == "observed"
    assert "observed, not knowledge" in (written.reason or "")
    assert recalled(service, "when does the project deploy to production") == []
    assert FRIDAYS not in service.context_for_prompt("t2", query="deploy production")[0]


def test_confirming_it_makes_it_knowledge(service: MemoryService) -> None:
    written = service.remember_asserted(FRIDAYS, task_id="t1")
    assert service.confirm(written.id or "")
    assert recalled(service, "when does the project deploy to production") == [FRIDAYS]


def test_a_quote_from_a_workspace_file_makes_it_knowledge(service: MemoryService,
                                                          workspace: Path) -> None:
    (workspace / "DEPLOY.md").write_text("Production deploys happen every Friday at 10:00.\n")
    written = service.remember_asserted(FRIDAYS, task_id="t1", evidence=[
        {"file": "DEPLOY.md", "quote": "Production deploys happen every Friday"}])
    stored = service.get(written.id or "")
    assert stored is not None and stored.status == "active"
    assert stored.evidence is not None and stored.evidence["items"][0]["verified"] is True


def test_the_users_own_words_are_evidence(service: MemoryService) -> None:
    service.record_event("t1", "user_message", "FYI we deploy to production on Fridays.")
    quoted = service.remember_asserted(FRIDAYS, task_id="t1", evidence=[
        {"quote": "we deploy to production on Fridays"}])
    assert (service.get(quoted.id or "") or quoted).status == "active"
    # the content the user said is its own evidence, no quote needed
    service.record_event("t2", "user_message", "Remember: the staging database resets nightly.")
    said = service.remember_asserted("The staging database resets nightly.", task_id="t2")
    assert (service.get(said.id or "") or said).status == "active"


def test_a_quote_found_nowhere_is_refused(service: MemoryService, workspace: Path) -> None:
    service.record_event("t1", "user_message", "How do we deploy?")
    (workspace / "DEPLOY.md").write_text("Deploys run from CI.\n")
    unsaid = service.remember_asserted(FRIDAYS, task_id="t1", evidence=[
        {"quote": "we deploy on Fridays"}])
    invented = service.remember_asserted(FRIDAYS, task_id="t1", evidence=[
        {"file": "DEPLOY.md", "quote": "deploys on Fridays"}])
    assert unsaid.rejected and "not in what the user said" in (unsaid.reason or "")
    assert invented.rejected and "not found in DEPLOY.md" in (invented.reason or "")
    assert service.list(statuses=STATUSES) == []


def test_a_later_quote_supports_an_observed_fact(service: MemoryService,
                                                workspace: Path) -> None:
    first = service.remember_asserted(FRIDAYS, task_id="t1")
    (workspace / "DEPLOY.md").write_text("The project deploys to production on Fridays.\n")
    again = service.remember_asserted(FRIDAYS, task_id="t2", evidence=[
        {"file": "DEPLOY.md", "quote": "deploys to production on Fridays"}])
    assert again.id == first.id
    assert (service.get(first.id or "") or again).status == "active"


def test_sightings_without_evidence_never_make_it_knowledge(service: MemoryService) -> None:
    first = service.remember_asserted(FRIDAYS, task_id="t0")
    for task in range(1, 8):
        service.remember_asserted(FRIDAYS, task_id=f"t{task}")
    stored = service.get(first.id or "")
    assert stored is not None and stored.status == "observed" and stored.support_count == 8
