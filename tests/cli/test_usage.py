"""Usage errors follow the README's table: exit 2, the command's own usage line.

``find X --limit 0`` and ``map --tokens -5`` exited 1 (a count of zero is a typo, not
a query with no answer); ``index src`` and ``find X --bogus`` printed the top-level usage,
and nothing said that a folder is given with ``--root``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codekeep.cli import main


def usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    return err


@pytest.mark.parametrize("argv", [
    ["find", "X", "--limit", "0"], ["map", "--tokens", "-5"], ["refs", "X", "--limit", "0"],
    ["search", "x", "--limit", "-1"], ["index", "--max-bytes", "0"],
    ["memory", "recall", "x", "--limit", "0"], ["docs", "search", "x", "--limit", "0"],
    ["agent", "hi", "--budget", "0"],
], ids=" ".join)
def test_a_count_below_one_is_a_usage_error(
        argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    err = usage_error([*argv, "--root", str(tmp_path)], capsys)
    option = next(arg for arg in argv if arg.startswith("--"))
    assert f"argument {option}: must be a positive number" in err
    assert not (tmp_path / ".codekeep").exists()


def test_a_stray_folder_gets_the_commands_usage_and_a_hint_at_root(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    err = usage_error(["index", "src", "--root", str(tmp_path)], capsys)
    assert err.startswith("usage: codekeep index ")
    assert "unrecognized arguments: src" in err and "--root DIR" in err
    assert not (tmp_path / ".codekeep").exists()


def test_an_unknown_option_gets_the_commands_usage(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    err = usage_error(["find", "X", "--bogus", "--root", str(tmp_path)], capsys)
    assert err.startswith("usage: codekeep find ")
    assert "codekeep find: error: unrecognized arguments: --bogus" in err


def test_an_unknown_option_of_a_groups_action_gets_that_actions_usage(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``memory list [--kind fact]`` printed ``codekeep memory``'s usage (ACTION ...)."""
    err = usage_error(["memory", "list", "[--kind", "fact]", "--root", str(tmp_path)], capsys)
    assert err.startswith("usage: codekeep memory list ")
    assert "codekeep memory list: error: unrecognized arguments: [--kind fact]" in err
    assert "--root DIR" in err
