"""The joined-regex ignore list decides every path exactly as pathspec does."""

from __future__ import annotations

import itertools

import pathspec
import pytest

from codekeep.analysis.discovery import IgnoreList
from codekeep.settings.codemap import IndexSettings

PATTERNS = [
    "*.pyc", "build/", "/dist", "docs/**/*.txt", "**/generated", "a/b", "secret?.py",
    "[Tt]emp*", "node_modules/", "*.min.js", "vendor/**", "\\#literal", "foo/*/bar",
    # bare names (a set lookup by path component): files and folders, folders only
    ".env", "out/", "x.y", "we-ird+name", "space\\ name",
]
PATHS = [
    "x.pyc", "src/x.pyc", "build/", "build/out.o", "src/build/", "src/build/x", "dist",
    "dist/a", "src/dist", "docs/a/b.txt", "docs/b.txt", "docs/a.rst", "generated",
    "x/generated", "x/generated/y", "a/b", "c/a/b", "secret1.py", "secret12.py", "Temp1",
    "temporary/", "lib/temp.py", "node_modules/", "web/node_modules/", "app.min.js",
    "vendor/x/y.py", "#literal", "foo/x/bar", "foo/x/y/bar", "plain.py", "src/main.go",
    ".env", "a/.env", ".env/", "a/.env/b", "a.env", ".envrc", "out", "out/", "a/out/b",
    "a/out", "x.y", "xzy", "a/x.y/", "we-ird+name", "a/space name", "spacename",
]


@pytest.mark.parametrize("size", [1, 2, 3])
def test_without_negations_it_matches_as_pathspec(size: int) -> None:
    for lines in itertools.combinations(PATTERNS, size):
        ours, theirs = IgnoreList(list(lines)), pathspec.GitIgnoreSpec.from_lines(lines)
        for path in PATHS:
            assert ours.match_file(path) == theirs.match_file(path), (lines, path)


@pytest.mark.parametrize("negation", ["!keep.pyc", "!build/keep", "!/dist", "!docs/a/b.txt"])
def test_with_negations_pathspec_decides(negation: str) -> None:
    lines = [*PATTERNS, negation, "*.log", "!important.log"]
    ours, theirs = IgnoreList(lines), pathspec.GitIgnoreSpec.from_lines(lines)
    for path in [*PATHS, "keep.pyc", "build/keep", "important.log", "other.log"]:
        assert ours.match_file(path) == theirs.match_file(path), path


def test_the_default_exclude_list() -> None:
    lines = list(IndexSettings().all_excludes)
    ours, theirs = IgnoreList(lines), pathspec.GitIgnoreSpec.from_lines(lines)
    for path in [*PATHS, ".git/", "a/.codekeep/", "x/__pycache__/", "venv/", ".venv/x.py"]:
        assert ours.match_file(path) == theirs.match_file(path), path


def test_empty_and_comment_only_lists_ignore_nothing() -> None:
    assert not IgnoreList([]).match_file("a.py")
    assert not IgnoreList(["# a comment", ""]).match_file("a.py")


def test_the_default_exclude_list_is_looked_up_by_name_not_searched() -> None:
    """A warm start matches every path against it: it costs a set lookup, no regex."""
    ours = IgnoreList(list(IndexSettings().all_excludes))
    assert ours._joined is None and not ours._by_pathspec
    assert ours.match_file("a/node_modules/b.js") and not ours.match_file("a/nodes/b.js")
