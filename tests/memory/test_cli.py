"""``codekeep memory …`` through the real command-line entry point."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from codekeep.cli import main
from tests.common.secret_corpus import PROSE_FACT, PROSE_KEY, files_holding


def run(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str, str]:
    code = main(["memory", *args, "--root", str(root)])
    out, err = capsys.readouterr()
    return code, out, err


def test_remember_recall_forget_round_trip(capsys, workspace: Path) -> None:
    code, out, _ = run(
        capsys,
        workspace,
        "remember",
        "The CLI entry point is codekeep/cli/__init__.py",
        "--importance",
        "8",
        "--file",
        "codekeep/cli/__init__.py",
        "--json",
    )
    assert code == 0
    added = json.loads(out)
    assert added["action"] == "ADD" and added["id"].startswith("p")

    code, out, _ = run(
        capsys, workspace, "remember", "The CLI entry point is codekeep/cli/__init__.py", "--json"
    )
    assert json.loads(out) == {
        "id": added["id"],
        "action": "REINFORCE",
        "reason": "same content seen again",
    }

    code, out, _ = run(capsys, workspace, "recall", "cli entry point", "--json")
    (memory,) = json.loads(out)["memories"]
    assert set(memory) == {
        "id",
        "kind",
        "status",
        "scope",
        "key",
        "content",
        "files",
        "symbols",
        "score",
        "scoreParts",
        "flags",
    }
    assert memory["files"] == ["codekeep/cli/__init__.py"]
    assert set(memory["scoreParts"]) == {"recency", "importance", "relevance"}

    code, out, _ = run(capsys, workspace, "forget", added["id"], "--json")
    assert code == 0 and json.loads(out) == {"ok": True, "id": added["id"]}
    code, out, err = run(capsys, workspace, "recall", "cli entry point", "--json")
    # nothing found: exit 1 like every query, the usual object with a reason
    reason = "no memories match 'cli entry point'"
    assert (code, json.loads(out)) == (1, {"memories": [], "reason": reason})
    assert reason in err
    code, out, _ = run(capsys, workspace, "list", "--all", "--json")
    assert [m["status"] for m in json.loads(out)["memories"]] == ["disabled"]


def test_rejection_exits_1_with_the_reason(capsys, workspace: Path) -> None:
    code, out, err = run(
        capsys, workspace, "remember", "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a", "--json"
    )
    assert code == 1
    assert json.loads(out)["action"] == "REJECT"
    assert "GitHub token" in err


def test_a_secret_in_prose_is_stored_redacted(capsys, workspace: Path,
                                              isolated_user_data: Path) -> None:
    for scope in ("project", "user"):
        code, out, _ = run(capsys, workspace, "remember", PROSE_FACT, "--scope", scope, "--json")
        assert code == 0 and json.loads(out)["redactions"] == ["secret in prose"]
    code, out, _ = run(capsys, workspace, "list", "--json")
    assert {m["content"] for m in json.loads(out)["memories"]} == {
        PROSE_FACT.replace(PROSE_KEY, "[REDACTED:secret in prose]")}
    assert files_holding(PROSE_KEY, workspace / ".codekeep", isolated_user_data) == []


def test_not_this_and_undo(capsys, workspace: Path) -> None:
    _, out, _ = run(capsys, workspace, "remember", "Timeouts come from the DNS resolver", "--json")
    memory_id = json.loads(out)["id"]
    assert run(capsys, workspace, "not-this", memory_id, "--reason", "it was TLS")[0] == 0
    _, out, _ = run(capsys, workspace, "recall", "timeouts", "--json")
    assert json.loads(out)["memories"][0]["flags"] == ["not-this"]
    assert run(capsys, workspace, "not-this", memory_id, "--undo")[0] == 0
    _, out, _ = run(capsys, workspace, "history", memory_id, "--json")
    actions = [h["action"] for h in json.loads(out)["history"]]
    assert actions == ["ADD", "NOT_THIS", "UNDO_NOT_THIS"]


def test_unknown_id_is_a_clear_error(capsys, workspace: Path) -> None:
    code, _, err = run(capsys, workspace, "forget", "p000000000000")
    assert code == 1 and "no memory with id 'p000000000000'" in err
    code, _, err = run(capsys, workspace, "history", "nonsense")
    assert code == 1 and "no memory" in err


def test_notes_template_init_and_sync_report(capsys, workspace: Path) -> None:
    code, out, _ = run(capsys, workspace, "notes", "--template")
    assert code == 0 and "## Preferences" in out and "- test_command:" in out
    assert not (workspace / ".codekeep" / "MEMORY.md").exists()
    run(capsys, workspace, "notes", "--template", "--init")
    notes = workspace / ".codekeep" / "MEMORY.md"
    text = notes.read_text().replace("- test_command: <!--", "- test_command: make test <!--")
    notes.write_text(text.replace("- verbosity: <!--", "- verbosity: loud <!--"), encoding="utf-8")
    code, out, err = run(capsys, workspace, "notes")
    assert code == 0 and "make test" in out
    assert "verbosity must be one of" in err
    code, out, _ = run(capsys, workspace, "notes", "--json")
    assert json.loads(out)["preferences"]["test_command"] == "make test"


def test_notes_template_init_never_overwrites_and_json_is_json(capsys, workspace: Path) -> None:
    code, out, _ = run(capsys, workspace, "notes", "--template", "--json")
    assert code == 0 and "## Preferences" in json.loads(out)["template"]
    code, out, _ = run(capsys, workspace, "notes", "--template", "--init", "--json")
    notes = workspace / ".codekeep" / "MEMORY.md"
    assert code == 0 and json.loads(out) == {"path": str(notes)}
    notes.write_text("## Notes\nMine.\n", encoding="utf-8")
    code, out, err = run(capsys, workspace, "notes", "--template", "--init")
    assert (code, out) == (1, "") and "already exists" in err
    assert notes.read_text(encoding="utf-8") == "## Notes\nMine.\n"


def test_purge_asks_and_needs_yes_without_a_terminal(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        workspace: Path) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # piped, as in a script: no terminal
    code, out, _ = run(capsys, workspace, "remember", "use npm", "--json")
    first = json.loads(out)
    run(capsys, workspace, "remember", "don't use npm", "--json")
    code, _, err = run(capsys, workspace, "purge")
    assert code == 1 and "--yes" in err
    listed = json.loads(run(capsys, workspace, "list", "--all", "--json")[1])["memories"]
    assert any(m["id"] == first["id"] for m in listed)
    code, out, _ = run(capsys, workspace, "purge", "--yes", "--json")
    assert code == 0 and json.loads(out) == {"deleted": 1}
    listed = json.loads(run(capsys, workspace, "list", "--all", "--json")[1])["memories"]
    assert [m["content"] for m in listed] == ["don't use npm"]


def test_case_with_evidence_from_the_command_line(capsys, workspace: Path) -> None:
    (workspace / "settings.toml").write_text("timeout = 30\n")
    code, _, err = run(
        capsys, workspace, "remember", "Flaky CI fixed by a longer timeout", "--kind", "case"
    )
    assert code == 1 and "verifiable evidence" in err
    code, out, _ = run(
        capsys,
        workspace,
        "remember",
        "Flaky CI fixed by a longer timeout",
        "--kind",
        "case",
        "--evidence",
        "settings.toml",
        "--quote",
        "timeout = 30",
        "--json",
    )
    assert code == 0 and json.loads(out)["action"] == "ADD"


def test_damaged_database_is_reported_and_left_alone(capsys, workspace: Path) -> None:
    db = workspace / ".codekeep" / "memory.db"
    db.parent.mkdir()
    db.write_bytes(b"this is not a database, but it is someone's file" * 100)
    before = db.read_bytes()
    code, _, err = run(capsys, workspace, "list")
    assert code == 1 and f"{db} is damaged" in err and "--repair" in err
    assert db.read_bytes() == before


def test_notes_edit_opens_the_editor_then_syncs(
    capsys, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys, pathlib\n"
        "p = pathlib.Path(sys.argv[1])\n"
        "p.write_text(p.read_text().replace('- verbosity: <!--', '- verbosity: detailed <!--'))\n"
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    monkeypatch.delenv("VISUAL", raising=False)
    code, out, _ = run(capsys, workspace, "notes", "--edit", "--json")
    assert code == 0
    assert json.loads(out)["preferences"]["verbosity"] == "detailed"


def test_extract_on_demand_then_confirm(capsys, workspace: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from codekeep.memory import MemoryService

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    with MemoryService.open(workspace) as service:
        service.record_event("t1", "user_message", "The tests run with `pytest -q`. "
                                                   "Just this once, use npm.")
    code, out, _ = run(capsys, workspace, "extract", "--task", "t1", "--json")
    found = json.loads(out)
    assert code == 0 and [w["content"] for w in found["written"]] == ["test_command: pytest -q"]
    code, out, err = run(capsys, workspace, "extract", "--task", "nope")
    assert code == 1 and "no events recorded for task 'nope'" in err
    memory_id = found["written"][0]["id"]
    code, out, _ = run(capsys, workspace, "confirm", memory_id)
    assert code == 0 and out.strip() == f"ok {memory_id}"
    code, _, err = run(capsys, workspace, "confirm", memory_id)
    assert code == 1 and "no observed memory with id" in err
