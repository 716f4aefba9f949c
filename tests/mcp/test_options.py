"""``codekeep mcp`` flags: what is refused before anything is served, and the import cost
other commands do not pay."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from codekeep.mcp.options import HttpBind, McpOptions, OptionsError


@pytest.mark.parametrize("value", ["8765", "127.0.0.1:", "127.0.0.1:0", "host:99999", ":80"])
def test_a_bad_bind_is_refused(value: str) -> None:
    with pytest.raises(OptionsError, match="HOST:PORT"):
        HttpBind.parse(value)


@pytest.mark.parametrize(
    ("value", "loopback"),
    [("127.0.0.1:1", True), ("localhost:1", True), ("[::1]:1", True), ("0.0.0.0:1", False),
     ("192.168.1.4:1", False), ("example.org:1", False)],
)  # fmt: skip
def test_loopback_is_told_apart(value: str, loopback: bool) -> None:
    assert HttpBind.parse(value).loopback is loopback


def test_remote_binds_need_the_flag_and_a_long_token(tmp_path: Path) -> None:
    remote = HttpBind.parse("0.0.0.0:8765")
    with pytest.raises(OptionsError, match="--allow-remote"):
        McpOptions(tmp_path, http=remote).checked()
    with pytest.raises(OptionsError, match="bearer token"):
        McpOptions(tmp_path, http=remote, allow_remote=True).checked()
    with pytest.raises(OptionsError, match="16 characters"):
        McpOptions(tmp_path, http=remote, allow_remote=True, token="short").checked()
    assert McpOptions(tmp_path, http=remote, allow_remote=True, token="x" * 16).checked()


def test_other_commands_do_not_import_the_sdk() -> None:
    probe = (
        "import sys, codekeep.cli as cli; cli.build_parser(); "
        "print(sorted(m for m in ('mcp', 'mcp_types', 'uvicorn', 'starlette') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
