"""The filesystem root and a home folder are refused by every door with one message.

Indexing either walks the whole machine (``cd / && codekeep find Foo`` ran minutes and
wrote an 835 MB ``/.codekeep/index.db``) or a person's every file. The language server
refuses them (``tests/processes/test_folders.py``); the CLI's every command, ``codekeep
mcp`` and the services under the agent refuse them the same way, before any work.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from codekeep.cli import command_modules, main
from codekeep.common.workspace import RootRefused, refusal
from codekeep.mcp.host import WorkspaceHost
from codekeep.services import WorkspaceServices

# One command line per command: enough arguments for each to get past its parser.
ARGUMENTS = {
    "index": (), "find": ("Foo",), "refs": ("Foo",), "related": ("a.py:1",),
    "search": ("foo",), "symbols": (), "map": (), "docs": ("search", "deploy"),
    "memory": ("remember", "tests run with tox"), "ledger": ("report",),
    "settings": (), "agent": ("what is here?",), "mcp": (), "doctor": (),
    "install": ("claude-code",), "uninstall": ("claude-code",), "rename": ("Foo", "Bar"),
    "impact": (), "path": ("a", "b"), "unused": (),
}
NO_FOLDER = {
    "serve",  # the language server's folders come from the editor (refused there)
    "models",  # the embedding model's machine-wide cache, no workspace
    "hook",  # never fails a host's session: the stores refuse (tested below), it exits 0
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder holding a project's worth of files, as the current directory."""
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    (home / "project" / "app.py").write_text("class Foo:\n    pass\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home)
    return home.resolve()


def test_every_command_is_listed() -> None:
    commands = {name for module in command_modules() for name in module.COMMANDS}
    assert commands == set(ARGUMENTS) | NO_FOLDER


@pytest.mark.parametrize("command", sorted(ARGUMENTS))
def test_every_command_refuses_the_home_folder_before_any_work(
        home: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    code = main([command, *ARGUMENTS[command]])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert err.startswith(f"codekeep: {refusal(home)}")  # install adds: or --scope user
    assert err.count("\n") == 1 and "it is a home directory" in err
    assert not (home / ".codekeep").exists()


def test_root_given_as_the_home_folder_is_refused_too(
        home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.chdir(tmp_path)
    assert main(["find", "Foo", "--root", "~"]) == 1
    assert "does not index" in capsys.readouterr().err
    assert not (home / ".codekeep").exists()
    # A project inside the home folder is what the message asks for, and works.
    assert main(["find", "Foo", "--root", str(home / "project")]) == 0


def test_find_in_the_filesystem_root_is_refused_at_once() -> None:
    existed = Path("/.codekeep").exists()
    done = subprocess.run([sys.executable, "-m", "codekeep", "find", "Foo"], cwd="/",
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"codekeep: {refusal(Path('/'))}\n"
    assert "it is the filesystem root" in done.stderr
    assert Path("/.codekeep").exists() == existed


def test_mcp_refuses_the_home_folder(home: Path) -> None:
    env = {**os.environ, "HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "codekeep", "mcp", "--root", str(home)],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60, env=env)
    assert done.returncode == 1
    assert done.stderr.strip().endswith(refusal(home))
    assert not (home / ".codekeep").exists()
    with pytest.raises(RootRefused, match="does not index"):
        WorkspaceHost(home, 12_000)  # the MCP door itself, without the command line


def test_the_services_refuse_a_home_folder_whatever_door_opens_them(home: Path) -> None:
    with pytest.raises(RootRefused) as refused:
        WorkspaceServices.open(home)  # what the agent runner and every door open
    assert str(refused.value) == refusal(home)
    assert not (home / ".codekeep").exists()



def test_installing_into_the_home_folders_own_files_works_from_home(home: Path) -> None:
    assert main(["install", "gemini-cli", "--scope", "user"]) == 0
    assert (home / ".gemini" / "settings.json").is_file()
    assert not (home / ".codekeep").exists()
