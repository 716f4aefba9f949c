"""Importing Codex CLI session logs (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codekeep.cli import main
from codekeep.ledger import Ledger
from codekeep.ledger.codex_logs import codex_log_files
from codekeep.ledger.fold import FoldResult, fold_codex

SESSION = "019a9776-0a34-7842-8627-112b63d66e90"


def line(kind: str, payload: dict[str, Any], ts: str = "2026-11-28T10:00:00.000Z") -> str:
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload})


def token_count(last: dict[str, int], total: int, ts: str = "2026-11-28T10:00:05Z") -> str:
    usage = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0,
             "reasoning_output_tokens": 0, **last}  # fmt: skip
    info = {"last_token_usage": usage, "total_token_usage": {**usage, "total_tokens": total}}
    return line("event_msg", {"type": "token_count", "info": info, "rate_limits": {}}, ts)


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    base = tmp_path / "codex" / "sessions"
    day = base / "2026" / "11" / "28"
    day.mkdir(parents=True)
    lines = [
        line("session_meta", {"id": SESSION, "cwd": "/proj", "cli_version": "0.58.0"}),
        line("event_msg", {"type": "token_count", "info": None, "rate_limits": {}}),
        token_count({"input_tokens": 9, "output_tokens": 1}, 10),  # before any model: skipped
        line("turn_context", {"model": "gpt-5-codex", "cwd": "/proj"}),
        line("response_item", {"type": "function_call", "name": "shell", "arguments": "{}"}),
        token_count(
            {
                "input_tokens": 12_000,
                "cached_input_tokens": 8_000,
                "output_tokens": 300,
                "reasoning_output_tokens": 120,
            },
            12_300,
        ),
        token_count(
            {
                "input_tokens": 12_000,
                "cached_input_tokens": 8_000,
                "output_tokens": 300,
                "reasoning_output_tokens": 120,
            },
            12_300,
        ),  # repeated event
        line("response_item", {"type": "custom_tool_call", "name": "apply_patch", "input": "*"}),
        token_count(
            {"input_tokens": 13_000, "cached_input_tokens": 12_000, "output_tokens": 700}, 26_000
        ),
        token_count({"input_tokens": 100, "cached_input_tokens": 500}, 26_100),  # impossible
        "{not json",
    ]
    (day / f"rollout-2026-11-28T10-00-00-{SESSION}.jsonl").write_text("\n".join(lines) + "\n")
    return base


def test_rollouts_are_read_per_call_with_repeats_collapsed(sessions: Path, ledger: Ledger) -> None:
    scan = FoldResult()
    for path in codex_log_files(sessions):
        scan.add(fold_codex(ledger, path))
    assert scan.files == 1
    assert scan.skipped == {
        "not JSON": 1,
        "token count before any turn_context (no model)": 1,
        "cached tokens exceed input tokens": 1,
    }
    assert (scan.calls, scan.duplicates) == (2, 0)
    by_type = {row["key"] for row in ledger.report(group_by="type")["rows"]}
    assert by_type == {"tool", "generate_code"}
    report = ledger.report(group_by="task")
    assert [row["key"] for row in report["rows"]] == [f"codex:{SESSION}"]
    total = report["total"]
    assert (total["inputTokens"], total["outputTokens"], total["cachedTokens"]) == (
        25_000,
        1_000,
        20_000,
    )
    # gpt-5 prices: input 1.25, cached reads 0.125, output 10 (USD per 1M); no cache writes
    assert total["costUsd"] == pytest.approx(
        (5_000 * 1.25 + 20_000 * 0.125 + 1_000 * 10.0) / 1e6, abs=1e-9
    )


def test_cli_imports_codex_logs_once(
    sessions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "workspace"
    root.mkdir()
    args = ["ledger", "import", str(sessions), "--from", "codex", "--root", str(root), "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    second = json.loads(capsys.readouterr().out)
    # the second import starts at the first one's high-water mark: nothing new to read
    assert (first["imported"], second["imported"], second["duplicates"]) == (2, 0, 0)


def test_the_default_source_follows_codex_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "nowhere"))
    root = tmp_path / "workspace"
    root.mkdir()
    assert main(["ledger", "import", "--from", "codex", "--root", str(root)]) == 1
    assert "nowhere/sessions does not exist" in capsys.readouterr().err


def test_a_file_read_through_the_shell_costs_until_the_context_is_compacted(
        tmp_path: Path, open_ledger) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "proj"
    ledger = open_ledger(root=root)
    text = "def handler(event):\n    return event['body']\n" * 60
    shell = {"command": ["bash", "-lc", "sed -n '1,200p' src/app.py"], "workdir": str(root)}
    rollout = tmp_path / f"rollout-2026-11-28T10-00-00-{SESSION}.jsonl"
    rollout.write_text("\n".join([
        line("session_meta", {"id": SESSION, "cwd": str(root)}),
        line("turn_context", {"model": "gpt-5-codex", "cwd": str(root)}),
        line("response_item", {"type": "function_call", "name": "shell", "call_id": "c1",
                               "arguments": json.dumps(shell)}),
        token_count({"input_tokens": 3_000, "output_tokens": 40}, 3_040),
        line("response_item", {"type": "function_call_output", "call_id": "c1",
                               "output": json.dumps({"output": text,
                                                     "metadata": {"exit_code": 0}})}),
        line("response_item", {"type": "function_call", "name": "shell", "call_id": "c2",
                               "arguments": json.dumps({"command": ["rg", "handler"]})}),
        token_count({"input_tokens": 4_000, "cached_input_tokens": 3_000,
                     "output_tokens": 40}, 7_080),
        line("response_item", {"type": "function_call_output", "call_id": "c2",
                               "output": "src/app.py:1:def handler(event):"}),
        token_count({"input_tokens": 4_100, "cached_input_tokens": 4_000,
                     "output_tokens": 40}, 11_220),
        line("compacted", {"message": "summary"}),
        token_count({"input_tokens": 900, "output_tokens": 40}, 12_160),
    ]) + "\n")
    assert fold_codex(ledger, rollout).calls == 4
    report = ledger.report(task_id=f"codex:{SESSION}")
    files = {row["path"]: row for row in report["byFile"]}
    assert set(files) == {"src/app.py"}  # the search's output is context, not a file
    assert files["src/app.py"]["calls"] == 2  # the two calls after the read, not after compaction
    assert 0 < files["src/app.py"]["costUsd"] < report["total"]["costUsd"]
