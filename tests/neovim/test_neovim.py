"""Real Neovim 0.11 (headless) talking to ``codekeep serve`` through its own LSP client,
configured with editors/neovim/ exactly as a user would."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.neovim.nvim import run_scenario, write_project


@pytest.mark.slow
def test_neovim_session(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project")
    results = run_scenario("codemap.lua", root, tmp_path)

    assert results["encoding"] == "utf-8"
    # The function typed into the buffer, right after a non-ASCII line.
    [added] = results["find_added"]["symbols"]
    assert added["selectionRange"]["start"] == {"line": 2, "character": 4}
    assert added["uri"].endswith("/pkg/geometry.py")
    # On the non-ASCII line itself, columns are UTF-8 bytes:
    # 'ÉTIQUETTE = "形状"; ' is 23 bytes (18 in UTF-16).
    [const] = results["find_const"]["symbols"]
    assert const["selectionRange"]["start"] == {"line": 1, "character": 23}
    # vim.lsp.buf.definition() jumped to total_area (moved down 3 lines by the edit).
    assert results["definition"] == {"file": "geometry.py", "line": 11, "col": 4}
    assert {(Path(r["uri"]).name, r["line"]) for r in results["references"]} >= {("app.py", 5)}
    assert results["lens_refs"].startswith("CodeKeep references (")
    assert results["quickfix"]["file"] == "geometry.py"
    assert results["quickfix"]["lnum"] == 6 and results["quickfix"]["text"] == "class Circle"
    assert results["search_first"] == "def total_area(shapes)"
    assert "Circle" in results["map"]
    not_a_file = "CodeKeep: the current window shows no file of the project"
    assert results["not_a_file"] == [not_a_file, not_a_file]
