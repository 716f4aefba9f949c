"""``codekeep ledger …`` as a user types it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codekeep.cli import main


def run(root: Path, *argv: str) -> int:
    return main(["ledger", *argv, "--root", str(root)])


def test_record_then_report_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "big.py").write_text("x" * 300, encoding="utf-8")
    (tmp_path / "small.py").write_text("y" * 100, encoding="utf-8")
    assert run(tmp_path, "record", "--task", "T", "--type", "read_code", "--model", "gpt-4o",
               "--input", "1000", "--output", "20", "--file", "big.py",
               "--file", "small.py") == 0
    assert "recorded read_code.files call on task T" in capsys.readouterr().out
    assert run(tmp_path, "report", "--task", "T", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) >= {"rows", "byFile", "total", "budget"}
    assert {row["path"]: row["tokens"] for row in report["byFile"]} == {"big.py": 750,
                                                                       "small.py": 250}


def test_record_counts_prompt_and_completion_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "prompt.txt").write_text("Explain this function please.", encoding="utf-8")
    (tmp_path / "answer.txt").write_text("It adds two numbers.", encoding="utf-8")
    assert run(tmp_path, "record", "--task", "T", "--type", "summarize", "--model", "gpt-4o",
               "--prompt-file", str(tmp_path / "prompt.txt"),
               "--completion-file", str(tmp_path / "answer.txt"), "--json") == 0
    record = json.loads(capsys.readouterr().out)
    assert record["tokenSource"] == "tiktoken"
    assert record["inputTokens"] > 3 and record["outputTokens"] > 3


@pytest.mark.parametrize("argv, message", [
    (["--input", "5", "--prompt-file", "p.txt"], "either --input or --prompt-file"),
    (["--output", "5"], "give --input N"),
    (["--input", "5", "--file", "missing.py"], "cannot read missing.py"),
    (["--input", "5", "--completion-file", "missing.txt"], "cannot read missing.txt"),
    (["--input", "-5"], "non-negative"),
])
def test_bad_record_input_is_a_clear_error_and_stores_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
        message: str) -> None:
    assert run(tmp_path, "record", "--task", "T", "--type", "plan", "--model", "m", *argv) == 1
    assert message in capsys.readouterr().err
    assert run(tmp_path, "report", "--json") == 0
    assert json.loads(capsys.readouterr().out)["total"]["calls"] == 0


def test_budget_warnings_and_hard_stop(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path, "budget", "--task", "T", "--limit", "100", "--hard-stop") == 0
    assert "Budget (task T): 0 / 100 tokens (0%) hard stop" in capsys.readouterr().out
    record = ["record", "--task", "T", "--type", "plan", "--model", "m", "--input"]
    assert run(tmp_path, *record, "50") == 0
    assert capsys.readouterr().err == ""
    assert run(tmp_path, *record, "30") == 0
    assert ("warning: Token budget warning: task T used 80 of 100 tokens "
            "(80%, past the 75% mark)") in capsys.readouterr().err
    assert run(tmp_path, *record, "30") == 3
    err = capsys.readouterr().err
    assert "Token budget exceeded" in err and "budget exhausted" in err
    assert run(tmp_path, *record, "1") == 3
    assert "warning" not in capsys.readouterr().err          # each threshold warned once
    assert run(tmp_path, "report", "--task", "T", "--json") == 0
    assert json.loads(capsys.readouterr().out)["total"]["calls"] == 4   # all stored


def test_daily_budget_and_text_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path, "budget", "--daily", "1000") == 0
    assert run(tmp_path, "record", "--task", "A", "--type", "tool", "--model", "m",
               "--input", "10") == 0
    capsys.readouterr()
    assert run(tmp_path, "report", "--by", "task", "--since", "1d") == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:2] == ["task", "calls"]
    assert "Budget (day" in out and "10 / 1,000 tokens (1%)" in out


def test_bad_since_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path, "report", "--since", "last tuesday") == 1
    assert "cannot read 'last tuesday' as a date" in capsys.readouterr().err


def test_the_installed_command_warns_on_stderr(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    command = [sys.executable, "-m", "codekeep", "ledger"]
    subprocess.run([*command, "budget", "--task", "T", "--limit", "10", "--root", str(tmp_path)],
                   check=True, capture_output=True, env=env)
    done = subprocess.run([*command, "record", "--task", "T", "--type", "plan", "--model", "m",
                           "--input", "9", "--root", str(tmp_path)],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 0
    assert "warning: Token budget warning" in done.stderr
    assert "recorded plan call" in done.stdout


def test_a_damaged_database_is_a_clear_error_and_is_left_alone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    database = tmp_path / ".codekeep" / "ledger.db"
    database.parent.mkdir()
    database.write_bytes(b"this is not sqlite" * 100)
    assert run(tmp_path, "report") == 1
    err = capsys.readouterr().err
    assert f"{database} is damaged" in err and "--repair" in err
    assert database.read_bytes() == b"this is not sqlite" * 100


def test_report_of_a_task_without_calls_is_an_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path, "record", "--task", "T", "--type", "read_code", "--model", "gpt-4o",
               "--input", "1000", "--output", "20") == 0
    capsys.readouterr()
    assert run(tmp_path, "report", "--task", "nosuchtask") == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("", "codekeep: no calls recorded for task nosuchtask\n")
    # --json: the same exit status and message; stdout still holds the (empty) report.
    assert run(tmp_path, "report", "--task", "nosuchtask", "--json") == 1
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["rows"] == [] and report["total"]["calls"] == 0
    assert report["reason"] == "no calls recorded for task nosuchtask"
    assert err == "codekeep: no calls recorded for task nosuchtask\n"
    # A task with calls, and the whole ledger, are not affected.
    for argv in (["--task", "T"], []):
        assert run(tmp_path, "report", *argv, "--json") == 0
        out, err = capsys.readouterr()
        assert "reason" not in json.loads(out) and json.loads(out)["total"]["calls"] == 1
        assert err == ""
