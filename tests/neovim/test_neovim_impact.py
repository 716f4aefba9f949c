"""Real Neovim 0.11 (headless): ``:CodeKeepImpact`` puts the git diff's changed symbols,
their callers and the tests reaching them into the quickfix list."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.neovim.nvim import run_scenario
from tests.server.lsp_harness import GEOMETRY, write_project


@pytest.mark.slow
def test_codekeep_impact_fills_the_quickfix_list(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project")
    (root / "tests").mkdir()
    (root / "tests" / "test_app.py").write_text(
        "from pkg.app import main\n\n\ndef test_main():\n    main()\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "one"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env)
    (root / "pkg" / "geometry.py").write_text(
        GEOMETRY.replace("return sum(shape.area()", "return 0 + sum(shape.area()"))
    seen = run_scenario("impact.lua", root, tmp_path)
    assert seen["title"] == "CodeKeep impact HEAD -> worktree"
    assert [(i["file"], i["line"], i["text"]) for i in seen["items"]] == [
        ("geometry.py", 21, "changed pkg/geometry.py::total_area [public API]"),
        ("app.py", 4, "  <- pkg/app.py::main"),
        ("test_app.py", 4, "    <- tests/test_app.py::test_main"),
        ("test_app.py", 1, "  test: tests/test_app.py"),
    ]
