"""``.codekeep/``'s own ``.gitignore``: ``git add .`` in a project commits the notes and
the settings, never the local state CodeKeep keeps beside them."""

from __future__ import annotations

import subprocess
from pathlib import Path

from codekeep.common.workspace import GITIGNORE_TEXT, state_dir

LOCAL_STATE = ("index.db", "index.db-wal", "memory.db", "ledger.db", "map-graph.npz",
               "endpoints.json", "team-marks.json", "anything-a-later-version-adds")


def _untracked(root: Path) -> list[str]:
    out = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                          "--untracked-files=all"], check=True, capture_output=True, text=True)
    return sorted(line[3:] for line in out.stdout.splitlines())


def test_git_sees_only_the_notes_and_the_settings(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    folder = state_dir(tmp_path)
    for name in (*LOCAL_STATE, "MEMORY.md", "config.toml"):
        (folder / name).write_text("x")
    assert _untracked(tmp_path) == [".codekeep/.gitignore", ".codekeep/MEMORY.md",
                                    ".codekeep/config.toml"]


def test_an_earlier_versions_gitignore_is_replaced_and_a_users_kept(tmp_path: Path) -> None:
    folder = tmp_path / ".codekeep"
    folder.mkdir()
    earlier = ("# CodeKeep databases are local state; MEMORY.md is meant to be committed.\n"
               "*.db\n*.db-*\n")
    (folder / ".gitignore").write_text(earlier)
    state_dir(tmp_path)
    assert (folder / ".gitignore").read_text() == GITIGNORE_TEXT
    (folder / ".gitignore").write_text("*.db\n# mine\n")
    state_dir(tmp_path)
    assert (folder / ".gitignore").read_text() == "*.db\n# mine\n"
