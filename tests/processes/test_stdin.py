"""``codekeep serve`` with a stdin the event loop cannot poll (``/dev/null``, a file).

Services and some clients start a server that way; asyncio accepts such a stdin as a
pipe and fails later inside a callback, so the server printed a ``PermissionError``
traceback and never exited. Such a stdin is read by a thread, and its end ends the server.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SERVE = [sys.executable, "-m", "codekeep", "serve"]


def _framed(*messages: dict[str, object]) -> bytes:
    out = b""
    for message in messages:
        body = json.dumps(message).encode()
        out += b"Content-Length: %d\r\n\r\n" % len(body) + body
    return out


def test_a_closed_stdin_ends_the_server_without_a_traceback(tmp_path: Path) -> None:
    done = subprocess.run(SERVE, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 0
    assert "Traceback" not in done.stderr and "PermissionError" not in done.stderr
    assert done.stdout == ""


def test_messages_in_a_file_are_answered_and_its_end_ends_the_server(tmp_path: Path) -> None:
    requests = tmp_path / "requests.lsp"
    requests.write_bytes(_framed(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": None, "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
    ))
    with requests.open("rb") as stdin:
        done = subprocess.run(SERVE, stdin=stdin, capture_output=True, timeout=120,
                              cwd=tmp_path)
    assert done.returncode == 0
    assert b'"serverInfo"' in done.stdout  # initialize answered
    assert re.search(rb'"id":\s*2', done.stdout)  # and shutdown
    assert b"Traceback" not in done.stderr
