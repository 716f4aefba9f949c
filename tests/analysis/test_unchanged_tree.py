"""A query's refresh skips the walk only when the stats prove nothing changed.

:meth:`CodeMap.refresh` first compares one stat per remembered folder and per file
with the index (``Listings.unchanged``); any doubt means the full warm walk. Each case
changes the tree one way and checks both that the walk ran and that the index then
holds what a walk that lists everything finds.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import codekeep.analysis.indexer as indexer
from codekeep.analysis import CodeMap
from tests.analysis.conftest import WriteFiles
from tests.analysis.test_walk_listings import TREE, TRUST_AT_ONCE, full_walk, names


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The roots walked (discovery.walk called by the indexer) from here on."""
    walked: list[str] = []
    real = indexer.walk

    def counting(root: Path, *args: object, **kwargs: object) -> object:
        walked.append(str(root))
        return real(root, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(indexer, "walk", counting)
    yield walked


@pytest.fixture
def warm(workspace: WriteFiles, open_map: Callable[..., CodeMap]) -> tuple[Path, CodeMap]:
    root = workspace(TREE)
    codemap = open_map(root, **TRUST_AT_ONCE)
    codemap.index()
    return root, codemap


def test_nothing_changed_is_not_walked(warm: tuple[Path, CodeMap], walks: list[str]) -> None:
    root, codemap = warm
    codemap.refresh()
    codemap.refresh()
    assert walks == []
    assert codemap.files() == full_walk(root)


def edit_same_size(root: Path) -> None:
    path = root / "pkg" / "deep" / "er" / "b.py"
    path.write_text("def bbbb():\n    pass\n")  # same length as before
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000_000))


CHANGES: dict[str, Callable[[Path], None]] = {
    "edited, same size": edit_same_size,
    "edited, new size": lambda root: (root / "top.py").write_text(
        "def top():\n    pass\n\ndef added_here():\n    pass\n"),
    "added": lambda root: (root / "pkg" / "new.py").write_text("def fresh():\n    pass\n"),
    "removed": lambda root: (root / "other" / "c.py").unlink(),
    "renamed": lambda root: (root / "pkg" / "a.py").rename(root / "pkg" / "a2.py"),
    "a new folder": lambda root: (root / "pkg" / "sub").mkdir(),
    "a second name (hard link) made elsewhere": lambda root: os.link(
        root / "top.py", root.parent / f"{root.name}-outside.py"),
    "a link added": lambda root: (root / "linked.py").symlink_to(root / "top.py"),
    "a .gitignore edited in place": lambda root: (root / "other" / ".gitignore").write_text(
        "nothing.py\n"),
}


@pytest.mark.parametrize("change", CHANGES, ids=list(CHANGES))
def test_every_change_is_walked_and_seen(warm: tuple[Path, CodeMap], walks: list[str],
                                         change: str) -> None:
    root, codemap = warm
    codemap.refresh()
    assert walks == []
    CHANGES[change](root)
    codemap.refresh()
    assert walks == [str(root)]
    assert codemap.files() == full_walk(root)


def test_the_edit_itself_is_in_the_index(warm: tuple[Path, CodeMap], walks: list[str]) -> None:
    root, codemap = warm
    edit_same_size(root)
    codemap.refresh()
    assert "bbbb" in names(codemap) and "beta" not in names(codemap)


def test_a_raised_size_cap_is_walked(warm: tuple[Path, CodeMap], walks: list[str],
                                     open_map: Callable[..., CodeMap]) -> None:
    """A file stored as too large is parsed once the cap allows it (the verdict
    changed though no stat did)."""
    root, codemap = warm
    codemap.close()
    small = open_map(root, max_file_bytes=10, **TRUST_AT_ONCE)
    small.index()
    assert "top" not in names(small)
    small.close()
    walks.clear()
    larger = open_map(root, **TRUST_AT_ONCE)
    larger.refresh()
    assert walks == [str(root)] and "top" in names(larger)


def test_an_open_buffer_means_the_full_path(warm: tuple[Path, CodeMap],
                                            walks: list[str]) -> None:
    root, codemap = warm
    codemap.open_document("top.py", "def typed_only():\n    pass\n")
    codemap.refresh()
    assert walks == [str(root)]
    assert "typed_only" in names(codemap)
