"""What the server writes to stderr when a client errs or goes away: one warning line
for a request with bad params, no traceback; a SIGTERM while it is already stopping
after a disconnect ends it quietly with status 0. Real subprocesses over real pipes
and a real socket on 127.0.0.1."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import IO, Any

import pytest

from codekeep.common.uris import path_to_uri
from tests.server.lsp_harness import SERVER_COMMAND, SERVER_ENV, write_project

# Starts real processes (the server over stdio, the codekeep command, pip, a host's CLI).
pytestmark = pytest.mark.slow


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(stream: IO[bytes]) -> dict[str, Any]:
    length = 0
    while (line := stream.readline()) not in (b"\r\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    assert length, "the server closed the stream"
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


def response_to(stream: IO[bytes], msg_id: int) -> dict[str, Any]:
    while (message := read_message(stream)).get("id") != msg_id or "method" in message:
        pass  # notifications and server-to-client requests
    return message


def initialize(root: Path | None) -> dict[str, Any]:
    uri = path_to_uri(root) if root else None
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"processId": None, "rootUri": uri, "capabilities": {}}}


def test_a_request_with_bad_params_logs_one_warning_line_not_a_traceback() -> None:
    server = subprocess.Popen(SERVER_COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=SERVER_ENV)
    assert server.stdin is not None and server.stdout is not None
    bad = [
        ("codekeep/findSymbol", {"name": "x", "limit": 0}),
        ("codekeep/findReferences", {"name": "x", "limit": 0}),
        ("codekeep/searchSymbols", {"query": "x", "limit": -1}),
    ]
    try:
        server.stdin.write(frame(initialize(None)))
        server.stdin.flush()
        response_to(server.stdout, 0)
        for msg_id, (method, params) in enumerate(bad, start=1):
            server.stdin.write(frame({"jsonrpc": "2.0", "id": msg_id, "method": method,
                                      "params": params}))
            server.stdin.flush()
            error = response_to(server.stdout, msg_id)["error"]
            assert error["code"] == -32602
            assert "'limit' must be at least 1" in error["message"]
        server.stdin.write(frame({"jsonrpc": "2.0", "id": 10, "method": "shutdown"}))
        server.stdin.flush()
        response_to(server.stdout, 10)
        server.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
        server.stdin.flush()
        assert server.wait(timeout=30) == 0
    finally:
        server.kill()
        server.wait()
    assert server.stderr is not None
    stderr = server.stderr.read().decode()
    assert "Traceback" not in stderr
    refused = [line for line in stderr.splitlines() if " refused: " in line]
    assert len(refused) == len(bad) and all(" WARNING " in line for line in refused)
    assert " ERROR " not in stderr


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_sigterm_while_stopping_after_a_disconnect_is_quiet(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project")
    # The signal lands at different moments of the stop: at once, mid-shutdown, after.
    for delay in (0.0, 0.05, 0.15):
        port = free_port()
        server = subprocess.Popen([*SERVER_COMMAND, "--tcp", f"127.0.0.1:{port}"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  env=SERVER_ENV)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    client = socket.create_connection(("127.0.0.1", port))
                    break
                except OSError:
                    assert time.monotonic() < deadline, "the server never listened"
                    time.sleep(0.05)
            with client:
                client.sendall(frame(initialize(root)))
                response_to(client.makefile("rb"), 0)
                client.sendall(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
                time.sleep(0.3)  # let it start indexing (and send us notifications)
            time.sleep(delay)  # the client is gone: the server is stopping now
            server.send_signal(signal.SIGTERM)
            assert server.wait(timeout=30) == 0
        finally:
            server.kill()
            server.wait()
        assert server.stderr is not None and server.stdout is not None
        stderr = server.stderr.read().decode()
        assert "Traceback" not in stderr and " ERROR " not in stderr, stderr
        assert server.stdout.read() == b""
