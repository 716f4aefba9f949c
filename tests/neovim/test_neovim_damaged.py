"""A damaged memory database seen from real Neovim: one line per command, the code map
keeps answering, :checkhealth codekeep names the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.neovim.nvim import ERROR, assert_one_line_notes, run_scenario, write_project


@pytest.mark.slow
def test_a_damaged_memory_database(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project")
    (root / ".codekeep").mkdir()
    (root / ".codekeep" / "memory.db").write_bytes(b"this is not a database\n" * 200)
    r = run_scenario("damaged.lua", root, tmp_path)
    assert_one_line_notes(r)
    damaged = f"{root}/.codekeep/memory.db is damaged"
    for command in ("remember", "recall"):
        [note] = r[command]
        assert note["level"] == ERROR and damaged in note["message"], note
        assert note["message"].startswith(f"CodeKeep memory/{command}: ")
    assert r["found"] == "def total_area(shapes)"  # the code map keeps answering
    health = r["health"]
    assert f"ERROR {root}/.codekeep/memory.db: not a SQLite database" in health
    assert "codekeep memory list --repair" in health  # the server's advice
    for store in ("index", "ledger", "docs"):
        assert f"OK {root}/.codekeep/{store}.db: SQLite" in health
