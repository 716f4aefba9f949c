"""``codekeep docs search|index`` and the docs half of ``codekeep index``, as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from codekeep.cli import main

GUIDE = "# Deployment\n\n## Static files\n\nCollect them, then put them behind a CDN.\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "deploy.md").write_text(GUIDE, encoding="utf-8")
    (tmp_path / "app.py").write_text('"""The shop app."""\n', encoding="utf-8")
    return tmp_path


def call(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str, str]:
    code = main([*args, "--root", str(root)])
    out, err = capsys.readouterr()
    return code, out, err


def test_index_covers_code_and_docs(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    code, out, _ = call(capsys, root, "index")
    assert code == 0
    assert "docs: 2 files (docstring 1, markdown 1), 2 chunks" in out
    code, out, _ = call(capsys, root, "index", "--json")
    docs = json.loads(out)["docs"]
    assert (docs["files"], docs["parsed"], docs["unchanged"]) == (2, 0, 2)
    code, out, _ = call(capsys, root, "docs", "index", "--json")
    assert code == 0 and json.loads(out)["formats"] == {"docstring": 1, "markdown": 1}


def test_search_text_and_json(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    code, out, _ = call(capsys, root, "docs", "search", "where do static files go")
    assert code == 0
    assert out.startswith("docs/deploy.md:5-5  Deployment › Static files  (")
    assert "    Collect them, then put them behind a CDN." in out
    code, out, _ = call(capsys, root, "docs", "search", "CDN", "--json", "--limit", "1")
    assert json.loads(out) == {"results": [{
        "path": "docs/deploy.md", "heading": "Deployment › Static files", "startLine": 5,
        "endLine": 5, "text": "Collect them, then put them behind a CDN.",
        "score": json.loads(out)["results"][0]["score"]}]}


def test_bad_questions(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    code, _, err = call(capsys, root, "docs", "search", "  ")
    assert code == 1 and "the query is empty" in err
    code, out, err = call(capsys, root, "docs", "search", "how do I", "--json")
    assert code == 1 and "only common words" in json.loads(out)["reason"]
    code, _, err = call(capsys, root, "docs", "search", "kubernetes")
    assert code == 1 and "nothing in the docs matches 'kubernetes'" in err
    done = subprocess.run([sys.executable, "-m", "codekeep", "docs", "search", "x", "--limit",
                           "0", "--root", str(root)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--limit: must be a positive number" in done.stderr
    assert main(["docs"]) == 2  # no sub-command: the group's help, on stderr
    assert "search" in capsys.readouterr().err
