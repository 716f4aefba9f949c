"""Importing Claude Code transcripts (the JSONL format ccusage reads)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codekeep.cli import main
from codekeep.ledger import Ledger, claude_code_log_files
from codekeep.ledger.fold import FoldResult, fold_file
from codekeep.ledger.importers import ClaudeTranscript


def fold_all(ledger: Ledger, base: Path) -> FoldResult:
    result = FoldResult()
    for path in claude_code_log_files(base):
        result.add(fold_file(ledger, path, "claude-code"))
    return result


def assistant(message_id: str, request: str, *, session: str = "sess-1",
              ts: str = "2026-11-28T09:15:00.000Z", model: str = "claude-sonnet-4-5-20250929",
              usage: dict[str, int] | None = None,
              content: list[dict[str, object]] | None = None) -> dict[str, object]:
    return {
        "parentUuid": "p", "isSidechain": False, "userType": "external", "cwd": "/proj",
        "sessionId": session, "version": "2.0.0", "type": "assistant", "uuid": f"u-{message_id}",
        "timestamp": ts, "requestId": request,
        "message": {"id": message_id, "type": "message", "role": "assistant", "model": model,
                    "content": content or [{"type": "text", "text": "Done."}],
                    "usage": usage or {"input_tokens": 10, "cache_creation_input_tokens": 200,
                                       "cache_read_input_tokens": 3000, "output_tokens": 50}},
    }


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    base = tmp_path / "claude" / "projects"
    (base / "-proj" / "sess-1" / "subagents").mkdir(parents=True)
    lines = [
        {"type": "user", "sessionId": "sess-1", "timestamp": "2026-11-28T09:14:00Z",
         "message": {"role": "user", "content": "fix the bug"}},
        assistant("msg_1", "req_1"),
        assistant("msg_1", "req_1"),                    # streamed answer written twice
        assistant("msg_2", "req_2", usage={"input_tokens": 5, "output_tokens": 7}),
        assistant("msg_3", "req_3", model="<synthetic>"),
    ]
    text = "\n".join(json.dumps(line) for line in lines) + "\n{not json\n"
    (base / "-proj" / "sess-1.jsonl").write_text(text, encoding="utf-8")
    sub = assistant("msg_4", "req_4", session="sess-1", usage={"input_tokens": 1,
                                                               "output_tokens": 1})
    (base / "-proj" / "sess-1" / "subagents" / "agent-a.jsonl").write_text(
        json.dumps(sub) + "\n", encoding="utf-8")
    return base


def test_transcripts_are_read_with_cache_tokens_and_duplicates_collapsed(
        projects: Path, ledger: Ledger) -> None:
    result = fold_all(ledger, projects)
    assert result.files == 2
    assert result.skipped == {"not JSON": 1}
    assert (result.calls, result.duplicates) == (3, 0)
    report = ledger.report(group_by="task")
    assert [row["key"] for row in report["rows"]] == ["claude-code:sess-1"]
    total = report["total"]
    assert (total["calls"], total["inputTokens"], total["outputTokens"],
            total["cachedTokens"]) == (3, 3210 + 5 + 1, 58, 3000)
    # priced with the table: fresh input at input, cache writes at the cache-write rate
    # (1.25x input for Sonnet), cache reads at the cached rate
    assert total["costUsd"] == pytest.approx(
        (16 * 3.0 + 200 * 3.75 + 3000 * 0.30 + 58 * 15.0) / 1e6, abs=1e-6)


def test_importing_twice_adds_nothing(projects: Path, ledger: Ledger) -> None:
    fold_all(ledger, projects)
    again = fold_all(ledger, projects)
    assert (again.calls, again.grown) == (0, 0)
    assert ledger.report()["total"]["calls"] == 3


def test_imported_calls_keep_their_own_day(projects: Path, ledger: Ledger) -> None:
    fold_all(ledger, projects)
    assert [row["key"] for row in ledger.report(group_by="day")["rows"]] == ["2026-11-28"]


def test_cli_import(projects: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    assert main(["ledger", "import", str(projects), "--root", str(root), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary == {"files": 2, "imported": 3, "duplicates": 0, "errors": 0,
                       "skipped": {"not JSON": 1}}
    assert main(["ledger", "import", str(projects / "nowhere"), "--root", str(root)]) == 1
    assert "does not exist" in capsys.readouterr().err


def tool_use(name: str, **arguments: object) -> dict[str, object]:
    return {"type": "tool_use", "id": f"toolu_{name}", "name": name, "input": arguments}


@pytest.mark.parametrize("content, call_type", [
    ([{"type": "text", "text": "All done."}], "other"),
    ([tool_use("Read", file_path="/p/a.py")], "read_code.file"),
    ([tool_use("Read", file_path="/p/a.py"), tool_use("Read", file_path="/p/b.py")],
     "read_code.files"),
    ([tool_use("Grep", pattern="def main")], "read_code.directory"),
    ([tool_use("Read", file_path="/p/a.py"), tool_use("Edit", file_path="/p/a.py")],
     "generate_code"),
    ([tool_use("TodoWrite", todos=[])], "plan"),
    ([tool_use("Bash", command="pytest")], "tool"),
    ([{"type": "tool_use", "name": "Read", "input": "not an object"}], "read_code.file"),
])
def test_call_type_comes_from_the_tools_the_answer_asked_for(
        tmp_path: Path, content: list[dict[str, object]], call_type: str) -> None:
    log = tmp_path / "session.jsonl"
    log.write_text(json.dumps(assistant("m", "r", content=content)) + "\n", encoding="utf-8")
    reader = ClaudeTranscript()
    reader.feed(log.read_text(encoding="utf-8"))
    assert [call.call_type for call in reader.finish().calls] == [call_type]
