"""Unsaved editor text never outlives its buffer in the index.

An unsaved method typed into a buffer is in the index while the buffer is open; once
the buffer is gone — closed, the editor quit without closing it, or the server killed —
a fresh ``codekeep find`` (another process, reading ``index.db``) must not find it, and
must find what the disk holds.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.server.lsp_harness import (
    SERVER_ENV,
    change_document,
    initialize_params,
    open_document,
    request,
    server_config,
    session,
    stop,
    wait_ready,
    wait_until,
    write_project,
)

# Starts real processes (the server over stdio, the codekeep command, pip, a host's CLI).
pytestmark = pytest.mark.slow

UNSAVED = "    def held_out_method(self) -> None:\n        pass\n\n"
CIRCLE_BODY_LINE = 13  # the line after `class Circle(Shape):` in pkg/geometry.py


def codekeep_find(root: Path, name: str, *options: str) -> subprocess.CompletedProcess[str]:
    """A fresh ``codekeep find`` process, as a user or an agent runs it."""
    return subprocess.run(
        [sys.executable, "-m", "codekeep", "find", name, "--root", str(root), *options],
        capture_output=True, text=True, timeout=60, env=SERVER_ENV,
    )


def type_unsaved_method(lsp: Any, root: Path) -> str:
    uri = open_document(lsp, root / "pkg" / "geometry.py")
    change_document(lsp, uri, 2, UNSAVED, (CIRCLE_BODY_LINE, 0))
    return uri


async def symbols_named(lsp: Any, name: str) -> list[str]:
    found = await request(lsp, "codekeep/findSymbol", {"name": name})
    return [symbol["id"] for symbol in found["symbols"]]


def assert_disk_truth(root: Path) -> None:
    for options in ((), ("--no-refresh",)):
        ghost = codekeep_find(root, "held_out_method", *options)
        assert ghost.returncode == 1, ghost.stdout  # "nothing found"
        assert "no symbol named 'held_out_method'" in ghost.stderr
        assert "held_out_method" not in ghost.stdout
        disk = codekeep_find(root, "area", "--json", *options)
        assert disk.returncode == 0, disk.stderr
        assert disk.stdout.count('"pkg/geometry.py::') == 2  # Shape.area and Circle.area


async def unsaved_session(
    tmp_path: Path, end: Callable[[Any, str], Awaitable[None]]
) -> Path:
    """Type the unsaved method, check it is live (and that a CLI query next to the
    running server leaves the buffer's rows alone), then end the session with ``end``."""
    root = write_project(tmp_path)
    lsp: Any = await server_config().start()
    try:
        await lsp.initialize_session(initialize_params(root))
        await wait_ready(lsp)
        uri = type_unsaved_method(lsp, root)
        assert await symbols_named(lsp, "held_out_method") == [
            "pkg/geometry.py::Circle.held_out_method"]
        beside = codekeep_find(root, "held_out_method")  # refreshes while the buffer lives
        assert beside.returncode == 0 and "pkg/geometry.py" in beside.stdout, beside.stderr
        assert await symbols_named(lsp, "held_out_method") == [
            "pkg/geometry.py::Circle.held_out_method"]
        await end(lsp, uri)
    finally:
        await stop(lsp)
    return root


async def test_quit_without_did_close(tmp_path: Path) -> None:
    async def shutdown_without_close(lsp: Any, _uri: str) -> None:
        await lsp.shutdown_session()
        assert lsp._server.returncode == 0

    assert_disk_truth(await unsaved_session(tmp_path, shutdown_without_close))


async def test_did_close_then_quit(tmp_path: Path) -> None:
    async def close_then_shutdown(lsp: Any, uri: str) -> None:
        lsp.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        assert await symbols_named(lsp, "held_out_method") == []
        await lsp.shutdown_session()

    assert_disk_truth(await unsaved_session(tmp_path, close_then_shutdown))


async def test_server_killed(tmp_path: Path) -> None:
    async def kill(lsp: Any, _uri: str) -> None:
        lsp._server.kill()
        await asyncio.wait_for(lsp._server.wait(), 30)

    assert_disk_truth(await unsaved_session(tmp_path, kill))


async def test_the_next_server_after_a_kill_serves_the_disk(tmp_path: Path) -> None:
    async def kill(lsp: Any, _uri: str) -> None:
        lsp._server.kill()
        await asyncio.wait_for(lsp._server.wait(), 30)

    root = await unsaved_session(tmp_path, kill)
    async with session(root) as lsp:
        assert await symbols_named(lsp, "held_out_method") == []
        assert len(await symbols_named(lsp, "area")) == 2


@pytest.mark.parametrize("end", ["shutdown", "kill"])
async def test_a_second_server_keeps_its_own_buffer(tmp_path: Path, end: str) -> None:
    """Two servers on one workspace: the one that goes away takes only its buffers."""
    root = write_project(tmp_path)
    async with session(root) as keeper:
        type_unsaved_method(keeper, root)
        assert await symbols_named(keeper, "held_out_method")
        leaver: Any = await server_config().start()
        try:
            await leaver.initialize_session(initialize_params(root))
            await wait_ready(leaver)
            if end == "kill":
                leaver._server.kill()
                await asyncio.wait_for(leaver._server.wait(), 30)
            else:
                await leaver.shutdown_session()
        finally:
            await stop(leaver)
        live = codekeep_find(root, "held_out_method")
        assert live.returncode == 0, live.stderr  # still open in the keeper
        assert await symbols_named(keeper, "held_out_method")
    assert_disk_truth(root)


async def test_quit_while_the_typed_facts_are_still_owed(tmp_path: Path) -> None:
    """Shut down right after the keystrokes, before the server's quiet-time settling
    and with no request in between: the owed facts go with the buffer."""
    root = write_project(tmp_path)
    lsp: Any = await server_config().start()
    try:
        await lsp.initialize_session(initialize_params(root))
        await wait_ready(lsp)
        uri = open_document(lsp, root / "pkg" / "geometry.py")
        for version, char in enumerate(UNSAVED, start=2):  # typed, one keystroke each
            line = CIRCLE_BODY_LINE + UNSAVED[:version - 2].count("\n")
            column = len(UNSAVED[:version - 2].rpartition("\n")[2])
            change_document(lsp, uri, version, char, (line, column))
        await lsp.shutdown_session()
        assert lsp._server.returncode == 0
    finally:
        await stop(lsp)
    assert_disk_truth(root)


async def test_typed_facts_reach_the_index_once_the_editor_is_quiet(tmp_path: Path) -> None:
    """No request follows the keystrokes: after the quiet time the buffer's facts are in
    index.db all the same (another process, reading it, finds the unsaved method)."""
    root = write_project(tmp_path)
    async with session(root) as lsp:
        type_unsaved_method(lsp, root)

        async def found_by_another_process() -> bool:
            return codekeep_find(root, "held_out_method", "--no-refresh").returncode == 0

        await wait_until(found_by_another_process)
