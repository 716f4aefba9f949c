"""``codekeep install HOST`` / ``uninstall HOST`` through the real command on real files:
every host's files appear with CodeKeep's entries, twice equals once, the user's own
entries survive, ``--dry-run`` writes nothing, and uninstall gives the bytes back."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from codekeep.cli import main
from codekeep.common.workspace import refusal
from codekeep.hosts.changes import backups_of
from codekeep.hosts.markdown import INSTRUCTIONS

HOSTS = ("claude-code", "codex", "cursor", "gemini-cli", "vscode", "cline")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder / ".config"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def snapshot(*folders: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for folder in folders for p in sorted(folder.rglob("*"))
            if p.is_file() and ".local" not in p.parts}


def run(*argv: str) -> int:
    return main(list(argv))


@pytest.mark.parametrize("host", HOSTS)
def test_install_then_uninstall_leaves_an_empty_project_empty(
        host: str, project: Path, home: Path) -> None:
    assert run("install", host, "--root", str(project)) == 0
    installed = snapshot(project, home)
    assert installed, "install wrote nothing"
    assert any("codekeep" in text.decode() for text in installed.values())
    assert run("install", host, "--root", str(project)) == 0
    assert snapshot(project, home) == installed  # twice = once
    assert run("uninstall", host, "--root", str(project)) == 0
    assert snapshot(project, home) == {}
    assert not [p for p in project.rglob("*")], "uninstall left folders behind"


def test_claude_code_keeps_the_users_settings_hooks_and_formatting(
        project: Path, home: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    users = ('{\n    "permissions": {"allow": ["Bash(ls:*)"]},\n    "hooks": {"Stop": [{"hooks": '
             '[{"type": "command", "command": "notify-send done"}]}]}\n}')
    settings.write_text(users)
    (project / "CLAUDE.md").write_text("# Conventions\n\nTabs, not spaces.")
    (project / ".mcp.json").write_text('{"mcpServers": {"db": {"command": "db-mcp"}}}\n')
    before = snapshot(project)
    assert run("install", "claude-code", "--root", str(project)) == 0

    document = json.loads(settings.read_text())
    assert settings.read_text().startswith('{\n    "permissions"')  # the user's indent
    assert document["permissions"] == {"allow": ["Bash(ls:*)"]}
    stop = document["hooks"]["Stop"]
    assert stop[0]["hooks"][0]["command"] == "notify-send done"
    assert stop[1]["hooks"][0]["command"].endswith(f"hook Stop --root {project}")
    assert set(document["hooks"]) == {"SessionStart", "UserPromptSubmit", "PostToolUse",
                                      "PreCompact", "Stop", "SessionEnd"}
    assert "mcp__codekeep__" in document["hooks"]["PostToolUse"][0]["matcher"]
    servers = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert list(servers) == ["db", "codekeep"]
    assert servers["codekeep"]["args"][-3:] == ["mcp", "--root", str(project)]
    claude_md = (project / "CLAUDE.md").read_text()
    assert claude_md.startswith("# Conventions\n\nTabs, not spaces.")
    assert "find_symbol" in claude_md and "recall" in claude_md
    assert len(backups_of(settings)) == 1  # the changed file was backed up

    assert run("uninstall", "claude-code", "--root", str(project)) == 0
    assert snapshot(project) == before


def test_dry_run_prints_the_diff_and_writes_nothing(
        project: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "AGENTS.md").write_text("Run make check before committing.\n")
    before = snapshot(project, home)
    assert run("install", "codex", "--root", str(project), "--dry-run") == 0
    out = capsys.readouterr().out
    assert f"+++ {project / 'AGENTS.md'}" in out and "+[mcp_servers.codekeep]" in out
    assert snapshot(project, home) == before


def test_codex_config_keeps_every_byte_of_the_users_toml(project: Path, home: Path) -> None:
    config = project / ".codex" / "config.toml"
    config.parent.mkdir()
    users = 'model = "o4-mini"  # my model\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'
    config.write_text(users)
    assert run("install", "codex", "--root", str(project)) == 0
    text = config.read_text()
    assert text.startswith(users)
    parsed = tomllib.loads(text)
    assert parsed["mcp_servers"]["docs"] == {"command": "docs-mcp"}
    assert parsed["mcp_servers"]["codekeep"]["args"][-3:] == ["mcp", "--root", str(project)]
    assert run("uninstall", "codex", "--root", str(project)) == 0
    assert config.read_text() == users


def test_a_hand_written_codekeep_table_is_refused_and_nothing_is_written(
        project: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = project / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('[mcp_servers.codekeep]\ncommand = "my-own"\n')
    before = snapshot(project, home)
    assert run("install", "codex", "--root", str(project)) == 1
    assert "not written by CodeKeep" in capsys.readouterr().err
    assert snapshot(project, home) == before  # AGENTS.md was not written either


def test_json_with_comments_is_refused_not_rewritten(
        project: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = project / ".vscode" / "mcp.json"
    config.parent.mkdir()
    config.write_text('{\n  // my servers\n  "servers": {}\n}\n')
    assert run("install", "vscode", "--root", str(project)) == 1
    assert "not plain JSON" in capsys.readouterr().err
    assert config.read_text() == '{\n  // my servers\n  "servers": {}\n}\n'
    assert not (project / ".github").exists()


def test_user_scope_writes_the_home_folders_files(project: Path, home: Path) -> None:
    assert run("install", "claude-code", "--scope", "user", "--root", str(project)) == 0
    servers = json.loads((home / ".claude.json").read_text())["mcpServers"]
    assert "--root" not in servers["codekeep"]["args"]  # the folder Claude Code runs in
    hooks = json.loads((home / ".claude" / "settings.json").read_text())["hooks"]
    assert "--root" not in hooks["SessionStart"][0]["hooks"][0]["command"]
    assert INSTRUCTIONS.present((home / ".claude" / "CLAUDE.md").read_text())
    assert not list(project.iterdir())


def test_project_scope_refuses_the_home_folder(home: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert run("install", "gemini-cli", "--root", str(home)) == 1
    assert refusal(home) in capsys.readouterr().err  # what every door says
    assert not list(home.iterdir())


def test_doctor_reports_each_hosts_scope_and_stale_paths(project: Path, home: Path) -> None:
    from codekeep.doctor import hosts

    assert run("install", "claude-code", "--root", str(project)) == 0
    assert run("install", "gemini-cli", "--scope", "user", "--root", str(project)) == 0
    moved = project.with_name("moved")
    project.rename(moved)
    found = {f.name: f for f in hosts(moved, home)}
    claude = found["Claude Code"]
    assert claude.status == "problem"
    assert claude.detail.startswith("installed (project): MCP server in")
    assert f"stale: {project} no longer exist (run codekeep install claude-code again)" \
        in claude.detail
    assert found["Gemini CLI"].status == "ok"
    assert found["Gemini CLI"].detail.startswith(
        f"installed (user): MCP server in {home / '.gemini' / 'settings.json'}")
    assert found["Cursor"].detail == "not set up (codekeep install cursor)"


def test_a_created_instruction_file_is_readable_like_any_other(project: Path, home: Path) -> None:
    assert run("install", "gemini-cli", "--root", str(project)) == 0
    assert (project / "GEMINI.md").stat().st_mode & 0o044 == 0o044
