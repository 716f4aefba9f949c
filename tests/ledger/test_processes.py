"""Real processes: a SIGKILL loses at most the last second; two writers lose nothing."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

RECORDER = Path(__file__).with_name("recorder.py")
pytestmark = pytest.mark.slow


def start(root: Path, task: str, count: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    child = subprocess.Popen([sys.executable, str(RECORDER), str(root), task, str(count)],
                             stdout=subprocess.PIPE, text=True, env=env)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    return child


def stored(root: Path, sql: str) -> tuple:  # type: ignore[type-arg]
    with sqlite3.connect(root / ".codekeep" / "ledger.db") as conn:
        return tuple(conn.execute(sql).fetchone())


def test_sigkill_during_heavy_recording_loses_at_most_one_second(tmp_path: Path) -> None:
    child = start(tmp_path, "heavy", 0)
    assert child.stdout is not None
    progress: list[tuple[float, int]] = []
    deadline = time.time() + 2.5
    while time.time() < deadline:
        stamp, count = child.stdout.readline().split()
        progress.append((float(stamp), int(count)))
    killed_at = time.time()
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    for line in child.stdout:      # progress printed right before the kill
        stamp, count = line.split()
        progress.append((float(stamp), int(count)))

    rows, highest = stored(tmp_path, "SELECT COUNT(*), MAX(retry) FROM calls")
    recorded_a_second_before = max(count for stamp, count in progress
                                   if stamp <= killed_at - 1.0)
    assert recorded_a_second_before > 1000, "the child was not recording heavily"
    assert rows >= recorded_a_second_before
    assert highest == rows - 1                      # what survived is a complete prefix
    for rollup in ("rollup_task", "rollup_day"):     # roll-ups never disagree with rows
        assert stored(tmp_path, f"SELECT SUM(calls), SUM(input_tokens) FROM {rollup}") == (
            rows, rows * 100)


def test_two_writer_processes_at_once_lose_nothing(tmp_path: Path) -> None:
    count = 3000
    children = [start(tmp_path, task, count) for task in ("left", "right")]
    for child in children:
        assert child.stdout is not None
        output = child.stdout.read()
        assert child.wait(timeout=120) == 0
        assert output.rstrip().endswith("done")
    assert stored(tmp_path, "SELECT COUNT(*), COUNT(DISTINCT id) FROM calls") == (2 * count,
                                                                                   2 * count)
    for task in ("left", "right"):
        assert stored(tmp_path, f"SELECT SUM(calls), SUM(input_tokens) FROM rollup_task "
                                f"WHERE task_id = '{task}'") == (count, count * 100)
    for rollup in ("rollup_files", "rollup_task_files"):
        assert stored(tmp_path, f"SELECT SUM(tokens) FROM {rollup}") == (2 * count * 100,)


def run_script(root: Path, body: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    script = ("import sys, time\nfrom pathlib import Path\nfrom codekeep.ledger import Ledger\n"
              f"ledger = Ledger.open(Path({str(root)!r}), start_flusher=False)\n{body}")
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            env=env)


def test_interpreter_exit_flushes_without_close(tmp_path: Path) -> None:
    child = run_script(tmp_path, "for n in range(25):\n"
                                 "    ledger.record(task_id='t', call_type='plan', model='m',"
                                 " input_tokens=n)\n")
    assert child.wait(timeout=60) == 0
    assert stored(tmp_path, "SELECT COUNT(*), SUM(input_tokens) FROM calls") == (25, 300)


def test_a_budget_crossing_is_on_disk_before_the_call_returns(tmp_path: Path) -> None:
    child = run_script(tmp_path, "ledger.set_budget('t', limit=100)\n"
                                 "ledger.record(task_id='t', call_type='plan', model='m',"
                                 " input_tokens=80)\n"
                                 "print('crossed', flush=True)\n"
                                 "time.sleep(60)\n")
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "crossed"
    os.kill(child.pid, signal.SIGKILL)   # no flusher thread, no atexit: only the crossing write
    child.wait()
    assert stored(tmp_path, "SELECT COUNT(*) FROM calls") == (1,)
    assert stored(tmp_path, "SELECT key, threshold, used FROM budget_crossings") == ("t", 0.75, 80)
