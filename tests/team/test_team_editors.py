"""The team scope in the editors: real ``nvim --headless`` with the plugin, against a
real ``codekeep serve`` and the real PostgreSQL the team tests start."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.neovim.nvim import INFO, WARN, assert_one_line_notes, run_scenario, write_project
from tests.team.conftest import write_config

pytestmark = pytest.mark.slow


def test_neovim_remember_team_promote_and_list(tmp_path: Path, team_dsn: str) -> None:
    root = write_project(tmp_path / "project")
    write_config(root, team_dsn, "nina")
    r = run_scenario("team.lua", root, tmp_path)
    assert_one_line_notes(r)
    shared = re.fullmatch(r"CodeKeep memory ADD (g\w+) · linked to .*", r["shared"]["message"])
    assert shared and r["shared"]["level"] == INFO
    local = re.fullmatch(r"CodeKeep memory ADD (p\w+) · linked to .*", r["local_added"]["message"])
    assert local
    assert r["empty"]["level"] == WARN
    assert r["empty"]["message"].startswith("CodeKeep: :CodeKeepRememberTeam needs the text")
    promoted = re.fullmatch(rf"CodeKeep: {local.group(1)} → PROMOTE (g\w+)",
                            r["promoted"]["message"])
    assert promoted, r["promoted"]
    assert r["promoted_again"]["message"].startswith(
        f"CodeKeep: {local.group(1)} → REINFORCE {promoted.group(1)}")
    assert r["promote_team"]["level"] >= WARN
    assert "already in the team scope" in r["promote_team"]["message"]
    assert r["team"][0] == "CodeKeep team memories: 2 memories"
    rows = [line for line in r["team"] if "(team · by nina)" in line]
    assert len(rows) == 2 and any("square metres" in line for line in rows)
    assert r["not_this"]["message"] == (
        f"CodeKeep: memory {shared.group(1)} will rank lower (not this)")
    assert any("square metres  [not this] (team · by nina)" in line for line in r["team_after"])


def test_neovim_team_commands_without_a_team_database(tmp_path: Path) -> None:
    root = write_project(tmp_path / "solo")
    r = run_scenario("team.lua", root, tmp_path)
    assert_one_line_notes(r)
    for note in (r["shared"], r["team_command"]):
        assert note["level"] >= WARN and "no team database configured" in note["message"]
    assert r["local_still"]["message"].startswith("CodeKeep memory ADD p")
