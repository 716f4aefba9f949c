"""docs/editors.md's eglot snippet in the real Emacs, headless.

The page said Emacs 29+, yet Debian's Emacs 28 with ``elpa-eglot`` works; and the hover
was Markdown even though eglot (without markdown-mode) asks for plain text. This runs
``emacs --batch`` with the snippet as the page prints it, eglot connecting to a real
``codekeep serve`` over stdio, and reads what eglot received. ``scripts/test`` installs
Debian's ``emacs-nox`` and ``elpa-eglot``; where Emacs is missing the test skips outside
CI and fails in CI.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.server.lsp_harness import write_project

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("eglot.el")


def emacs() -> str:
    found = shutil.which("emacs")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("scripts/test installs emacs-nox and elpa-eglot")
        pytest.skip("emacs is not installed (scripts/test installs emacs-nox and elpa-eglot)")
    return found


def snippet() -> str:
    """The page's eglot snippet that makes CodeKeep the server of its modes (the one
    beside another server needs rass, which Debian does not package)."""
    page = (REPO / "docs" / "editors.md").read_text(encoding="utf-8")
    blocks = [textwrap.dedent(b) for _indent, b in
              re.findall(r"^( *)```elisp\n(.*?)^\1```", page, re.M | re.S)]
    (alone,) = [b for b in blocks if '("codekeep" "serve")' in b and '"rass"' not in b]
    return alone


def run_eglot(snippet: str, tmp_path: Path) -> tuple[list[str], str]:
    """eglot in ``emacs --batch`` with ``snippet`` on the sample project: what it printed."""
    program = emacs()
    project = write_project(tmp_path / "shapes")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)  # eglot's project root
    config = tmp_path / "snippet.el"
    config.write_text(snippet, encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [program, "--batch", "-l", str(config), "-l", str(DRIVER),
         str(project / "pkg" / "geometry.py")],
        cwd=project, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines(), done.stdout


def symbols_found(lines: list[str]) -> bool:
    return any(line.startswith("SYMBOL Circle ") and line.endswith("pkg/geometry.py")
               for line in lines)


def test_eglot_with_codekeep_alone_gets_symbols_and_a_plain_text_hover(
        tmp_path: Path) -> None:
    lines, out = run_eglot(snippet(), tmp_path)
    assert "SERVER codekeep" in lines
    assert symbols_found(lines), out
    # eglot without markdown-mode (none in this HOME) asks for plain text only.
    assert 'FORMATS ["plaintext"]' in lines, out
    hover = out.split("HOVER-TEXT\n", 1)[1].rsplit("\nEND", 1)[0]
    assert "HOVER plaintext" in lines and "`" not in hover, out
    assert "def area(self) -> float" in hover and "in Circle" in hover
