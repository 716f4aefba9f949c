"""References of a name used thousands of times come in pages, each with the exact total."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from codekeep.analysis import CodeMap
from codekeep.analysis.errors import InvalidLimitError
from codekeep.cli import main

USES_PER_FILE = 300


def project(workspace: Callable[..., Path]) -> Path:
    files = {"lib/mem.c": "void kfree(void *p) { }\n"}
    for number in range(12):  # 3,600 uses over 12 files, resolved and name-only alike
        body = "".join(f"    kfree(p{i});\n" for i in range(USES_PER_FILE))
        files[f"drv/d{number:02}.c"] = f"void release{number}(void) {{\n{body}}}\n"
    return workspace(files)


def test_pages_put_together_are_the_whole_answer_in_its_order(
        workspace: Callable[..., Path], open_map: Callable[..., CodeMap]) -> None:
    codemap = open_map(project(workspace))
    codemap.index()
    everything, total = codemap.find_references(name="kfree")
    assert total == len(everything) == 12 * USES_PER_FILE
    paged = []
    for offset in range(0, total + 500, 500):  # pages that cut files in the middle
        page, page_total = codemap.find_references(name="kfree", limit=500, offset=offset)
        assert page_total == total
        paged += page
    assert paged == everything
    assert codemap.find_references(name="kfree", limit=10, offset=total) == ([], total)
    with pytest.raises(InvalidLimitError):
        codemap.find_references(name="kfree", offset=-1)


def test_the_next_page_after_an_edit_counts_the_edit(
        workspace: Callable[..., Path], open_map: Callable[..., CodeMap]) -> None:
    """Pages of one name reuse its labelled files (only each page's files are decoded)
    until the index changes: a use added or removed in between is in the next page's
    total and list."""
    root = project(workspace)
    codemap = open_map(root)
    codemap.index()
    _first, total = codemap.find_references(name="kfree", limit=100)
    assert total == 12 * USES_PER_FILE
    (root / "drv" / "d00.c").write_text("void release0(void) {\n    kfree(q);\n}\n")
    codemap.refresh_file("drv/d00.c")
    (root / "drv" / "new.c").write_text("void more(void) {\n    kfree(a);\n    kfree(b);\n}\n")
    codemap.refresh_file("drv/new.c")
    page, after = codemap.find_references(name="kfree", limit=100, offset=100)
    assert after == 11 * USES_PER_FILE + 1 + 2
    everything, _ = codemap.find_references(name="kfree")
    assert page == everything[100:200]
    assert "drv/new.c" in {ref.path for ref in everything}
    assert [ref.path for ref in everything].count("drv/d00.c") == 1
    again, _ = codemap.find_references(name="kfree", limit=100, offset=100)
    assert again == page
    by_id, by_id_total = codemap.find_references(symbol_id="lib/mem.c::kfree", limit=5)
    assert by_id_total <= after and by_id == everything[:5]


def test_the_cli_pages_with_offset(workspace: Callable[..., Path],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    root = project(workspace)
    assert main(["index", "--root", str(root)]) == 0
    capsys.readouterr()
    assert main(["refs", "kfree", "--limit", "100", "--offset", "3550", "--root",
                 str(root)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "3551-3600 of 3600 references"
    assert main(["refs", "kfree", "--limit", "2", "--offset", "7", "--json",
                 "--root", str(root)]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["total"] == 3600 and len(answer["references"]) == 2
