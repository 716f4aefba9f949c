"""Real processes: concurrent writers lose nothing; a SIGKILLed writer corrupts nothing."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codekeep.memory import MemoryService

pytestmark = pytest.mark.slow

WRITER = textwrap.dedent(
    """
    import secrets, sys, time
    from pathlib import Path
    from codekeep.memory import MemoryService
    root, user_dir, tag, count, mode = sys.argv[1:6]
    service = MemoryService.open(Path(root), user_dir=Path(user_dir))
    number = 0
    while mode == "forever" or number < int(count):
        result = service.remember(f"entry {tag}{number} carries {secrets.token_hex(6)} payload")
        assert result.action == "ADD", result
        print("COMMITTED", result.id, flush=True)
        number += 1
        if mode == "hold" and number == int(count):
            with service.project.transaction():
                for extra in range(50):
                    service.project.conn.execute(
                        "INSERT INTO events(task_id, at, event_type, summary, files, tokens) "
                        "VALUES ('uncommitted', 0, 'x', 'never committed', '[]', 1)")
                service.remember("a memory inside the open transaction")
                print("IN_TX", flush=True)
                time.sleep(60)
    """
)


def _spawn(root: Path, user_dir: Path, tag: str, count: int, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(root), str(user_dir), tag, str(count), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _committed(lines: list[str]) -> list[str]:
    return [line.split()[1] for line in lines if line.startswith("COMMITTED")]


def _check_database(path: Path) -> None:
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.execute("INSERT INTO memories_fts(memories_fts) VALUES ('integrity-check')")
    conn.close()


def test_two_processes_writing_concurrently_lose_nothing(workspace: Path, tmp_path: Path) -> None:
    user_dir = tmp_path / "user"
    writers = [_spawn(workspace, user_dir, tag, 120, "count") for tag in ("a", "b")]
    outputs = [w.communicate(timeout=240) for w in writers]
    for writer, (_, err) in zip(writers, outputs, strict=True):
        assert writer.returncode == 0, err
        assert "database is locked" not in err
    ids = [i for out, _ in outputs for i in _committed(out.splitlines())]
    assert len(ids) == 240 and len(set(ids)) == 240
    _check_database(workspace / ".codekeep" / "memory.db")
    with MemoryService.open(workspace, user_dir=user_dir) as service:
        stored = {m.id for m in service.list(limit=1000)}
    assert stored == set(ids)


def test_writer_killed_mid_transaction_leaves_committed_memories_intact(
    workspace: Path, tmp_path: Path
) -> None:
    user_dir = tmp_path / "user"
    writer = _spawn(workspace, user_dir, "k", 25, "hold")
    assert writer.stdout is not None
    lines: list[str] = []
    for line in writer.stdout:
        lines.append(line.strip())
        if line.startswith("IN_TX"):
            break
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=30)
    committed = _committed(lines)
    assert len(committed) == 25 and lines[-1] == "IN_TX"
    _check_database(workspace / ".codekeep" / "memory.db")
    with MemoryService.open(workspace, user_dir=user_dir) as service:
        stored = {m.id for m in service.list(limit=1000)}
        assert stored == set(committed)
        assert service.events.events("uncommitted") == []
        assert service.recall("inside the open transaction") == []
        assert service.remember("writes work again after the crash").action == "ADD"


def test_writer_killed_while_writing_fast_keeps_every_committed_memory(
    workspace: Path, tmp_path: Path
) -> None:
    user_dir = tmp_path / "user"
    writer = _spawn(workspace, user_dir, "f", 0, "forever")
    assert writer.stdout is not None
    lines: list[str] = []
    for line in writer.stdout:
        lines.append(line.strip())
        if len(lines) >= 40:
            break
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=30)
    _check_database(workspace / ".codekeep" / "memory.db")
    with MemoryService.open(workspace, user_dir=user_dir) as service:
        stored = {m.id for m in service.list(limit=10_000)}
    assert set(_committed(lines)) <= stored
