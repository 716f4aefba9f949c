"""Killed mid cold index, nothing of CodeKeep outlives its process (processes).

``codekeep index`` (fork workers) and ``codekeep serve`` (workers from a fork server,
plus the resource tracker) are killed with SIGKILL while their worker processes parse.
Every process that descended from them must be gone within seconds, and the pipes
given to them as stdout and stderr must reach end-of-file (nothing holds them), as a
parent waiting on a killed command expects.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codekeep.common.uris import path_to_uri

pytestmark = pytest.mark.slow

GONE_WITHIN_S = 15.0


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def descendants(pid: int) -> set[int]:
    tree, found, todo = _children(), set(), [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.fixture(scope="module")
def big_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Enough code that a cold index keeps its workers busy for a while."""
    root = tmp_path_factory.mktemp("big") / "ws"
    for package in range(30):
        folder = root / f"pkg{package}"
        folder.mkdir(parents=True)
        for module in range(60):
            body = "".join(
                f"class Model{module}_{n}:\n    def method_{n}(self, value):\n"
                f"        return helper_{n}(value) + {n}\n\n\ndef helper_{n}(value):\n"
                f"    return [item * {n} for item in range(value)]\n\n\n"
                for n in range(25))
            (folder / f"mod{module}.py").write_text(body)
    return root


def _kill_while_workers_run(process: subprocess.Popen[bytes], workers: int) -> set[int]:
    """SIGKILL ``process`` once it has at least ``workers`` descendants; those pids."""
    deadline = time.monotonic() + 60
    family: set[int] = set()
    while time.monotonic() < deadline and process.poll() is None:
        family = descendants(process.pid)
        if len(family) >= workers:
            break
        time.sleep(0.05)
    assert process.poll() is None, "the index finished before it could be killed"
    assert len(family) >= workers, f"no worker processes appeared: {family}"
    time.sleep(0.3)  # the workers are parsing now
    family |= descendants(process.pid)
    process.send_signal(signal.SIGKILL)
    return family


def _assert_all_gone(process: subprocess.Popen[bytes], family: set[int]) -> None:
    # communicate returns only at end-of-file on stdout and stderr: no process holds them
    process.communicate(timeout=GONE_WITHIN_S)
    deadline = time.monotonic() + GONE_WITHIN_S
    while time.monotonic() < deadline and any(alive(pid) for pid in family):
        time.sleep(0.1)
    survivors = {pid: Path(f"/proc/{pid}/cmdline").read_bytes()[:120]
                 for pid in family if alive(pid)}
    assert survivors == {}


def test_killed_codekeep_index_leaves_no_worker(big_workspace: Path) -> None:
    (big_workspace / ".codekeep").exists() and subprocess.run(
        ["rm", "-rf", str(big_workspace / ".codekeep")], check=True)
    process = subprocess.Popen(
        [sys.executable, "-m", "codekeep", "index", "--root", str(big_workspace)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ})
    family = _kill_while_workers_run(process, workers=2)
    _assert_all_gone(process, family)


def _message(payload: dict[str, object]) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def test_killed_codekeep_serve_leaves_no_worker_fork_server_or_tracker(
        big_workspace: Path) -> None:
    subprocess.run(["rm", "-rf", str(big_workspace / ".codekeep")], check=True)
    process = subprocess.Popen(
        [sys.executable, "-m", "codekeep", "serve"], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ})
    assert process.stdin is not None
    process.stdin.write(_message({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"processId": os.getpid(), "capabilities": {},
                   "rootUri": path_to_uri(big_workspace),
                   "workspaceFolders": [{"uri": path_to_uri(big_workspace), "name": "ws"}]}}))
    process.stdin.write(_message({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    process.stdin.flush()
    family = _kill_while_workers_run(process, workers=3)  # fork server + workers
    _assert_all_gone(process, family)
