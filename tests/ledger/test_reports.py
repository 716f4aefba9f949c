from __future__ import annotations

import pytest

from codekeep.ledger import Ledger
from codekeep.ledger.days import parse_since
from codekeep.ledger.reports import render_text
from tests.ledger.support import START, FakeClock


@pytest.fixture
def busy(ledger: Ledger, clock: FakeClock) -> Ledger:
    ledger.set_budget("t1", limit=100_000)
    ledger.record(task_id="t1", call_type="read_code", model="gpt-4o", input_tokens=45_000,
                  output_tokens=2_000, files={"big.py": 9_000, "small.py": 1_000})
    ledger.record(task_id="t1", call_type="generate_code", model="gpt-4o", input_tokens=12_000,
                  output_tokens=18_000, cached_tokens=6_000)
    clock.advance(86_400)
    ledger.record(task_id="t2", call_type="summarize", model="claude-sonnet-4-5",
                  input_tokens=8_000, output_tokens=1_500)
    return ledger


def test_rows_by_type_with_shares_that_add_up(busy: Ledger) -> None:
    report = busy.report()
    assert [row["key"] for row in report["rows"]] == ["read_code.files", "generate_code",
                                                     "summarize"]
    first = report["rows"][0]
    assert (first["calls"], first["inputTokens"], first["outputTokens"]) == (1, 45_000, 2_000)
    assert first["share"] == pytest.approx(100 * 47_000 / 86_500, abs=0.05)
    assert sum(row["share"] for row in report["rows"]) == pytest.approx(100, abs=0.2)
    assert report["total"]["tokens"] == 86_500
    assert report["total"]["cachedTokens"] == 6_000
    expected_cost = (45_000 * 2.5 + 2_000 * 10 + 6_000 * 2.5 + 6_000 * 1.25 + 18_000 * 10
                     + 8_000 * 3 + 1_500 * 15) / 1e6
    assert report["total"]["costUsd"] == pytest.approx(expected_cost, abs=1e-5)


def test_by_file_task_day_and_model(busy: Ledger) -> None:
    by_file = busy.report()["byFile"]
    assert [(row["path"], row["tokens"], row["share"]) for row in by_file] == [
        ("big.py", 40_500, 90.0), ("small.py", 4_500, 10.0)]
    tasks = {row["key"]: row["calls"] for row in busy.report(group_by="task")["rows"]}
    assert tasks == {"t1": 2, "t2": 1}
    assert list(tasks) == ["t1", "t2"]                   # largest first
    busy.record(task_id="t3", call_type="plan", model="gpt-4o", input_tokens=200_000)
    days = [row["key"] for row in busy.report(group_by="day")["rows"]]
    assert days == ["2026-11-29", "2026-11-30"]          # chronological, not by size
    models = {row["key"] for row in busy.report(group_by="model")["rows"]}
    assert models == {"gpt-4o", "claude-sonnet-4-5"}
    files = busy.report(group_by="file")["rows"]
    assert [(row["key"], row["inputTokens"]) for row in files] == [("big.py", 40_500),
                                                                  ("small.py", 4_500)]


def test_task_report_shows_only_that_task_and_its_budget(busy: Ledger) -> None:
    report = busy.report(task_id="t1")
    assert report["total"]["calls"] == 2
    assert report["budget"]["task"] == {"taskId": "t1", "used": 77_000, "limit": 100_000,
                                        "ratio": 0.77, "hardStop": False}


def test_text_report_is_a_readable_table(busy: Ledger) -> None:
    text = render_text(busy.report(task_id="t1"))
    lines = text.splitlines()
    assert lines[0].split() == ["call", "type", "calls", "input", "output", "cached", "cost",
                                "$", "share"]
    assert any(line.startswith("read_code.files") and "45,000" in line for line in lines)
    assert "big.py" in text and "Budget (task t1): 77,000 / 100,000 tokens (77%)" in text


def test_empty_ledger_reports_zeroes(ledger: Ledger) -> None:
    report = ledger.report()
    assert report["rows"] == [] and report["byFile"] == []
    assert report["total"]["calls"] == 0
    assert "Budget: none set" in render_text(report)


def test_unknown_grouping_is_rejected(ledger: Ledger) -> None:
    with pytest.raises(ValueError, match="unknown grouping"):
        ledger.report(group_by="colour")


@pytest.mark.parametrize("text, seconds_back", [("24h", 86_400), ("7d", 7 * 86_400),
                                                ("2w", 14 * 86_400)])
def test_relative_since(text: str, seconds_back: int) -> None:
    assert parse_since(text, START).timestamp() == START - seconds_back


def test_absolute_since_and_bad_dates() -> None:
    assert parse_since("2026-11-29", START).isoformat() == "2026-11-29T00:00:00+00:00"
    assert parse_since("2026-11-29T10:00:00Z", START).timestamp() == START
    with pytest.raises(ValueError, match="cannot read 'yesterday'"):
        parse_since("yesterday", START)


def test_calls_the_endpoint_reported_no_usage_for_are_labelled_estimated(
        ledger: Ledger, clock: FakeClock) -> None:
    ledger.record(task_id="t", call_type="plan", model="gpt-4o", input_tokens=900,
                  output_tokens=100)
    counted = ledger.record(task_id="t", call_type="summarize", model="gpt-4o",
                            input_tokens=1_200, completion_text="a summary of the task")
    clock.advance(3 * 3600)  # a partial first day: the raw rows say it too
    ledger.record(task_id="t", call_type="summarize", model="gpt-4o",
                  prompt_text="a prompt", completion_text="an answer")
    assert counted.estimated and counted.to_json()["estimated"] is True
    for since in (None, parse_since("2026-11-29T11:00:00+00:00", clock.now)):
        report = ledger.report(task_id="t", since=since)
        rows = {row["key"]: row["estimatedCalls"] for row in report["rows"]}
        assert rows == ({"plan": 0, "summarize": 2} if since is None else {"summarize": 1})
        assert report["total"]["estimatedCalls"] == sum(rows.values())
    report = ledger.report(task_id="t")
    (warning,) = [w for w in report["warnings"] if w["kind"] == "estimated"]
    assert warning["calls"] == 2 and warning["text"].startswith("2 of 3 calls estimated (~)")
    lines = {line.split()[0]: line for line in render_text(report).splitlines() if line}
    assert "~" not in lines["plan"] and "~1,2" in lines["summarize"]
    assert "~" in lines["total"]
    assert "Warning: 2 of 3 calls estimated (~): the endpoint reported no usage" in \
        render_text(report)


def test_a_report_of_provider_counted_calls_says_nothing_is_estimated(busy: Ledger) -> None:
    report = busy.report()
    assert report["total"]["estimatedCalls"] == 0
    assert not [w for w in report["warnings"] if w["kind"] == "estimated"]
    assert "~" not in render_text(report)
