"""Commands in the sandbox still find their toolchain when it lives where the sandbox
hides things: a venv in /tmp (a fresh clone checked out there), pyenv's shims in a home."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from codekeep.tools import command_sandbox


def make_tool(bin_dir: Path, name: str, says: str) -> None:
    bin_dir.mkdir(parents=True)
    tool = bin_dir / name
    tool.write_text(f"#!/bin/sh\necho {says}\n")
    tool.chmod(0o755)


@pytest.mark.skipif(command_sandbox.bwrap() is None,
                    reason="needs bubblewrap (scripts/test installs it)")
def test_a_venv_in_tmp_is_put_back_read_only(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    with tempfile.TemporaryDirectory(dir="/tmp") as clone:
        venv_bin = Path(clone) / ".venv" / "bin"
        make_tool(venv_bin, "probe-tool", "FROM-THE-VENV")
        monkeypatch.setenv("PATH", f"{venv_bin}{os.pathsep}{os.environ['PATH']}")
        program = command_sandbox.bwrap()
        assert program is not None
        argv = command_sandbox.sandboxed(program, ["probe-tool"], tmp_path.resolve())
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        assert done.stdout.strip() == "FROM-THE-VENV", done.stderr
        write = command_sandbox.sandboxed(
            program, ["sh", "-c", f"echo x > {venv_bin}/new"], tmp_path.resolve())
        assert subprocess.run(write, capture_output=True, timeout=60).returncode != 0
        assert not (venv_bin / "new").exists()  # read-only inside


def test_pyenv_shims_bring_the_whole_tool(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    shims = home / ".pyenv" / "shims"
    shims.mkdir(parents=True)
    plugin_shims = home / ".pyenv" / "plugins" / "pyenv-virtualenv" / "shims"
    plugin_shims.mkdir(parents=True)
    monkeypatch.setenv("PATH", f"{plugin_shims}{os.pathsep}{shims}")
    assert command_sandbox._toolchains([home]) == [home / ".pyenv"]
