"""Folders added and removed at run time (processes).

A real ``codekeep serve``: the filesystem root and a home directory are refused with a
message (nothing is created there); a big folder removed while its cold index runs
stops indexing (its workers go, its index stays partial); shutdown and exit are then
prompt and leave no process behind.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest
from lsprotocol import types

from codekeep.common.uris import path_to_uri
from tests.processes.test_orphans import alive, big_workspace, descendants
from tests.server.lsp_harness import request, session, wait_until, write_project

__all__ = ["big_workspace"]  # the module fixture, shared

pytestmark = pytest.mark.slow


def _folders(added: list[Path] = (), removed: list[Path] = ()
             ) -> types.DidChangeWorkspaceFoldersParams:
    return types.DidChangeWorkspaceFoldersParams(event=types.WorkspaceFoldersChangeEvent(
        added=[types.WorkspaceFolder(uri=path_to_uri(p), name=p.name or "/") for p in added],
        removed=[types.WorkspaceFolder(uri=path_to_uri(p), name=p.name or "/")
                 for p in removed]))


async def test_root_and_home_are_refused_with_a_message(tmp_path: Path) -> None:
    project = write_project(tmp_path / "shapes")
    home = Path.home().resolve()
    existed = {folder: (folder / ".codekeep").exists() for folder in (Path("/"), home)}
    async with session(project) as client:
        client.workspace_did_change_workspace_folders(_folders(added=[Path("/"), home]))

        async def refused() -> list[str]:
            return [m.message for m in client.messages if "does not index" in m.message]

        shown = await wait_until(lambda: _at_least(refused, 2))
        assert any("filesystem root" in m for m in shown)
        assert any("home directory" in m for m in shown)
        status = await request(client, "codekeep/indexStatus", {})
        assert status["ready"] is True and status["files"] == 3  # only the project
    for folder, before in existed.items():
        assert (folder / ".codekeep").exists() == before


def _workers(server_pid: int) -> set[int]:
    """Worker processes: the fork server's children (it and the resource tracker, the
    server's own children, stay for the next index and exit with the server)."""
    children = {pid for pid in descendants(server_pid)
                if Path(f"/proc/{pid}/stat").exists()
                and int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
                == server_pid}
    return descendants(server_pid) - children


async def _at_least(check, count: int):  # type: ignore[no-untyped-def]
    found = await check()
    return found if len(found) >= count else None


async def test_removing_a_folder_mid_index_stops_it_and_exit_is_prompt(
        tmp_path: Path, big_workspace: Path) -> None:
    project = write_project(tmp_path / "shapes")
    (big_workspace / ".codekeep" / "index.db").unlink(missing_ok=True)
    async with session(project) as client:
        server_pid = client._server.pid
        client.workspace_did_change_workspace_folders(_folders(added=[big_workspace]))
        deadline = time.monotonic() + 60
        workers: set[int] = set()
        while time.monotonic() < deadline and len(workers) < 3:
            workers = descendants(server_pid)
            await asyncio.sleep(0.05)
        assert len(workers) >= 3, "the big folder's cold index did not start workers"
        await asyncio.sleep(0.5)
        client.workspace_did_change_workspace_folders(_folders(removed=[big_workspace]))
        gone_by = time.monotonic() + 15
        while time.monotonic() < gone_by and _workers(server_pid):
            await asyncio.sleep(0.1)
        assert _workers(server_pid) == set()
        found = await request(client, "codekeep/findSymbol", {"name": "total_area"})
        assert found["symbols"]  # the remaining folder is untouched
        family = descendants(server_pid) | workers
    # shutdown + exit happened above (session checks exit code 0); nothing outlives it
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(alive(pid) for pid in family):
        time.sleep(0.1)
    assert not [pid for pid in family if alive(pid)]
    with sqlite3.connect(big_workspace / ".codekeep" / "index.db") as conn:
        (files,) = conn.execute("SELECT COUNT(*) FROM files").fetchone()
    assert files < 1800  # stopped part-way, not carried on to the end
