"""End-to-end fixtures: a real ``codekeep mcp`` subprocess driven by the ``mcp`` SDK's own
client, over stdio or streamable HTTP, on a small real project in a temporary folder."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.types import Implementation

MCP_COMMAND = [sys.executable, "-m", "codekeep", "mcp"]
# User-scope memories of every server these tests start land here, never in ~/.local;
# no developer setting (CODEKEEP_*) leaks into the tests.
SERVER_ENV = {
    **{key: value for key, value in os.environ.items() if not key.startswith("CODEKEEP_")},
    "CODEKEEP_LOCAL_MODEL": "off",  # lexical docs, as tests/conftest.py keeps them
    "XDG_DATA_HOME": tempfile.mkdtemp(prefix="codekeep-xdg-"),
}


def stdio_client(root: Path, *flags: str, name: str = "claude-code", **options: Any) -> Client:
    """A client that starts ``codekeep mcp --root ROOT FLAGS`` and talks to it on stdio."""
    params = StdioServerParameters(
        command=MCP_COMMAND[0], args=[*MCP_COMMAND[1:], "--root", str(root), *flags],
        env=SERVER_ENV,
    )  # fmt: skip
    return Client(params, client_info=Implementation(name=name, version="1.0"), **options)


def http_client(
    url: str, *, name: str = "cursor", token: str | None = None, **options: Any
) -> Client:
    """A streamable-HTTP client of ``url``, sending ``token`` as a bearer token if given."""
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    transport = streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers))
    return Client(transport, client_info=Implementation(name=name, version="1.0"), **options)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def http_server(root: Path, *flags: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """``codekeep mcp --http 127.0.0.1:PORT`` running until the block ends (SIGTERM, exit 0)."""
    port = free_port()
    process = subprocess.Popen(
        [*MCP_COMMAND, "--root", str(root), "--http", f"127.0.0.1:{port}", *flags],
        env={**SERVER_ENV, **(env or {})}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            _out, err = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    assert process.returncode == 0, err.decode()


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"server exited: {process.stderr.read().decode()}")  # type: ignore[union-attr]
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on port {port} after {timeout}s")


def text(result: Any) -> str:
    """The text a model reads from a tool result."""
    return "\n".join(block.text for block in result.content)
