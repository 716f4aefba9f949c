"""``codekeep doctor``: every check through the real command, on real files."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codekeep.embeddings.local_model import LocalModelUnavailable, check_files

# Starts real processes (the server over stdio, the codekeep command, pip, a host's CLI).
pytestmark = pytest.mark.slow


def doctor(root: Path, home: Path, **env: str) -> tuple[int, dict[str, Any]]:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith("CODEKEEP_") and k != "OPENAI_API_KEY"}
    clean.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
                 XDG_DATA_HOME=str(home / ".local" / "share"), **env)
    done = subprocess.run([sys.executable, "-m", "codekeep", "doctor", "--root", str(root),
                           "--json"], capture_output=True, text=True, timeout=120, env=clean)
    return done.returncode, json.loads(done.stdout)


def finding(report: dict[str, Any], area: str, name: str) -> dict[str, Any]:
    [found] = [f for f in report["findings"] if (f["area"], f["name"]) == (area, name)]
    return found


def codekeep(root: Path, home: Path, *argv: str) -> None:
    env = {**os.environ, "XDG_DATA_HOME": str(home / ".local" / "share")}
    subprocess.run([sys.executable, "-m", "codekeep", *argv, "--root", str(root)],
                   check=True, capture_output=True, timeout=120, env=env)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "app.py").write_text("def main():\n    pass\n")
    return tmp_path / "project"


def test_a_fresh_workspace_is_healthy_and_left_untouched(root: Path, home: Path) -> None:
    code, report = doctor(root, home)
    assert (code, report["problems"]) == (0, 0)
    assert finding(report, "versions", "codekeep")["status"] == "ok"
    assert finding(report, "grammars", "python")["status"] == "ok"
    assert "not created yet" in finding(report, "databases", "index")["detail"]
    assert finding(report, "model", "agent model")["status"] == "info"
    assert finding(report, "watcher", "observer")["status"] == "ok"
    assert not (root / ".codekeep").exists()  # a check creates nothing
    assert not (home / ".local").exists()


def test_each_database_reports_its_health_and_schema(root: Path, home: Path) -> None:
    codekeep(root, home, "index")
    codekeep(root, home, "memory", "remember", "Releases are cut on Tuesdays")
    code, report = doctor(root, home)
    assert code == 0
    for name in ("index", "memory", "docs"):
        detail = finding(report, "databases", name)["detail"]
        assert "quick_check ok" in detail and "schema" in detail, detail


def test_a_damaged_database_is_a_problem_naming_the_file_and_the_remedy(
    root: Path, home: Path
) -> None:
    codekeep(root, home, "memory", "remember", "Releases are cut on Tuesdays")
    memory = root / ".codekeep" / "memory.db"
    data = bytearray(memory.read_bytes())
    page = 4096
    data[page:page * 3] = b"\xa5" * (page * 2)  # two pages of the b-trees, not the header
    memory.write_bytes(bytes(data))
    code, report = doctor(root, home)
    found = finding(report, "databases", "memory")
    assert (code, found["status"]) == (1, "problem")
    assert str(memory) in found["detail"] and "--repair" in found["detail"]
    assert report["problems"] == 1


def test_a_schema_newer_than_this_codekeep_is_a_problem(root: Path, home: Path) -> None:
    codekeep(root, home, "index")
    with sqlite3.connect(root / ".codekeep" / "index.db") as conn:
        conn.execute("PRAGMA user_version = 99")
    code, report = doctor(root, home)
    found = finding(report, "databases", "index")
    assert (code, found["status"]) == (1, "problem") and "upgrade CodeKeep" in found["detail"]


def test_model_and_embeddings_are_reported_without_their_keys(root: Path, home: Path) -> None:
    secret = "sk-doctor-must-never-print-this-0123456789"
    code, report = doctor(root, home, CODEKEEP_MODEL="gpt-4.1-mini",
                          CODEKEEP_BASE_URL="http://127.0.0.1:9/v1", CODEKEEP_API_KEY=secret,
                          CODEKEEP_EMBEDDINGS_URL="http://127.0.0.1:9/v1")
    model = finding(report, "model", "agent model")  # nothing listens on port 9
    assert code == 1 and model["status"] == "problem" and "nothing answers there" in model["detail"]
    assert "gpt-4.1-mini" in model["detail"] and "an API key is set" in model["detail"]
    assert finding(report, "model", "embeddings")["status"] == "ok"
    assert finding(report, "model", "docs embeddings")["status"] == "ok"
    assert secret not in json.dumps(report)


def test_the_local_embedding_model_is_checked_where_it_is_chosen(root: Path, home: Path) -> None:
    code, report = doctor(root, home, CODEKEEP_EMBEDDINGS_PROVIDER="local")
    local = finding(report, "model", "docs embeddings")
    memory = finding(report, "model", "embeddings")
    assert (local["status"], local["detail"]) == (memory["status"], memory["detail"])
    try:
        holds = check_files()
    except LocalModelUnavailable as error:
        assert local["status"] == "problem" and str(error) in local["detail"]
    else:
        assert code == 0
        assert local["status"] == "ok" and "all-MiniLM-L6-v2" in local["detail"]
        assert holds in local["detail"]


def test_editor_configs_are_found(root: Path, home: Path) -> None:
    (home / ".vscode" / "extensions" / "codekeep.codekeep-0.1.0").mkdir(parents=True)
    lua = home / ".config" / "nvim" / "lsp" / "codekeep.lua"
    lua.parent.mkdir(parents=True)
    lua.write_text("return { cmd = { 'codekeep', 'serve' } }\n")
    (root / ".mcp.json").write_text('{"mcpServers": {"codekeep": {"command": "codekeep"}}}')
    _, report = doctor(root, home)
    assert finding(report, "editors", "VS Code")["status"] == "ok"
    assert str(lua) in finding(report, "editors", "Neovim")["detail"]
    claude = finding(report, "hosts", "Claude Code")
    assert claude["status"] == "ok"
    assert claude["detail"].startswith(f"installed (project): MCP server in {root / '.mcp.json'}")
    assert "missing: hooks, instructions (run codekeep install claude-code)" in claude["detail"]
    assert finding(report, "hosts", "Codex CLI") == {
        "area": "hosts", "name": "Codex CLI", "status": "info",
        "detail": "not set up (codekeep install codex)"}


def test_text_output_ends_with_the_count(root: Path, home: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "codekeep", "doctor", "--root", str(root)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HOME": str(home)})
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1] == "0 problems found"
    assert "grammars:" in done.stdout and "databases:" in done.stdout


def test_a_model_endpoint_that_answers_is_ok(root: Path, home: Path) -> None:
    from codekeep.testing.scripted_server import ScriptedModelServer

    with ScriptedModelServer() as server:
        _code, report = doctor(root, home, CODEKEEP_MODEL="scripted-model",
                               CODEKEEP_BASE_URL=server.base_url)
    model = finding(report, "model", "agent model")
    assert model["status"] == "ok" and "(answers)" in model["detail"]
