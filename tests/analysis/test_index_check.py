"""index.db's open-time check runs again only when the files changed since it passed."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from codekeep.analysis import CodeMap
from codekeep.analysis import store as index_store
from codekeep.common.sqlite import damaged_file


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every quick_check the index store runs, by the file it ran on."""
    ran: list[str] = []
    real = index_store.quick_check

    def counted(conn: sqlite3.Connection) -> str | None:
        ran.append(conn.execute("PRAGMA database_list").fetchone()[2])
        return real(conn)

    monkeypatch.setattr(index_store, "quick_check", counted)
    return ran


def indexed(root: Path) -> Path:
    for i in range(40):
        (root / f"m{i}.py").write_text("".join(f"def f{i}_{j}():\n    return {j}\n\n"
                                               for j in range(60)))
    with CodeMap.open(root) as codemap:
        codemap.index()
    return root / ".codekeep" / "index.db"


def test_an_unchanged_index_is_not_checked_again(tmp_path: Path, checks: list[str]) -> None:
    indexed(tmp_path)
    for _ in range(3):
        with CodeMap.open(tmp_path) as codemap:
            assert [s.name for s in codemap.find_symbol("f3_7")] == ["f3_7"]
    assert len(checks) == 2  # the first open (new file) and the one after indexing wrote it


def test_damage_written_after_a_passed_check_is_found_at_the_next_open(
    tmp_path: Path, checks: list[str]
) -> None:
    database = indexed(tmp_path)
    with CodeMap.open(tmp_path):
        pass
    before = len(checks)
    data = bytearray(database.read_bytes())
    page = 8192
    middle = len(data) // page // 2 * page
    data[middle:middle + page] = b"\x5a" * page  # one page of a table, not the header
    database.write_bytes(bytes(data))
    os.utime(database)
    assert damaged_file(database) is not None
    with CodeMap.open(tmp_path) as codemap:
        assert len(checks) == before + 1
        codemap.index()  # rebuilt: a cache starts over and is filled again
        assert [s.name for s in codemap.find_symbol("f3_7")] == ["f3_7"]
    assert damaged_file(database) is None
