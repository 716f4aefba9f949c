"""The ledger from real Neovim: the editor's task, budgets, crossings through vim.notify
and statusline(), and the report in a scratch buffer."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.neovim.nvim import ERROR, INFO, WARN, assert_one_line_notes, run_scenario, write_project


@pytest.mark.slow
def test_budget_crossings_reach_notify_and_statusline(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project")
    r = run_scenario("ledger.lua", root, tmp_path)
    assert_one_line_notes(r)
    task = r["task"]
    assert re.fullmatch(r"task-\d{8}-\d{6}-[0-9a-f]{4}", task)
    assert r["statusline_before"] == ""  # no server has run in this session yet
    assert r["statusline_ready"] == "CodeKeep ✓"

    usage = r["budget_usage"]
    assert usage["level"] == WARN and usage["message"].startswith("CodeKeep: :CodeKeepBudget takes")
    assert r["budget_bad"] == usage and r["budget_bad_scope"] == usage
    assert r["budget_set"] == {
        "message": f"CodeKeep: budget of task {task} set to 1,000 tokens (0 used, 0 %)",
        "level": INFO,
    }
    assert r["statusline_budget"] == "CodeKeep ✓ 0/1k tok"

    # A call recorded without a task id lands on task_id(); each crossing is one
    # notification at its severity (the server's restating message is not shown twice).
    assert r["recorded_task"] == task
    assert r["warn"] == [{
        "message": f"CodeKeep: task {task} has used 85 % of its token budget "
        "(850 of 1,000 tokens)",
        "level": WARN,
    }]
    assert r["statusline_warn"] == "CodeKeep ✓ 850/1k tok"
    assert r["over"] == [{
        "message": f"CodeKeep: task {task} is over its token budget: 1,050 of 1,000 tokens (105 %)",
        "level": ERROR,
    }]
    assert r["statusline_over"] == "CodeKeep ✓ 1.05k/1k tok"
    assert "Token budget" not in r["messages"]
    # Every change fired User CodeKeepStatus (lualine can refresh on it): indexing
    # progress first, then ready, then each budget state.
    shown = list(dict.fromkeys(r["statuslines"]))
    assert shown[0].startswith("CodeKeep ⟳")
    assert shown[shown.index("CodeKeep ✓"):][:4] == [
        "CodeKeep ✓", "CodeKeep ✓ 0/1k tok", "CodeKeep ✓ 850/1k tok", "CodeKeep ✓ 1.05k/1k tok"
    ]

    # :CodeKeepLedger: the task by call type, by file, the budget; day / task views.
    ledger = r["ledger"]
    assert ledger[0] == f"CodeKeep ledger: task {task}, by call type"
    assert any(re.match(r"read_code\.file +2 +1,000 +50 ", line) for line in ledger)
    assert any(re.match(r"pkg/geometry\.py +2 +1,000 +100\.0%", line) for line in ledger)
    assert ledger[-1] == f"Budget (task {task}): 1,050 / 1,000 tokens (105%)"
    assert r["ledger_file"][2].startswith("file ")
    assert any(re.match(r"\d{4}-\d\d-\d\d +2 +1,000", line) for line in r["ledger_day"])
    assert any(re.match(re.escape(task) + r" +2 +1,000", line) for line in r["ledger_task"])
    assert r["ledger_bad"] == {
        "message": "CodeKeep: :CodeKeepLedger takes task, day, file, host, claude-code or codex "
        "(got 'week')",
        "level": WARN,
    }

    assert r["daily"]["message"] == "CodeKeep: daily budget set to 5,000 tokens (1,050 used, 21 %)"
    assert r["removed"]["message"] == f"CodeKeep: budget of task {task} removed"
    assert r["statusline_daily"] == "CodeKeep ✓ 1.05k/5k tok/day"

    assert r["record_usage"]["level"] == WARN
    assert r["record_usage"]["message"].startswith("CodeKeep: :CodeKeepRecord takes a model")
    assert r["record_bad_type"]["level"] == ERROR
    assert r["record_bad_type"]["message"].startswith(
        "CodeKeep ledger/record: Invalid params: 'callType' must be one of"
    )
    assert r["recorded"] == {
        "message": f"CodeKeep: recorded 1,230 tokens (read_code, gpt-4o) on task {task}",
        "level": INFO,
    }


@pytest.mark.slow
def test_a_claude_code_session_shows_live_in_statusline_and_ledger(tmp_path: Path) -> None:
    from tests.ledger.transcripts import SESSION, assistant, write

    root = write_project(tmp_path / "project")
    # dated now: the statusline shows today's calls per host, and the fixture's own date
    # would make this test fail on every later day
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    transcript = write(tmp_path / "claude" / f"{SESSION}.jsonl", [
        assistant("msg_1", ts=now, fresh=120, read=3000, write_5m=200, write_1h=1500,
                  output=40),
        assistant("msg_2", ts=now, model="claude-nova-9", fresh=10, output=10)])
    r = run_scenario("ledger_hosts.lua", root, tmp_path, env={"CK_TRANSCRIPT": str(transcript)})
    assert r["fold_code"] == 0
    assert "Claude Code" not in r["statusline_before"]
    # one priced call, one of a model the table does not know: a lower bound, not $0
    assert r["statusline_after"].endswith("Claude Code >=$0.0116")
    ledger = r["ledger"]
    assert any(line.startswith(f"claude-code:{SESSION}") and " 2 " in line for line in ledger)
    assert any(line.startswith("Warning: 1 call unpriced") and "claude-nova-9" in line
               for line in ledger)
