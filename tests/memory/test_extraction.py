"""Memory learns from the conversation: rule stage, model stage, the gate."""

from __future__ import annotations

import json

from codekeep.memory import MemoryService
from codekeep.memory.extraction import clauses, extract
from codekeep.memory.model import STATUSES

PNPM = "We use pnpm in this repo, never npm, and the tests run with `pnpm test:unit`."


def _task(service: MemoryService, task: str, said: str) -> None:
    service.record_event(task, "user_message", said)
    service.end_task(task)


def _by_key(service: MemoryService, key: str) -> list[tuple[str, str | None, str]]:
    return [(m.status, m.value, m.source) for m in service.list(statuses=STATUSES)
            if m.key == key]


def test_clauses_split_a_sentence_into_what_rules_read() -> None:
    parts = [clause for _, clause in clauses(PNPM)]
    assert parts == ["We use pnpm in this repo", "never npm",
                     "the tests run with `pnpm test:unit`"]


def test_stated_preferences_are_observed_then_active_when_seen_again(
        service: MemoryService) -> None:
    _task(service, "t1", PNPM)
    first = extract(service, "t1")
    assert sorted((w["kind"], w["content"], w["action"]) for w in first.written) == [
        ("preference", "package_manager: pnpm", "ADD"),
        ("preference", "test_command: pnpm test:unit", "ADD")]
    assert _by_key(service, "package_manager") == [("observed", "pnpm", "automatic_rule")]
    assert service.preferences()["package_manager"] == "auto"  # observed: not acted on yet
    memory = next(m for m in service.list(statuses=STATUSES) if m.key == "test_command")
    assert memory.evidence is not None and memory.evidence["quote"] == \
        "the tests run with `pnpm test:unit`"
    assert memory.evidence["verified"] is True

    _task(service, "t2", "Remember: we use pnpm in this repo.")
    second = extract(service, "t2")
    assert [(w["action"], w["reason"]) for w in second.written] == [
        ("REINFORCE", "recurred 2 times; promoted to knowledge")]
    assert _by_key(service, "package_manager") == [("active", "pnpm", "automatic_rule")]
    assert service.preferences()["package_manager"] == "pnpm"


def test_a_one_off_request_never_becomes_a_preference(service: MemoryService) -> None:
    _task(service, "t1", "Use npm just this once, the lockfile is broken.")
    found = extract(service, "t1")
    assert found.written == []
    assert "one-off" in found.rejected[0]["reason"]
    assert _by_key(service, "package_manager") == []


def test_the_user_and_memory_md_beat_what_extraction_infers(service: MemoryService) -> None:
    service.notes_path.write_text("## Preferences\n\n- package_manager: yarn\n",
                                  encoding="utf-8")
    service.sync_notes()
    _task(service, "t1", PNPM)
    found = extract(service, "t1")
    skipped = next(w for w in found.written if w["content"] == "package_manager: pnpm")
    assert skipped["action"] == "SKIP"
    assert service.preferences()["package_manager"] == "yarn"


def test_the_user_confirms_an_observed_memory(service: MemoryService) -> None:
    _task(service, "t1", PNPM)
    extract(service, "t1")
    observed = next(m for m in service.list(statuses=STATUSES) if m.key == "package_manager")
    assert service.confirm(observed.id) is True
    assert service.preferences()["package_manager"] == "pnpm"
    assert service.confirm(observed.id) is False  # already active
    assert service.confirm("pnosuchid") is False
    assert [h["action"] for h in service.history(observed.id)][-1] == "CONFIRM"


def test_the_model_stage_keeps_only_verified_candidates(service: MemoryService) -> None:
    (service.root / "pyproject.toml").write_text('[tool.ruff]\nline-length = 100\n')
    _task(service, "t1", PNPM + " Keep answers short please.")
    summary = service.list(kinds=["summary"])[0]
    answer = "```json\n" + json.dumps({"memories": [
        {"kind": "preference", "key": "verbosity", "value": "concise",
         "content": "answers are concise", "confidence": 0.9,
         "evidence": {"source": "user", "quote": "Keep answers short please"}},
        {"kind": "fact", "content": "ruff allows lines of 100 characters", "confidence": 0.9,
         "evidence": {"source": "file", "file": "pyproject.toml", "quote": "line-length = 100"}},
        {"kind": "fact", "content": "the CI runs on Fridays", "confidence": 0.9,
         "evidence": {"source": "user", "quote": "CI runs on Fridays"}},
        {"kind": "fact", "content": "the deploy token is ghp_abcdefghijklmnopqrstuvwxyz0123456789",
         "confidence": 0.9, "evidence": {"source": "user", "quote": "We use pnpm"}},
        {"kind": "preference", "key": "package_manager", "value": "pnpm",
         "content": "package_manager: pnpm", "confidence": 0.4,
         "evidence": {"source": "user", "quote": "We use pnpm in this repo"}},
        "not an object",
    ]}) + "\n```"
    found = extract(service, "t1", answer, summary.id)
    written = {(w["stage"], w["content"]): w for w in found.written}
    secret = written.pop(("model", "the deploy token is "
                                   "ghp_abcdefghijklmnopqrstuvwxyz0123456789"))
    assert "redacted" in secret["reason"]  # the safety filter: stored without the token
    assert {key: w["action"] for key, w in written.items()} == {
        ("model", "verbosity: concise"): "ADD",
        ("model", "ruff allows lines of 100 characters"): "ADD",
        ("rule", "test_command: pnpm test:unit"): "ADD"}
    reasons = [r["reason"] for r in found.rejected]
    assert any("is not in the user's messages" in r for r in reasons)  # invented quote
    assert any("confidence 0.4 is below the threshold" in r for r in reasons)
    assert "a memory must be an object" in reasons
    # the model covered package_manager (and was refused): the rule stage does not redo it
    assert _by_key(service, "package_manager") == []
    assert all("ghp_" not in m.content for m in service.list(statuses=STATUSES))
    logged = [h for h in service.history(summary.id) if h["action"] == "EXTRACT_REJECTED"]
    assert len(logged) == 1 and len(logged[0]["detail"]["rejected"]) == len(found.rejected)


def test_malformed_model_output_loses_nothing(service: MemoryService) -> None:
    _task(service, "t1", PNPM)
    for answer in ("Sure! Here are the memories: pnpm", '{"memories": "pnpm"}', ""):
        found = extract(service, "t1", answer)
        assert found.rejected[0]["stage"] == "model"
        assert {w["content"] for w in found.written} == {"package_manager: pnpm",
                                                        "test_command: pnpm test:unit"}


def test_a_failure_fixed_in_the_task_becomes_a_case(service: MemoryService) -> None:
    service.record_event("t1", "command", "pytest -x -> exit 1",
                         data={"command": "pytest -x", "exit_code": 1})
    service.record_event("t1", "file_edit", "updated app/retry.py", files=["app/retry.py"])
    service.record_event("t1", "command", "pytest -x -> exit 0",
                         data={"command": "pytest -x", "exit_code": 0})
    service.end_task("t1")
    found = extract(service, "t1")
    case = next(w for w in found.written if w["kind"] == "case")
    assert case["content"] == "`pytest -x` failed (exit 1) and passed after editing app/retry.py"
    stored = service.get(case["id"])
    assert stored is not None and stored.status == "confirmed_resolved"
    assert stored.files == ["app/retry.py"] and stored.evidence is not None
    assert [item["verified"] for item in stored.evidence["items"]] == [True, True]


def test_a_quote_against_the_value_is_no_evidence_for_it(service: MemoryService) -> None:
    _task(service, "t1", PNPM + " Use ruff instead of flake8.")
    summary = service.list(kinds=["summary"])[0]
    answer = json.dumps({"memories": [
        {"kind": "preference", "key": "package_manager", "value": "npm",
         "content": "package_manager: npm", "confidence": 0.9,
         "evidence": {"source": "user", "quote": "never npm"}},
        {"kind": "preference", "key": "lint_command", "value": "flake8",
         "content": "lint_command: flake8", "confidence": 0.9,
         "evidence": {"source": "user", "quote": "Use ruff instead of flake8"}},
    ]})
    found = extract(service, "t1", answer, summary.id)
    reasons = [r["reason"] for r in found.rejected if r["stage"] == "model"]
    assert reasons == ["the quote is against 'npm', not for it",
                       "the quote is against 'flake8', not for it"]
    # the refused npm does not displace what the user said
    assert _by_key(service, "package_manager") == [("observed", "pnpm", "automatic_rule")]
