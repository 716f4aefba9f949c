"""Bad input from real Neovim gets one line and never a Lua error; :checkhealth codekeep
and :help codekeep."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.neovim.nvim import ERROR, INFO, WARN, assert_one_line_notes, run_scenario, write_project

NOT_RUNNING = {
    "message": "CodeKeep: the language server is not running (:checkhealth codekeep)",
    "level": WARN,
}
NO_FILE = {"message": "CodeKeep: the current window shows no file of the project", "level": WARN}
NOT_IN_RECALL = {
    "message": "CodeKeep: put the cursor on a memory in the :CodeKeepRecall buffer",
    "level": WARN,
}
COMMANDS = ("Find", "Refs", "Related", "Search", "Map", "Reindex", "Remember", "Recall",
            "NotThis", "Forget", "Notes", "Docs", "Ledger", "Budget", "Record", "Agent",
            "AgentCancel")


@pytest.mark.slow
def test_bad_input_health_and_help(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project")
    codekeep = Path(sys.executable).with_name("codekeep")  # the console script
    r = run_scenario("basics.lua", root, tmp_path, {"CK_CODEKEEP": str(codekeep)})
    assert_one_line_notes(r)

    # Before any server ran: each command says so, once.
    assert r["no_server"] and all(notes == [NOT_RUNNING] for notes in r["no_server"].values())
    assert r["cancel_idle"] == [{"message": "CodeKeep: no agent task is running", "level": WARN}]
    idle = r["health_idle"]
    assert f"OK executable: {codekeep} ({codekeep} serve)" in idle
    assert "OK version: codekeep 0.1.0" in idle  # from `codekeep --version`
    assert "server: not running" in idle

    # Without a model the agent explains how to configure one; the rest works.
    [no_model] = r["no_model"]
    assert no_model["level"] == ERROR
    assert no_model["message"].startswith("CodeKeep agent/run: no model is configured")
    assert "CODEKEEP_MODEL" in no_model["message"]

    # Empty or malformed arguments: what the command needs, with an example.
    expected = {
        "CodeKeepFind": ":CodeKeepFind needs a symbol name",
        "CodeKeepSearch  ": ":CodeKeepSearch needs a query",
        "CodeKeepRemember": ":CodeKeepRemember needs the text to remember",
        "CodeKeepRecall": ":CodeKeepRecall needs a query",
        "CodeKeepAgent": ":CodeKeepAgent needs a task",
        "CodeKeepMap many": ":CodeKeepMap takes a token budget",
        "CodeKeepDocs": ":CodeKeepDocs needs a question",
    }
    for command, start in expected.items():
        [note] = r["empty"][command]
        assert note["level"] == WARN and note["message"].startswith("CodeKeep: " + start), note
        assert ", e.g. :CodeKeep" in note["message"]
    [reindexed] = r["reindex"]
    assert re.fullmatch(r"CodeKeep: project reindexed: 3 files \(\d+ parsed, \d+ unchanged, "
                        r"0 removed\), 4 symbols in \d+\.\d s", reindexed["message"])
    assert r["unknown_id"][0]["message"] == "CodeKeep: no memory p000000000000 (already forgotten?)"

    # A window without a file: cursor commands say so; remembering links nothing.
    assert r["no_file"] == {
        "CodeKeepRelated": [NO_FILE], "CodeKeepRefs": [NO_FILE],
        "CodeKeepNotThis": [NOT_IN_RECALL], "CodeKeepForget": [NOT_IN_RECALL],
    }
    [remembered] = r["remember_without_file"]
    assert re.fullmatch(r"CodeKeep memory ADD \w+", remembered["message"])
    assert remembered["level"] == INFO
    [outside] = r["remember_outside"]
    assert re.fullmatch(r"CodeKeep memory ADD \w+", outside["message"])
    assert r["recall_outside"][0]["message"].startswith("CodeKeep: nothing remembered about")

    # :checkhealth codekeep
    health = r["health"]
    assert re.search(r"OK executable: \S+python\S* \(\S+ -m codekeep\.server", health)
    assert "OK version: codekeep 0.1.0" in health
    assert f"OK server running (client 1, root {root}, 1 buffers attached" in health
    # 7 uses: the imports and calls, and `circles` and `radius` passed as values (stored,
    # counted by find_references only where they resolve: docs/codemap.md)
    assert "OK index ready: 3 files, 4 symbols, 7 references (python 3)" in health
    assert "WARNING agent model: none configured" in health
    for store in ("index", "memory", "ledger", "docs"):
        assert f"OK {root}/.codekeep/{store}.db: SQLite" in health

    # :help: every command and option has a tag; :helptags accepted them all and each
    # one opens the line that defines it.
    assert r["help_on_load"].startswith("codekeep.txt:3. Commands")
    tags = set(r["tags"])
    assert {f":CodeKeep{name}" for name in COMMANDS} <= tags
    assert {f"codekeep-option-{name}" for name in (
        "enable", "lsp", "task_budget", "nudges", "recall_limit", "agent_capability"
    )} <= tags
    assert {"codekeep", "codekeep-statusline", "codekeep-lazy", "codekeep-health",
            "codekeep.setup()", "codekeep.statusline()", "codekeep.task_id()"} <= tags
    for tag, line in r["help"].items():
        assert line.startswith("codekeep.txt:") and f"*{tag}*" in line, (tag, line)


@pytest.mark.slow
def test_health_right_after_the_first_file_opens_waits_or_says_indexing(tmp_path: Path) -> None:
    """``:checkhealth codekeep`` at once after attach reported the server not ready (an
    error from a request the uninitialized client could not send) while it was starting."""
    root = write_project(tmp_path / "project")
    r = run_scenario("health_early.lua", root, tmp_path)
    health = r["health"]
    assert "OK server running (client 1" in health
    assert "ERROR" not in health, health
    assert re.search(r"OK index ready: \d+ files|OK indexing: \d+ of \d+ files", health), health
