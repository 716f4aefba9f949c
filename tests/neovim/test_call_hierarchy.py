"""Real Neovim 0.11 (headless): its own ``vim.lsp.buf.incoming_calls`` /
``outgoing_calls`` / ``typehierarchy`` against ``codekeep serve``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.neovim.test_neovim import nvim_binary
from tests.server.lsp_harness import write_project

SCRIPT = Path(__file__).with_name("call_hierarchy.lua")


@pytest.mark.slow
def test_neovim_shows_callers_callees_and_bases(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project")
    (root / ".git").mkdir()  # the root marker Neovim looks for
    out = tmp_path / "hierarchy.json"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CODEKEEP_")},
        "CK_ROOT": str(root), "CK_OUT": str(out), "CK_PYTHON": sys.executable,
        "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }  # fmt: skip
    completed = subprocess.run(
        [nvim_binary(), "--headless", "--clean", "-u", "NONE", "-S", str(SCRIPT)],
        cwd=root, env=env, capture_output=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert out.is_file(), completed.stderr.decode(errors="replace")
    seen = json.loads(out.read_text())
    assert "error" not in seen, seen["error"]
    # main() in app.py calls total_area on line 6
    assert [(e["file"], e["line"]) for e in seen["incoming"]] == [("app.py", 6)]
    assert "main" in seen["incoming"][0]["text"]
    called = {e["text"] for e in seen["outgoing"]}
    assert any("total_area" in t for t in called) and any("Circle" in t for t in called)
    # Neovim lists each callee under its own file (at the call sites' line numbers)
    assert {e["file"] for e in seen["outgoing"]} == {"geometry.py"}
    assert len(seen["outgoing"]) == 3  # Circle(1.0), Circle(2.0), total_area(circles)
    assert [(e["file"], e["line"]) for e in seen["supertypes"]] == [("geometry.py", 6)]
