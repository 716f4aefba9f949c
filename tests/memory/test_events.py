"""Event stream -> summaries -> knowledge: thresholds, structure, promotion, demotion."""

from __future__ import annotations

import sqlite3

import pytest

from codekeep.memory import MemoryService, events


def _big_output(n: int) -> str:
    return " ".join(f"line{i} of verbose tool output" for i in range(n))


def test_events_are_append_only(service: MemoryService) -> None:
    event = service.record_event("t1", "file_read", "read app/main.py", files=["app/main.py"])
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        service.project.conn.execute("UPDATE events SET summary = 'x' WHERE id = ?", (event.id,))
    assert [e.summary for e in service.events.events("t1")] == ["read app/main.py"]


def test_small_backlogs_are_not_summarised(service: MemoryService) -> None:
    for number in range(5):
        service.record_event(
            "t1", "file_read", f"read module{number}.py", files=[f"module{number}.py"]
        )
    assert service.list(kinds=["summary"]) == []
    assert len(service.events.unsummarised("t1")) == 5


def test_backlog_over_8000_tokens_is_summarised_with_files_operations_result(
    service: MemoryService,
) -> None:
    service.record_event(
        "t1",
        "file_read",
        "read app/api.py",
        files=["app/api.py"],
        data={"output": _big_output(700)},
    )
    service.record_event("t1", "file_edit", "edited app/api.py", files=["app/api.py"])
    assert service.list(kinds=["summary"]) == []
    service.record_event(
        "t1",
        "command",
        "ran tests",
        data={"command": "pytest -x", "exit_code": 1, "output": _big_output(700)},
    )
    (summary,) = service.list(kinds=["summary"])
    lines = summary.content.splitlines()
    assert lines[1].startswith("Files: app/api.py (read, edited)")
    assert lines[2].startswith("Operations:") and "`pytest -x`" in lines[2]
    assert lines[3] == "Result: command failed (exit 1): ran tests"
    assert summary.files == ["app/api.py"]
    assert service.events.unsummarised("t1") == []


def test_summary_waits_until_it_saves_three_times_its_cost(make_service) -> None:
    service = make_service(summary_threshold_tokens=10)
    service.record_event("t1", "file_read", "read a.py and b.py", files=["a.py", "b.py"])
    assert service.list(kinds=["summary"]) == []  # over the threshold, but the summary is bigger
    service.record_event("t1", "search", "searched retries", data={"output": _big_output(40)})
    assert len(service.list(kinds=["summary"])) == 1


def test_a_model_summary_is_stored_only_when_it_follows_the_template(
    service: MemoryService,
) -> None:
    service.record_event("t1", "file_edit", "edited net/retry.py", files=["net/retry.py"])
    backlog = service.summary_backlog("t1", force=True)
    assert backlog is not None
    good = '{"files": ["net/retry.py"], "operations": "edited the retry loop", "result": "ok"}'
    content, reason = events.model_summary("t1", backlog, good, service.root)
    assert reason is None and content is not None
    assert content.splitlines()[1:] == ["Files: net/retry.py",
                                        "Operations: edited the retry loop", "Result: ok"]
    for bad, why in (
        ("Refactored it, all good.", "not JSON"),
        ('{"files": ["net/retry.py"], "operations": "edited"}', "missing the result field"),
        ('{"files": ["net/ghost.py"], "operations": "x", "result": "y"}',
         "names a file that does not exist: net/ghost.py"),
        ('["net/retry.py"]', "not a JSON object"),
    ):
        content, reason = events.model_summary("t1", backlog, bad, service.root)
        assert content is None and reason is not None and why in reason
    summary_id = service.write_summary("t1", backlog, None, "the model's summary is not JSON")
    assert summary_id is not None and service.events.unsummarised("t1") == []
    summary = service.get(summary_id)
    assert summary is not None and "Files: net/retry.py" in summary.content  # the rule one
    assert [h["action"] for h in service.history(summary_id)] == ["ADD", "MODEL_SUMMARY_REJECTED"]


def test_end_task_keeps_the_scratchpad_findings(service: MemoryService) -> None:
    service.working_memory("t9").note("Config is loaded twice at startup", "app/config.py:12")
    result = service.end_task("t9")
    summary = service.get(result["summaryId"])
    assert summary is not None and "Config is loaded twice at startup" in summary.content


def test_a_fact_recurring_in_five_tasks_is_promoted_to_knowledge(service: MemoryService) -> None:
    for number in range(1, 6):
        task = f"task{number}"
        service.record_event(
            task,
            "command",
            "ran the unit tests",
            data={"command": "pytest -q tests/unit", "exit_code": 0},
        )
        service.end_task(task)
        hits = service.recall("pytest unit runs successfully", kinds=["fact"])
        if number < 5:
            assert hits == [], f"promoted too early (task {number})"
    (fact,) = service.recall("pytest unit runs successfully", kinds=["fact"])
    assert fact.memory.content == "`pytest -q tests/unit` runs successfully in this project"
    assert fact.memory.support_count == 5 and fact.memory.status == "active"
    assert "PROMOTE" in [h["action"] for h in service.history(fact.memory.id)]
    assert "inferred" in fact.memory.flags


def test_promoted_knowledge_unused_for_30_days_is_demoted(service: MemoryService, clock) -> None:
    for number in range(5):
        service.record_event(
            f"t{number}", "command", "lint", data={"command": "ruff check .", "exit_code": 0}
        )
        service.end_task(f"t{number}")
    (fact,) = service.list(kinds=["fact"])
    clock.advance(31)
    report = service.maintain()
    assert report.demoted == 1
    assert service.get(fact.id).status == "observed"  # type: ignore[union-attr]


def test_recurring_observation_without_evidence_is_not_promoted(service: MemoryService) -> None:
    for number in range(5):
        result = service.remember(
            "The nightly job seems to run at 02:00", source="automatic", task_id=f"t{number}"
        )
    memory = service.get(result.id or "")
    assert memory is not None and memory.status == "observed" and memory.support_count == 5
    assert "not promoted" in (result.reason or "")
    assert "PROMOTION_BLOCKED" in [h["action"] for h in service.history(memory.id)]
    assert service.recall("nightly job") == []


def test_stating_an_observed_fact_makes_it_knowledge_at_once(service: MemoryService) -> None:
    observed = service.remember("The nightly job runs at 02:00 UTC", source="automatic")
    assert service.recall("nightly job") == []
    stated = service.remember("The nightly job runs at 02:00 UTC", source="user")
    assert (stated.action, stated.id) == ("REINFORCE", observed.id)
    (hit,) = service.recall("nightly job")
    assert hit.memory.status == "active"
    assert "CONFIRM" in [h["action"] for h in service.history(observed.id or "")]
