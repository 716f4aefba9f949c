"""``codekeep mcp --http`` on a port another process holds: one clear line, exit 1.

uvicorn logged its raw ``[Errno 98]`` line and the command exited 3, the status the
README reserves for a ledger call over a hard budget.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

# The MCP door as a process of its own (uvicorn binding the port), as the other MCP
# end-to-end tests.
pytestmark = pytest.mark.slow


def test_a_busy_port_is_one_line_and_exit_1(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def main():\n    pass\n", encoding="utf-8")
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "codekeep", "mcp", "--http", f"127.0.0.1:{port}",
             "--root", str(tmp_path)],
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr == (f"codekeep: cannot serve MCP at http://127.0.0.1:{port}/mcp: "
                           "Address already in use (another process uses it: pick a free "
                           "port)\n")
    assert not (tmp_path / ".codekeep").exists()  # refused before any work
