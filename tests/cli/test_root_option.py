"""``--root`` with a path that is not a directory: one clear line, exit 1, nothing created."""

from __future__ import annotations

from pathlib import Path

import pytest

from codekeep.cli import main

COMMANDS = [
    ("index",), ("find", "x"), ("memory", "list"), ("memory", "remember", "tests run with tox"),
    ("memory", "notes", "--template", "--init"), ("ledger", "report"),
    ("ledger", "record", "--task", "t", "--type", "plan", "--model", "gpt-4o", "--input", "1"),
    ("agent", "what is here?"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_missing_root_is_an_error_and_is_not_created(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, command: tuple[str, ...]) -> None:
    missing = tmp_path / "typo" / "project"
    code = main([*command, "--root", str(missing)])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert err == f"codekeep: workspace root is not a directory: {missing}\n"
    assert not (tmp_path / "typo").exists()


def test_a_file_is_not_a_root(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("hello", encoding="utf-8")
    assert main(["memory", "list", "--root", str(a_file)]) == 1
    assert "workspace root is not a directory" in capsys.readouterr().err
