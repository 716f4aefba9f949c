"""Globs in list_files and search_code mean what .gitignore and ripgrep make them mean."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from codekeep.tools.globs import glob_filter
from codekeep.tools.result import ToolError

PATHS = ["src/a.py", "src/x/y/b.py", "src/c.txt", "lib/d.py", "e.py", "tests/t_a.py"]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("src/**/*.py", ["src/a.py", "src/x/y/b.py"]),  # ** matches no directory at all too
        ("*.py", ["src/a.py", "src/x/y/b.py", "lib/d.py", "e.py", "tests/t_a.py"]),
        ("src/*.py", ["src/a.py"]),  # a slash anchors: only files directly in src
        ("tests/", ["tests/t_a.py"]),  # a directory: everything under it
        ("/e.py", ["e.py"]),
        ("**/y/*", ["src/x/y/b.py"]),
        ("b.py", ["src/x/y/b.py"]),  # a bare name matches at any depth
        ("*.rs", []),
    ],
)
def test_gitignore_semantics(pattern: str, expected: list[str]) -> None:
    wanted = glob_filter(pattern)
    assert wanted is not None
    assert [p for p in PATHS if wanted(p)] == expected


def test_a_glob_is_also_read_from_the_directory_searched() -> None:
    wanted = glob_filter("x/**/*.py", "src")
    assert wanted is not None
    assert [p for p in PATHS if wanted(p)] == ["src/x/y/b.py"]


def test_no_glob_filters_nothing() -> None:
    assert glob_filter(None) is None and glob_filter("  ") is None


@pytest.mark.parametrize("pattern", ["!*.py"])
def test_a_glob_that_cannot_select_files_is_refused(pattern: str) -> None:
    with pytest.raises(ToolError, match="invalid glob") as raised:
        glob_filter(pattern)
    assert raised.value.rule == "arguments"


async def test_tools_apply_the_same_globs(call: Any, workspace: Path) -> None:
    (workspace / "src" / "pkg").mkdir()
    (workspace / "src" / "pkg" / "deep.py").write_text("def helper_deep(): pass\n")
    listed = await call("list_files", {"pattern": "src/**/*.py"})
    assert {f["path"] for f in listed.data["files"]} == {
        "src/app.py",
        "src/util.py",
        "src/pkg/deep.py",
    }
    shallow = await call("list_files", {"path": "src", "pattern": "*.py"})
    assert {f["path"] for f in shallow.data["files"]} == {
        "src/app.py",
        "src/util.py",
        "src/pkg/deep.py",
    }
    found = await call("search_code", {"pattern": "helper", "glob": "src/**/*.py"})
    assert {f["path"] for f in found.data["files"]} == {
        "src/app.py",
        "src/util.py",
        "src/pkg/deep.py",
    }
    under = await call("search_code", {"pattern": "helper", "path": "src", "glob": "pkg/*.py"})
    assert [f["path"] for f in under.data["files"]] == ["src/pkg/deep.py"]
    refused = await call("list_files", {"pattern": "!*.py"})
    assert refused.rule == "arguments" and "invalid glob" in refused.content
