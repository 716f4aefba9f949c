"""The agent from real Neovim, against the scripted OpenAI-compatible model on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest

from codekeep.testing.scripted_server import ScriptedModelServer, call, say
from tests.neovim.nvim import ERROR, INFO, WARN, assert_one_line_notes, run_scenario, write_project

USAGE = {"prompt_tokens": 400, "completion_tokens": 25}


@pytest.mark.slow
def test_agent_progress_answer_cancel_and_a_dying_server(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project")
    with ScriptedModelServer([
        call("read_file", {"path": "pkg/geometry.py"}, usage=USAGE),
        say("total_area is defined in pkg/geometry.py, line 8.", usage=USAGE),
        say("too late", delay=20, usage=USAGE),
        call("read_file", {"path": "pkg/geometry.py"}, usage=USAGE),
        say("still here", usage=USAGE),
        say("never", delay=30, usage=USAGE),
    ]) as model:
        r = run_scenario("agent.lua", root, tmp_path, {"CK_MODEL_URL": model.base_url})
    assert_one_line_notes(r)
    task = r["task"]
    assert r["statusline_start"] == "CodeKeep ✓ 0/1k tok"  # setup({task_budget = 1000})
    assert r["empty"]["level"] == WARN
    assert r["empty"]["message"].startswith("CodeKeep: :CodeKeepAgent needs a task")

    # $/progress (each step and tool call) and the nudge go into the buffer as they come,
    # the answer after them; the run is charged to the editor's task and its budget.
    buffer = r["buffer"]
    assert buffer[0] == "# CodeKeep agent: Where is total_area defined?"
    assert buffer[2] == f"Task {task} · explore"  # setup({agent_capability = 'explore'})
    steps = [line for line in buffer if line.startswith("- ")]
    assert steps == ["- SCAN · step 1/24", "- SCAN · step 1/24 · read_file",
                     "- EXPLORE · step 2/24"]
    nudge = buffer.index(next(line for line in buffer if line.startswith("> nudge (planning)")))
    assert buffer.index("- SCAN · step 1/24 · read_file") < nudge
    assert nudge < buffer.index("- EXPLORE · step 2/24") < buffer.index("## Answer")
    assert "total_area is defined in pkg/geometry.py, line 8." in buffer
    assert f"Task {task} · 2 iterations · 1 tool call · 850 tokens · stop: answered" in buffer
    assert buffer[-1] == "1. read_file ok · pkg/geometry.py"
    notes = [(note["level"], note["message"]) for note in r["run_notes"]]
    assert notes[0][0] == INFO and notes[0][1].startswith("CodeKeep agent (planning): Scan phase")
    assert notes[1:] == [
        (WARN, f"CodeKeep: task {task} has used 85 % of its token budget (850 of 1,000 tokens)"),
        (INFO, "CodeKeep agent: done (2 iterations, 850 tokens)"),
    ]
    assert r["statusline_after"] == "CodeKeep ✓ 850/1k tok" and r["task_after"] == task
    # The run ended its ledger task; a call without a task id continues the editor's task.
    assert r["recorded_after_run"] == f"{task}#2"

    # One task at a time; the statusline shows its step; cancel stops it.
    assert r["statusline_running"] == "CodeKeep ✓ 850/1k tok agent step 1/24"
    assert r["second"] == {
        "message": "CodeKeep: an agent task is already running (:CodeKeepAgentCancel stops it)",
        "level": WARN,
    }
    assert r["cancel"] == {"message": "CodeKeep agent: cancelled", "level": INFO}
    assert r["cancelled_buffer"][-1] == "Cancelled."
    assert "## Answer" not in r["cancelled_buffer"]
    assert r["cancel_again"] == {"message": "CodeKeep: no agent task is running", "level": WARN}
    # The next run works; its continuation of the task is over the budget now. With
    # nudges = false a nudge is in the buffer only.
    third = [(n["level"], n["message"]) for n in r["third_notes"]]
    assert third[0] == (ERROR, f"CodeKeep: task {task} is over its token budget: "
                        "1,275 of 1,000 tokens (127 %)")
    assert not any(message.startswith("CodeKeep agent (") for _, message in third)
    assert any(line.startswith("> nudge (") for line in r["third_buffer"])
    assert "still here" in r["third_buffer"]
    # :CodeKeepLedger of the task covers its continuations, with the re-read insight:
    # both runs read pkg/geometry.py.
    ledger = r["ledger"]
    assert ledger[0] == f"CodeKeep ledger: task {task}, by call type"
    at = ledger.index("Files read more than once in this task")
    assert ledger[at + 1].startswith("  `pkg/geometry.py` read 2× (")
    assert ledger[-1] == f"Budget (task {task}): 1,700 / 1,000 tokens (170%)"

    # The server dies mid-task: the task ends with one message; commands say so.
    assert {"message": "CodeKeep agent: the language server stopped; the task was interrupted",
            "level": ERROR} in r["died"]
    assert r["statusline_dead"] == "CodeKeep ✗"
    assert r["after_death"] == {
        "message": "CodeKeep: the language server is not running (:checkhealth codekeep)",
        "level": WARN,
    }
    # :edit brings a new server; the statusline and the editor's task come back with it.
    assert r["statusline_restarted"] == "CodeKeep ✓ 1.7k/1k tok"
    assert r["task_restarted"] == task
