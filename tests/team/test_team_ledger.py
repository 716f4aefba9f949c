"""The team ledger on a real PostgreSQL: members' calls shipped from their own ledgers,
the report adding up, concurrent writers, and the database stopped mid-run."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import psycopg
import pytest

from codekeep.cli import main
from codekeep.ledger.ledger import ImportedCall, Ledger
from codekeep.ledger.prices import Bill
from codekeep.team.config import TeamConfig
from codekeep.team.errors import TeamError
from codekeep.team.ledger import TeamLedger
from codekeep.testing.postgres import PostgresServer
from tests.team.conftest import write_config

# A real PostgreSQL server (started once per session): end to end, as the other team modules.
pytestmark = pytest.mark.slow


def _record(ledger: Ledger, task: str, tokens: int, path: str = "app.py") -> None:
    ledger.record(task_id=task, call_type="read_code", model="gpt-4o", input_tokens=tokens,
                  output_tokens=10, files={path: tokens * 4})


def _member(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    root.mkdir()
    write_config(root, None, name)
    return root


def test_report_by_member_adds_up(tmp_path: Path, team_dsn: str) -> None:
    totals = {}
    for name, calls in (("alice", 3), ("bob", 2)):
        root = _member(tmp_path, name)
        with Ledger.open(root, start_flusher=False) as ledger:
            for i in range(calls):
                _record(ledger, f"{name}-task", 100 * (i + 1))
            team = TeamLedger(TeamConfig(team_dsn, name), root)
            assert team.ship(ledger) == calls
            assert team.ship(ledger) == 0  # nothing twice
            team.close()
        totals[name] = sum(100 * (i + 1) for i in range(calls))
    team = TeamLedger(TeamConfig(team_dsn, "lead"), tmp_path)
    report = team.report("member", None)
    assert {r["key"]: r["inputTokens"] for r in report["rows"]} == totals
    assert report["total"]["inputTokens"] == sum(totals.values())
    assert report["total"]["calls"] == 5
    by_file = team.report("file", None)
    assert by_file["rows"][0]["key"] == "app.py"
    team.close()


def test_cli_report_team_json(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                              team_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _member(tmp_path, "carol")
    monkeypatch.setenv("CODEKEEP_TEAM_DSN", team_dsn)
    with Ledger.open(root, start_flusher=False) as ledger:
        _record(ledger, "fix-login", 250)
        _record(ledger, "fix-login", 50)
    assert main(["ledger", "report", "--team", "--by", "task", "--json", "--root", str(root)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rows"] == [{"key": "fix-login", "calls": 2, "inputTokens": 300,
                               "outputTokens": 20, "cachedTokens": 0,
                               "costUsd": report["rows"][0]["costUsd"], "unpricedCalls": 0,
                               "estimatedCalls": 0}]
    assert main(["ledger", "report", "--team", "--root", str(root)]) == 0
    assert "carol" in capsys.readouterr().out


def test_team_report_counts_calls_as_the_members_own_report_does(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, team_dsn: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A streamed call imported twice as it grew is one call (its growth row is no call
    of its own), an unknown model's call is unpriced, a call without reported usage is
    estimated: the team's figures say what the member's say."""
    root = _member(tmp_path, "erin")
    monkeypatch.setenv("CODEKEEP_TEAM_DSN", team_dsn)
    with Ledger.open(root, start_flusher=False) as ledger:
        _record(ledger, "t", 100)
        ledger.record(task_id="t", call_type="other", model="gpt-4o",
                      prompt_text="count these words please", completion_text="counted")
        ledger.record(task_id="t", call_type="other", model="no-such-model-9",
                      input_tokens=40, output_tokens=4)
        streamed = [ImportedCall(source_id="host:msg_1", ts=1.8e9, task_id="t", session_id="s",
                                 model="gpt-4o", bill=Bill(50, output))
                    for output in (5, 30)]
        ledger.import_calls(streamed[:1])
        ledger.import_calls(streamed[1:])  # the same call, its answer grown
        own = ledger.report(task_id="t")
        assert TeamLedger(TeamConfig(team_dsn, "erin"), root).ship(ledger) == 5
    assert main(["ledger", "report", "--team", "--by", "task", "--json", "--root", str(root)]) == 0
    [row] = json.loads(capsys.readouterr().out)["rows"]
    assert own["total"]["calls"] == 4 and own["total"]["unpricedCalls"] == 1
    assert (row["calls"], row["unpricedCalls"], row["estimatedCalls"]) == (4, 1, 1)
    assert row["outputTokens"] == own["total"]["outputTokens"]
    assert main(["ledger", "report", "--team", "--root", str(root)]) == 0
    shown = capsys.readouterr().out
    assert ">=" in shown and "1 call unpriced" in shown and "1 call estimated" in shown


def test_cli_report_team_without_database(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CODEKEEP_TEAM_DSN", raising=False)
    root = tmp_path / "solo"
    root.mkdir()
    assert main(["ledger", "report", "--team", "--root", str(root)]) == 1
    assert "no team database configured" in capsys.readouterr().err


def test_four_concurrent_members_lose_nothing(tmp_path: Path, team_dsn: str) -> None:
    names = [f"m{i}" for i in range(4)]
    roots = {name: _member(tmp_path, name) for name in names}
    errors: list[BaseException] = []

    def work(name: str) -> None:
        try:
            with Ledger.open(roots[name], start_flusher=False) as ledger:
                team = TeamLedger(TeamConfig(team_dsn, name), roots[name])
                for round_ in range(5):
                    for i in range(20):
                        _record(ledger, f"{name}-{round_}", i + 1)
                    team.ship(ledger)
                team.close()
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with psycopg.connect(team_dsn) as conn:
        rows = conn.execute("SELECT member, count(*), sum(input_tokens) FROM team_calls "
                            "GROUP BY member ORDER BY member").fetchall()
    assert rows == [(name, 100, 5 * sum(range(1, 21))) for name in names]


def test_database_stopped_mid_run_then_outbox_drains(tmp_path: Path, pg: PostgresServer,
                                                     team_dsn: str) -> None:
    root = _member(tmp_path, "dora")
    with Ledger.open(root, start_flusher=False) as ledger:
        team = TeamLedger(TeamConfig(team_dsn, "dora"), root)
        for i in range(3):
            _record(ledger, "before", 10 + i)
        assert team.ship(ledger) == 3
        pg.stop()
        try:
            for i in range(4):
                _record(ledger, "while-down", 100 + i)
            with pytest.raises(TeamError) as caught:
                team.ship(ledger)
            assert "\n" not in str(caught.value)
            assert team.queued(ledger) == 4  # waiting, nothing lost
        finally:
            pg.start()
        # a crash after the team committed but before the mark moved: re-sent, not doubled
        mark = team.shipped_upto()
        assert team.ship(ledger) == 4
        team._set_mark(mark)
        assert team.ship(ledger) == 0
        assert team.queued(ledger) == 0
        team.close()
    with psycopg.connect(team_dsn) as conn:
        assert conn.execute("SELECT count(*), sum(input_tokens) FROM team_calls").fetchone() == (
            7, 10 + 11 + 12 + 100 + 101 + 102 + 103)
