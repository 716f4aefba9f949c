"""Ledger records reach the team database by themselves: the background sender across a
database outage, backoff from a host that silently drops connections, the detached
sender after a CLI command, and the team's daily budget warning every member's editor."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from codekeep.cli import main
from codekeep.ledger.ledger import Ledger
from codekeep.ledger.records import BudgetEvent
from codekeep.team.backoff import Backoff
from codekeep.team.config import TeamConfig
from codekeep.team.ledger import TeamLedger
from codekeep.team.sender import TeamSender
from codekeep.team.store import TeamDatabase
from codekeep.testing.postgres import PostgresServer
from tests.server.lsp_harness import make_client, request, session, write_project
from tests.team.conftest import Member, write_config

pytestmark = pytest.mark.slow


def _record(ledger: Ledger, task: str, tokens: int) -> None:
    ledger.record(task_id=task, call_type="read_code", model="gpt-4o", input_tokens=tokens,
                  output_tokens=0, files={"app.py": tokens})


def _team_calls(dsn: str) -> tuple[int, int, int]:
    """(rows, distinct (member, id), input tokens) in the team database."""
    with psycopg.connect(dsn) as conn:
        if conn.execute("SELECT to_regclass('team_calls')").fetchone() == (None,):
            return 0, 0, 0  # no member has connected (and migrated) yet
        row = conn.execute("SELECT count(*), count(DISTINCT (member, id)), "
                           "coalesce(sum(input_tokens), 0) FROM team_calls").fetchone()
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])


def _eventually(check: Callable[[], bool], timeout: float = 40.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.1)


def test_background_sender_drains_the_outbox_across_an_outage(
    tmp_path: Path, pg: PostgresServer, team_dsn: str
) -> None:
    root = tmp_path / "erin"
    root.mkdir()
    ledger = Ledger.open(root)
    db = TeamDatabase(team_dsn, 2, Backoff(None, base_s=0.2, max_s=0.5))
    sender = TeamSender(ledger, TeamLedger(TeamConfig(team_dsn, "erin"), root, db),
                        interval_s=0.1, daily_budget=0, warn_ratios=(0.75,),
                        on_budget=lambda _event: None).start()
    try:
        for i in range(50):
            _record(ledger, "before", 1 + i)
        _eventually(lambda: _team_calls(team_dsn)[0] == 50)
        pg.stop()
        try:
            for i in range(120):  # recorded while the database is down: queued locally
                _record(ledger, "during", 100 + i)
            _eventually(lambda: sender.last_error is not None)
            assert "\n" not in (sender.last_error or "")
        finally:
            pg.start()
        for i in range(30):
            _record(ledger, "after", 1000 + i)
        _eventually(lambda: _team_calls(team_dsn)[0] == 200)
        time.sleep(0.5)  # a few more rounds: nothing is sent twice
        expected = sum(range(1, 51)) + sum(range(100, 220)) + sum(range(1000, 1030))
        assert _team_calls(team_dsn) == (200, 200, expected)
        assert sender.last_error is None
    finally:
        sender.close()
        ledger.close()


@pytest.fixture
def silent_host() -> Iterator[tuple[str, list[socket.socket]]]:
    """A TCP port that accepts connections and never answers (packets dropped by a
    firewall look the same to a client: a connect that only a timeout ends)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    port = listener.getsockname()[1]
    yield f"postgresql://nobody:pw@127.0.0.1:{port}/team", accepted
    stop.set()
    thread.join()
    for sock in accepted:
        sock.close()
    listener.close()


def test_a_silent_host_costs_one_timeout_then_backs_off(
    member: Member, silent_host: tuple[str, list[socket.socket]], tmp_path: Path
) -> None:
    dsn, accepted = silent_host
    alice = member("alice", dsn=dsn)
    root = alice.root
    with (root / ".codekeep" / "config.toml").open("a") as config:
        config.write("connectTimeoutS = 1\n")
    alice.close()
    alice = member("alice", dsn=dsn)
    alice.remember("local notes still answer")
    first = alice.recall("local notes")
    assert [r.memory.content for r in first] == ["local notes still answer"]
    assert alice.team_warning and "did not answer in time" in alice.team_warning
    assert len(accepted) == 1
    second = alice.recall("local notes")
    assert [r.memory.content for r in second] == ["local notes still answer"]
    assert alice.team_warning and "next try in" in alice.team_warning
    # another process of the workspace (the sender) reads the same backoff: no new attempt
    with Ledger.open(root, start_flusher=False) as ledger:
        _record(ledger, "t", 5)
        team = TeamLedger(TeamConfig(dsn, "alice", 1), root)
        sender = TeamSender(ledger, team, interval_s=60, daily_budget=0, warn_ratios=(1.0,),
                            on_budget=lambda _event: None)
        assert sender.run_once() == 0 and "next try in" in (sender.last_error or "")
        assert team.queued(ledger) == 1
        team.close()
    assert len(accepted) == 1
    # an explicit command always tries (and says why it failed)
    assert alice.list(scope="project")
    with pytest.raises(Exception, match="did not answer in time"):
        alice.list(scope="team")
    assert len(accepted) == 2


def test_cli_record_hands_its_call_to_a_detached_sender(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, team_dsn: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = tmp_path / "fred"
    root.mkdir()
    write_config(root, team_dsn, "fred")
    code = main(["ledger", "record", "--root", str(root), "--task", "cli", "--type",
                 "read_code", "--model", "gpt-4o", "--input", "321", "--output", "9"])
    assert code == 0
    _eventually(lambda: _team_calls(team_dsn)[0] == 1)
    assert _team_calls(team_dsn) == (1, 1, 321)
    assert main(["ledger", "ship", "--root", str(root)]) == 0
    assert "sent 0 call(s)" in capsys.readouterr().out
    assert _team_calls(team_dsn) == (1, 1, 321)


def test_team_budget_warnings_reach_every_member(tmp_path: Path, team_dsn: str) -> None:
    """Without an editor: each member's sender announces each threshold once."""
    events: dict[str, list[BudgetEvent]] = {"alice": [], "bob": []}
    ledgers, senders = {}, {}
    for name in events:
        root = tmp_path / name
        root.mkdir()
        ledgers[name] = Ledger.open(root)
        senders[name] = TeamSender(
            ledgers[name], TeamLedger(TeamConfig(team_dsn, name), root), interval_s=60,
            daily_budget=1000, warn_ratios=(0.75, 1.0), on_budget=events[name].append)
    try:
        _record(ledgers["alice"], "a", 800)
        for sender in senders.values():
            sender.run_once()
        _record(ledgers["bob"], "b", 300)
        for _ in range(2):
            for sender in senders.values():
                sender.run_once()
        for name, got in events.items():
            assert [(e.scope, e.threshold, e.limit) for e in got] == [
                ("team", 0.75, 1000), ("team", 1.0, 1000)], name
        assert events["alice"][1].used == events["bob"][1].used == 1100
        assert "the team's daily budget" in events["bob"][0].message()
    finally:
        for name, sender in senders.items():
            sender.close()
            ledgers[name].close()


def _budget_client() -> Any:
    client = make_client()
    client.budgets = []

    @client.feature("codekeep/budget")
    def on_budget(params: Any) -> None:
        client.budgets.append(params)

    return client


async def test_team_budget_warns_both_members_editors(tmp_path: Path, team_dsn: str) -> None:
    """Two real ``codekeep serve`` processes, one per member: alice's spend crosses the
    team's daily budget and both editors get ``codekeep/budget`` (scope ``team``)."""
    options = {"team": {"dsn": team_dsn, "dailyBudget": 1000, "shipIntervalS": 0.2}}
    projects = []
    for name in ("alice", "bob"):
        project = write_project(tmp_path / name)
        write_config(project, None, name)
        projects.append(project)
    async with session(projects[0], options=options, client_factory=_budget_client) as alice, \
            session(projects[1], options=options, client_factory=_budget_client) as bob:
        await request(alice, "codekeep/ledger/record", {
            "callType": "read_code", "model": "gpt-4o", "taskId": "big",
            "inputTokens": 900, "outputTokens": 0})
        for _ in range(400):
            if all(any(b.get("scope") == "team" for b in c.budgets) for c in (alice, bob)):
                break
            await asyncio.sleep(0.05)
        for client in (alice, bob):
            team = [b for b in client.budgets if b.get("scope") == "team"]
            assert [(b["used"], b["limit"], b["threshold"]) for b in team] == [(900, 1000, 0.75)]


def test_a_closing_workspace_hands_its_queue_to_a_detached_sender(
    tmp_path: Path, team_dsn: str
) -> None:
    """A server or agent run that stops between two rounds leaves nothing behind."""
    from codekeep.services import WorkspaceServices
    from codekeep.settings import load_settings

    root = write_project(tmp_path / "gina")
    write_config(root, team_dsn, "gina")
    with (root / ".codekeep" / "config.toml").open("a") as config:
        config.write("shipIntervalS = 3600\n")  # no second round before the close
    services = WorkspaceServices.open(root, load_settings(root).settings)
    assert services.sender is not None
    for i in range(25):
        _record(services.ledger, "agent-task", 10 + i)
    services.close()
    _eventually(lambda: _team_calls(team_dsn)[0] == 25)
    assert _team_calls(team_dsn) == (25, 25, sum(range(10, 35)))
