"""Docs pages kept in the facts cache by content: a page read before is not read again,
and a cached page is never used where its path or the chunk sizes would make it differ."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codekeep.docs import DocsIndex
from codekeep.docs import pages as docs_pages
from codekeep.settings.docs import DocsSettings

GUIDE = "# Guide\n\n" + "".join(f"## Part {i}\n\n" + "The wombat setting is read at start.\n\n" * 40
                                for i in range(6))
MODELS = '"""How the shop\'s carts are kept."""\n\nclass Cart:\n    """A wombat\'s cart."""\n'


def write(root: Path) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "guide.md").write_text(GUIDE)
    (root / "shop").mkdir()
    (root / "shop" / "models.py").write_text(MODELS)
    return root


def test_a_second_checkout_reads_no_page_and_gets_the_same_chunks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = write(tmp_path / "first")
    with DocsIndex.open(first) as docs:
        assert docs.index(embed="skip").from_cache == 0
        before = [(h.path, h.heading, h.start_line, h.text)
                  for h in docs.search("wombat", limit=50).hits]
    second = tmp_path / "second"
    shutil.copytree(first, second, ignore=shutil.ignore_patterns(".codekeep"))
    monkeypatch.setattr(docs_pages, "parse", lambda *a: pytest.fail("read a cached page"))
    with DocsIndex.open(second) as docs:
        assert docs.index(embed="skip").from_cache == 2
        assert [(h.path, h.heading, h.start_line, h.text)
                for h in docs.search("wombat", limit=50).hits] == before


def test_the_same_bytes_at_another_path_are_headed_by_that_path(tmp_path: Path) -> None:
    root = write(tmp_path / "ws")
    with DocsIndex.open(root) as docs:
        docs.index(embed="skip")
    shutil.copy(root / "shop" / "models.py", root / "shop" / "copy.py")
    with DocsIndex.open(root) as docs:
        stats = docs.index(embed="skip")
        assert (stats.parsed, stats.from_cache) == (1, 0)
        hits = docs.search("carts kept wombat cart", limit=20).hits
        assert {h.heading for h in hits if h.path == "shop/copy.py"} == {
            "shop/copy.py", "shop/copy.py › Cart"}


def test_other_chunk_sizes_cut_the_pages_again(tmp_path: Path) -> None:
    root = write(tmp_path / "first")
    with DocsIndex.open(root) as docs:
        docs.index(embed="skip")
        chunks = docs.stats(0.0, 0, 0, 0).chunks
    other = tmp_path / "second"
    shutil.copytree(root, other, ignore=shutil.ignore_patterns(".codekeep"))
    small = DocsSettings(chunk_tokens=80, overlap_tokens=10)
    with DocsIndex.open(other, settings=small) as docs:
        stats = docs.index(embed="skip")
        assert stats.from_cache == 0 and stats.chunks > chunks
