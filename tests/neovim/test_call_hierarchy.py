"""Real Neovim 0.11 (headless): its own ``vim.lsp.buf.incoming_calls`` /
``outgoing_calls`` / ``typehierarchy`` against ``codekeep serve``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.neovim.nvim import run_scenario
from tests.server.lsp_harness import write_project


@pytest.mark.slow
def test_neovim_shows_callers_callees_and_bases(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project")  # Circle(Shape), main() calls total_area
    (root / ".git").mkdir()  # the root marker Neovim looks for
    seen = run_scenario("call_hierarchy.lua", root, tmp_path)
    # main() in app.py calls total_area on line 6
    assert [(e["file"], e["line"]) for e in seen["incoming"]] == [("app.py", 6)]
    assert "main" in seen["incoming"][0]["text"]
    called = {e["text"] for e in seen["outgoing"]}
    assert any("total_area" in t for t in called) and any("Circle" in t for t in called)
    # Neovim lists each callee under its own file (at the call sites' line numbers)
    assert {e["file"] for e in seen["outgoing"]} == {"geometry.py"}
    assert len(seen["outgoing"]) == 3  # Circle(1.0), Circle(2.0), total_area(circles)
    assert [(e["file"], e["line"]) for e in seen["supertypes"]] == [("geometry.py", 6)]
