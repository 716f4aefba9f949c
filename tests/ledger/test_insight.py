"""Re-read insight and the summary-share warning of the ledger report."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from codekeep.ledger import Ledger
from codekeep.ledger.insight import compact
from codekeep.ledger.reports import render_text
from tests.ledger.support import FakeClock


@dataclass(frozen=True)
class Cheaper:
    tokens: int

    def to_json(self) -> dict[str, object]:
        return {"tool": "find_symbol", "query": "Session.send", "path": "sessions.py",
                "lines": 12, "tokens": self.tokens}


def _read(ledger: Ledger, task: str, path: str, tokens: int, *, fresh: bool = True) -> None:
    ledger.record(task_id=task, call_type="read_code", model="gpt-4o", input_tokens=tokens,
                  files={path: 4_000}, overhead={"system": 1_000}, fresh=[path] if fresh else [])


def test_a_file_read_again_in_one_task_is_named_with_a_cheaper_read(ledger: Ledger) -> None:
    for _ in range(4):
        _read(ledger, "t1", "sessions.py", 10_000)
    _read(ledger, "t1", "sessions.py", 10_000, fresh=False)  # carried again, not read again
    _read(ledger, "t1", "once.py", 5_000)
    report = ledger.report(task_id="t1", suggest=lambda path: Cheaper(1_200))
    files = report["rereads"]["files"]
    assert [f["path"] for f in files] == ["sessions.py"]  # once.py was read once
    entry = files[0]
    assert (entry["reads"], entry["tasks"], entry["tokens"]) == (4, 1, 5 * 8_000)
    assert entry["text"] == (
        "`sessions.py` read 4× (40k tokens) — `find_symbol Session.send` is 1.2k")
    assert entry["suggestion"]["query"] == "Session.send"
    assert report["rereads"]["scope"] == "task"
    assert "Files read more than once in this task" in render_text(report)
    assert entry["text"] in render_text(report)


def test_a_suggestion_that_is_not_cheaper_is_left_out(ledger: Ledger) -> None:
    _read(ledger, "t1", "a.py", 800)
    _read(ledger, "t1", "a.py", 800)
    entry = ledger.report(task_id="t1", suggest=lambda path: Cheaper(700))["rereads"]["files"][0]
    assert entry["suggestion"] is None and entry["text"] == "`a.py` read 2× (1.3k tokens)"


def test_files_read_across_the_last_tasks(ledger: Ledger, clock: FakeClock) -> None:
    for task in ("t1", "t2", "t3"):
        _read(ledger, task, "config.py", 2_000)
        clock.advance(60)
    report = ledger.report(last_tasks=2)  # t2 and t3 only
    entry = report["rereads"]["files"][0]
    assert (entry["path"], entry["reads"], entry["tasks"]) == ("config.py", 2, 2)
    assert report["rereads"] == {"scope": "recent", "lastTasks": 2, "files": [entry]}
    assert "across the last 2 tasks" in render_text(report)


def test_summaries_over_twenty_percent_of_a_task_are_warned_about(ledger: Ledger) -> None:
    ledger.record(task_id="t1", call_type="plan", model="gpt-4o", input_tokens=7_000,
                  output_tokens=0)
    ledger.record(task_id="t1", call_type="summarize", model="gpt-4o", input_tokens=2_000,
                  output_tokens=500)
    ledger.record(task_id="t2", call_type="plan", model="gpt-4o", input_tokens=9_000)
    ledger.record(task_id="t2", call_type="summarize", model="gpt-4o", input_tokens=1_000)
    warnings = ledger.report()["warnings"]
    assert [(w["taskId"], w["share"], w["summarizeTokens"], w["tokens"]) for w in warnings] == [
        ("t1", 26.3, 2_500, 9_500)]  # t2's summaries are exactly 10 %
    assert "summaryThresholdTokens" in warnings[0]["text"]
    assert f"Warning: {warnings[0]['text']}" in render_text(ledger.report())
    assert ledger.report(task_id="t2")["warnings"] == []


def test_a_report_kept_to_one_host_keeps_its_rereads_and_warnings_to_it(
        ledger: Ledger, clock: FakeClock) -> None:
    for task in ("claude-code:s1", "claude-code:s2"):
        _read(ledger, task, "views.py", 3_000)
        clock.advance(60)
    for task in ("t1", "t2", "t3"):  # our own agent's tasks, the most recent ones
        _read(ledger, task, "models.py", 2_000)
        ledger.record(task_id=task, call_type="summarize", model="gpt-4o", input_tokens=2_000)
        clock.advance(60)
    claude = ledger.report(host="claude-code", last_tasks=2)
    assert [f["path"] for f in claude["rereads"]["files"]] == ["views.py"]
    assert claude["warnings"] == []  # the summaries are our agent's
    own = ledger.report(host="codekeep", last_tasks=2)
    assert [f["path"] for f in own["rereads"]["files"]] == ["models.py"]
    assert [w["taskId"] for w in own["warnings"]] == ["t1", "t2", "t3"]
    assert [f["path"] for f in ledger.report(last_tasks=2)["rereads"]["files"]] == ["models.py"]


def test_overhead_buckets_are_checked(ledger: Ledger) -> None:
    with pytest.raises(ValueError, match="unknown overhead bucket"):
        ledger.record(task_id="t", call_type="plan", model="gpt-4o", input_tokens=5,
                      overhead={"memory": 3})
    with pytest.raises(ValueError, match="overhead bucket, not a file"):
        ledger.record(task_id="t", call_type="plan", model="gpt-4o", input_tokens=5,
                      files={"<system prompt>": 3})
    ledger.record(task_id="t", call_type="plan", model="gpt-4o", input_tokens=10,
                  files={"a.py": 30}, overhead={"system": 10, "tools": 0, "conversation": 10})
    report = ledger.report(task_id="t")
    assert [(r["path"], r["tokens"]) for r in report["byFile"]] == [("a.py", 6)]
    assert [(r["bucket"], r["tokens"]) for r in report["overhead"]] == [
        ("conversation", 2), ("system", 2)]


def test_compact_token_counts() -> None:
    assert [compact(n) for n in (950, 1_000, 1_234, 38_400)] == ["950", "1k", "1.2k", "38k"]
