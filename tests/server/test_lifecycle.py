"""Sessions from start to exit: encodings, folders, settings, outside changes, TCP,
clean shutdown, a client that vanishes, and two servers on one workspace."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from codekeep.analysis.codemap import CodeMap
from codekeep.common.uris import path_to_uri
from tests.server.lsp_harness import (
    SERVER_COMMAND,
    SERVER_ENV,
    change_document,
    change_folders,
    initialize_params,
    make_client,
    open_document,
    request,
    server_config,
    session,
    wait_ready,
    wait_until,
    write_project,
)

# Starts real processes (the server over stdio, the codekeep command, pip, a host's CLI).
pytestmark = pytest.mark.slow


def index_is_intact(root: Path) -> int:
    """Open the index like a fresh process would: integrity check, then count symbols."""
    conn = sqlite3.connect(root / ".codekeep" / "index.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return int(conn.execute("SELECT COUNT(*) FROM symbols").fetchone()[0])
    finally:
        conn.close()


def names(result: dict[str, Any]) -> list[str]:
    return [symbol["name"] for symbol in result["symbols"]]


async def test_index_status_is_not_ready_until_the_first_index_ends(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    lsp: Any = await server_config().start()
    try:
        await lsp.initialize_session(initialize_params(root))
        # Sent right behind "initialized": indexing waits for the client's answer to
        # workspace/configuration, which comes after this request on the wire.
        early = await request(lsp, "codekeep/indexStatus", {})
        assert early["ready"] is False
        done = await wait_ready(lsp)
        assert done["ready"] is True and done["files"] == 3 and done["pending"] == 0
        await lsp.shutdown_session()
    finally:
        await lsp.stop()


async def test_utf16_client_gets_utf16_columns(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    (root / "wide.py").write_text('label = "形状"; shape_count = 3\n\ndef área(): pass\n')
    async with session(root, client="visual-studio-code") as lsp:
        assert lsp.initialize_result.capabilities.position_encoding == "utf-16"
        [count] = (await request(lsp, "codekeep/findSymbol", {"name": "shape_count"}))["symbols"]
        assert count["selectionRange"]["start"] == {"line": 0, "character": 14}
        [area] = (await request(lsp, "codekeep/findSymbol", {"name": "área"}))["symbols"]
        assert area["selectionRange"]["end"] == {"line": 2, "character": 8}
        # An edit in UTF-16 columns after the wide characters lands where the user typed.
        uri = open_document(lsp, root / "wide.py")
        change_document(lsp, uri, 2, "total", (0, 14), (0, 19))  # "shape" -> "total"
        [renamed] = (await request(lsp, "codekeep/findSymbol", {"name": "total_count"}))["symbols"]
        assert renamed["selectionRange"]["start"] == {"line": 0, "character": 14}


async def test_utf8_client_gets_byte_columns(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    (root / "wide.py").write_text('label = "形状"; shape_count = 3\n')
    async with session(root, client="neovim") as lsp:
        [count] = (await request(lsp, "codekeep/findSymbol", {"name": "shape_count"}))["symbols"]
        assert count["selectionRange"]["start"] == {"line": 0, "character": 18}


async def test_multi_root_each_folder_has_its_own_index(tmp_path: Path) -> None:
    first = write_project(tmp_path / "first")
    second = tmp_path / "second"
    second.mkdir()
    (second / "tools.py").write_text("def total_area():\n    return 0\n")
    async with session(first, second) as lsp:
        result = await request(lsp, "codekeep/findSymbol", {"name": "total_area"})
        assert sorted(s["uri"] for s in result["symbols"]) == sorted(
            [
                path_to_uri(first / "pkg" / "geometry.py"),
                path_to_uri(second / "tools.py"),
            ]
        )
        status = await request(lsp, "codekeep/indexStatus", {})
        assert [f["files"] for f in status["folders"]] == [3, 1]
        # A folder that does not exist (a stale workspace file) is skipped, not fatal.
        change_folders(lsp, added=(tmp_path / "gone",))
        status = await request(lsp, "codekeep/indexStatus", {})
        assert len(status["folders"]) == 2 and status["ready"]
        assert (first / ".codekeep" / "index.db").is_file()
        assert (second / ".codekeep" / "index.db").is_file()


async def test_a_folder_that_cannot_be_opened_does_not_break_the_others(
    tmp_path: Path,
) -> None:
    good = write_project(tmp_path / "good")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / ".codekeep").write_text("a file where the state folder should be")
    async with session(good, broken) as lsp:
        found = await request(lsp, "codekeep/findSymbol", {"name": "Circle"})
        assert names(found) == ["Circle"]
        status = await request(lsp, "codekeep/indexStatus", {})
        assert status["ready"] is True and status["files"] == 3
        [bad] = [f for f in status["folders"] if f["uri"] == path_to_uri(broken)]
        assert bad["ready"] is False and bad["error"]
        hover = await lsp.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=path_to_uri(broken / "x.py")),
            position=types.Position(line=0, character=0),
        ))
        assert hover is None


async def test_folders_added_and_removed_during_the_session(tmp_path: Path) -> None:
    first = write_project(tmp_path / "first")
    second = tmp_path / "second"
    second.mkdir()
    (second / "late.py").write_text("def arrived_later():\n    pass\n")
    async with session(first) as lsp:
        change_folders(lsp, added=(second,))

        async def found(expected: list[str]) -> Callable[[], Any]:
            async def check() -> bool:
                result = await request(lsp, "codekeep/findSymbol", {"name": "arrived_later"})
                return names(result) == expected
            return check

        await wait_until(await found(["arrived_later"]))
        change_folders(lsp, removed=(second,))
        await wait_until(await found([]))
        assert names(await request(lsp, "codekeep/findSymbol", {"name": "Circle"})) == ["Circle"]
    assert index_is_intact(second) == 1


async def test_settings_apply_without_restart(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    (root / "generated").mkdir()
    (root / "generated" / "stubs.py").write_text("def generated_stub():\n    pass\n")
    async with session(
        root,
        options={"exclude": ["generated/"]},
        configuration={"codekeep": {"exclude": ["generated/"]}},
    ) as lsp:
        assert names(await request(lsp, "codekeep/findSymbol", {"name": "generated_stub"})) == []
        lsp.set_configuration({"codekeep": {"exclude": []}})
        lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))

        async def indexed() -> bool:
            found = await request(lsp, "codekeep/findSymbol", {"name": "generated_stub"})
            return names(found) == ["generated_stub"]

        await wait_until(indexed)


async def test_outside_changes_are_picked_up(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    async with session(root) as lsp:

        async def found(name: str, path: str | None) -> Callable[[], Any]:
            async def check() -> bool:
                result = await request(lsp, "codekeep/findSymbol", {"name": name})
                return [s["path"] for s in result["symbols"]] == ([path] if path else [])

            return check

        (root / "pkg" / "extra.py").write_text("def from_disk():\n    pass\n")
        await wait_until(await found("from_disk", "pkg/extra.py"))
        (root / "pkg" / "extra.py").write_text("def rewritten():\n    pass\n")
        await wait_until(await found("rewritten", "pkg/extra.py"))
        (root / "pkg" / "extra.py").rename(root / "pkg" / "moved.py")
        await wait_until(await found("rewritten", "pkg/moved.py"))
        (root / "pkg" / "moved.py").unlink()
        await wait_until(await found("rewritten", None))
        # Ignored folders stay ignored.
        (root / "node_modules").mkdir()
        (root / "node_modules" / "dep.py").write_text("def dependency():\n    pass\n")
        lsp.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[
                    types.FileEvent(
                        uri=path_to_uri(root / "node_modules" / "dep.py"),
                        type=types.FileChangeType.Created,
                    ),
                ]
            )
        )
        await asyncio.sleep(0.5)
        assert names(await request(lsp, "codekeep/findSymbol", {"name": "dependency"})) == []


async def test_shutdown_flushes_and_closes_the_database(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    async with session(root) as lsp:
        uri = open_document(lsp, root / "pkg" / "app.py")
        change_document(lsp, uri, 2, "def typed_before_exit():\n    pass\n\n\n", (0, 0))
        lsp.text_document_did_save(
            types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
            )
        )
    assert index_is_intact(root) >= 7
    with CodeMap.open(root) as reopened:
        assert reopened.find_symbol("Circle")


async def test_client_vanishing_mid_request(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    config = server_config()
    lsp: Any = await config.start()
    try:
        await lsp.initialize_session(initialize_params(root))
        await wait_ready(lsp)
        big = root / "big.py"
        big.write_text("".join(f"def f_{i}(a):\n    return a\n\n" for i in range(8000)))
        open_document(lsp, big)
        lsp.protocol.send_request("codekeep/repoMap", {"tokens": 4000})
        lsp._server.stdin.close()  # the editor crashed: no shutdown, no exit
        code = await asyncio.wait_for(lsp._server.wait(), 30)
        assert code in (0, 1)
    finally:
        await lsp.stop()
    assert index_is_intact(root) >= 7


async def test_sigterm_shuts_down_cleanly(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    lsp: Any = await server_config().start()
    try:
        await lsp.initialize_session(initialize_params(root))
        await wait_ready(lsp)
        lsp._server.terminate()
        assert await asyncio.wait_for(lsp._server.wait(), 30) == 0
    finally:
        await lsp.stop()
    assert index_is_intact(root) >= 7
    assert not (root / ".codekeep" / "index.db-wal").exists() or (
        root / ".codekeep" / "index.db-wal"
    ).stat().st_size == 0


def test_client_dying_mid_message(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": None, "rootUri": path_to_uri(root), "capabilities": {}}}).encode()
    server = subprocess.Popen(SERVER_COMMAND, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, env=SERVER_ENV)
    assert server.stdin is not None
    server.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    server.stdin.write(b"Content-Length: 500\r\n\r\n{\"jsonrpc\": ")  # cut off
    server.stdin.close()
    assert server.stderr is not None
    stderr = server.stderr.read()  # until the server exits and closes it
    assert server.wait(timeout=30) in (0, 1)
    assert b"Traceback" not in stderr, stderr.decode(errors="replace")
    assert index_is_intact(root) >= 0


async def test_second_server_on_the_same_workspace(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    async with session(root) as first, session(root) as second:
        for lsp, name in ((first, "from_first"), (second, "from_second")):
            uri = open_document(lsp, root / "pkg" / "app.py")
            change_document(lsp, uri, 2, f"def {name}():\n    pass\n\n\n", (0, 0))
            assert names(await request(lsp, "codekeep/findSymbol", {"name": name})) == [name]
        for lsp in (first, second):
            assert names(await request(lsp, "codekeep/findSymbol", {"name": "Circle"})) == [
                "Circle"
            ]
    assert index_is_intact(root) >= 7


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_codekeep_serve_over_tcp(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    port = free_port()
    command = shutil.which("codekeep") or str(Path(sys.executable).parent / "codekeep")
    server = subprocess.Popen(
        [command, "serve", "--tcp", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    lsp = make_client()
    try:

        async def connect() -> bool:
            try:
                await lsp.start_tcp("127.0.0.1", port)
            except OSError:
                return False
            return True

        await wait_until(connect, timeout=20, interval=0.1)
        await lsp.initialize_session(initialize_params(root))
        await wait_ready(lsp)
        assert names(await request(lsp, "codekeep/findSymbol", {"name": "Circle"})) == ["Circle"]
        await lsp.shutdown_session()
        assert server.wait(timeout=20) == 0
        assert server.stdout is not None and server.stdout.read() == b""  # stdout untouched
    finally:
        server.kill()
        server.wait()
        await lsp.stop()


def test_bad_tcp_address_is_refused_clearly() -> None:
    done = subprocess.run([*SERVER_COMMAND, "--tcp", "nowhere"], capture_output=True,
                          timeout=60, env=SERVER_ENV)
    assert done.returncode == 2
    assert b"expected HOST:PORT, got 'nowhere'" in done.stderr
    assert done.stdout == b""
