"""The real Claude Code (from npm, pinned in scripts/test) end to end, offline against the
scripted Anthropic server: ``codekeep install claude-code`` → a ``claude -p`` session that
calls CodeKeep's MCP tool and reads a file → the hooks fired, memory was in the very
first request, the ledger holds the session without an import and at Claude Code's own
price, and ``codekeep uninstall`` leaves the configuration as it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codekeep.testing.anthropic_server import (
    ScriptedAnthropicServer,
    Turn,
    Usage,
    request_text,
    say,
    use,
)

# Starts real processes (the server over stdio, the codekeep command, pip, a host's CLI).
pytestmark = pytest.mark.slow

NPM_BIN = Path(os.environ.get("CODEKEEP_NPM_CACHE") or Path.home() / ".cache" / "codekeep-npm"
               ) / "node_modules" / ".bin"
MODEL = "claude-sonnet-4-5-20250929"
# Each main-loop answer writes the prompt cache with both lifetimes and reads it back:
# Claude Code prices them apart, and so must the ledger.
USAGE = Usage(input_tokens=120, output_tokens=40, cache_read_input_tokens=3000,
              cache_write_5m_tokens=200, cache_write_1h_tokens=1500)


def tool(name: str) -> Path:
    found = NPM_BIN / name
    if not found.exists():
        if os.environ.get("CI"):
            pytest.fail(f"scripts/test installs {name} into {NPM_BIN}")
        pytest.skip(f"{name} is not installed in {NPM_BIN} (scripts/test installs it)")
    return found


def results_for(body: dict[str, Any]) -> set[str]:
    """Names of the tools whose results the request carries."""
    names = {}
    for message in body.get("messages") or []:
        for block in message.get("content") if isinstance(message.get("content"), list) else []:
            if block.get("type") == "tool_use":
                names[block["id"]] = block["name"]
    return {names.get(block.get("tool_use_id"), "?")
            for message in body.get("messages") or []
            if isinstance(message.get("content"), list)
            for block in message["content"] if block.get("type") == "tool_result"}


def waits(body: dict[str, Any]) -> int:
    """How many times the conversation already asked Claude Code to wait for MCP servers."""
    return sum(1 for message in body.get("messages") or []
               if isinstance(message.get("content"), list)
               for block in message["content"]
               if block.get("type") == "tool_use" and block.get("name") == "WaitForMcpServers")


# Claude Code connects MCP servers in the background; on a busy machine the codekeep
# process can need longer than one of the host's bounded waits to start.
MCP_WAITS = 6


def responder(billing: Path) -> Any:
    """The model: wait for MCP servers if they are still connecting, ask CodeKeep where
    ``total`` is, read the file, answer. Requests without tools (side calls) get a
    short answer."""
    def answer(body: dict[str, Any]) -> Turn:
        tools = {t.get("name") for t in body.get("tools") or []}
        if not tools:
            return say("ok", usage=USAGE)
        done = results_for(body)
        if "mcp__codekeep__find_symbol" not in tools:
            # each wait is bounded by Claude Code; a loaded machine may need a few
            if "WaitForMcpServers" in tools and waits(body) < MCP_WAITS:
                return use("WaitForMcpServers", {}, usage=USAGE)
            return say("CodeKeep's tools never arrived", usage=USAGE)
        if "mcp__codekeep__find_symbol" not in done:
            return use("mcp__codekeep__find_symbol", {"name": "total"}, usage=USAGE)
        if "Read" not in done:
            return use("Read", {"file_path": str(billing)}, usage=USAGE)
        return say("`total` is defined in src/billing.py.", usage=USAGE)
    return answer


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "billing.py").write_text(
        "def total(items):\n    \"\"\"The invoice total.\"\"\"\n    return sum(items)\n")
    (folder / ".claude").mkdir()
    (folder / ".claude" / "settings.json").write_text(
        '{\n  "permissions": {"deny": ["Bash(rm:*)"]},\n  "env": {"TEAM": "billing"}\n}\n')
    (folder / "CLAUDE.md").write_text("# Billing service\n\nMoney is integer cents.\n")
    return folder


def config_files(project: Path) -> dict[str, bytes | None]:
    paths = (".mcp.json", ".claude/settings.json", "CLAUDE.md")
    return {p: (project / p).read_bytes() if (project / p).exists() else None for p in paths}


def test_install_session_hooks_memory_ledger_and_uninstall(project: Path, tmp_path: Path
                                                           ) -> None:
    claude = tool("claude")
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(home),
           "XDG_DATA_HOME": os.environ["XDG_DATA_HOME"],
           "XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"]}
    codekeep = [sys.executable, "-m", "codekeep"]

    def run_codekeep(*argv: str) -> None:
        subprocess.run([*codekeep, *argv, "--root", str(project)], check=True, env=env,
                       capture_output=True, timeout=120)

    run_codekeep("memory", "remember", "Invoice totals round half-even, never half-up")
    run_codekeep("index")
    before = config_files(project)
    run_codekeep("install", "claude-code")

    with ScriptedAnthropicServer(responder=responder(project / "src" / "billing.py")) as server:
        done = subprocess.run(
            [str(claude), "-p", "Where is total defined?", "--output-format", "json",
             "--model", MODEL, "--allowedTools", "mcp__codekeep__find_symbol,Read"],
            cwd=project, capture_output=True, text=True, timeout=300,
            env={**env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-ant-e2e",
                 "ENABLE_TOOL_SEARCH": "false", "DISABLE_AUTOUPDATER": "1",
                 "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"})
        requests = list(server.requests)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["result"] == "`total` is defined in src/billing.py."
    session = result["session_id"]

    # Memory reached the model in the first request, fenced as data.
    first = request_text(requests[0])
    assert "<codekeep-memory" in first
    assert ("- Invoice totals round half-even, never half-up "
            "[fact; source: explicit_command; status: active]") in first

    # The hooks fired: the prompt, the MCP call and the read are in the session's memory.
    from codekeep.ledger import Ledger
    from codekeep.memory import MemoryService

    memory = MemoryService.open(project)
    try:
        events = [(e.event_type, e.files) for e in memory.events.events(f"claude-code:{session}")]
        summaries = memory.list(kinds=("summary",))
    finally:
        memory.close()
    assert events[0] == ("user_message", [])
    assert ("search", ["src/billing.py"]) in events  # find_symbol's answer named the file
    assert ("file_read", ["src/billing.py"]) in events
    assert any(f"claude-code:{session}" in s.content for s in summaries)  # SessionEnd
    assert not (project / ".codekeep" / "hooks.log").exists()

    # The ledger holds the session with no `codekeep ledger import`, at Claude Code's price.
    ledger = Ledger.open(project, start_flusher=False)
    try:
        report = ledger.report(task_id=f"claude-code:{session}")
    finally:
        ledger.close()
    main_calls = sum(1 for body in requests if body.get("tools"))
    assert report["total"]["calls"] == main_calls >= 3  # find_symbol, Read, the answer
    assert report["total"]["costUsd"] == pytest.approx(result["total_cost_usd"], rel=0.01)

    run_codekeep("uninstall", "claude-code")
    assert config_files(project) == before


def test_codex_lists_the_server_install_wrote(project: Path, tmp_path: Path) -> None:
    codex = tool("codex")
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "CODEX_HOME": str(home / ".codex"),
           "XDG_DATA_HOME": os.environ["XDG_DATA_HOME"]}
    subprocess.run([sys.executable, "-m", "codekeep", "install", "codex", "--scope", "user",
                    "--root", str(project)], check=True, env=env, capture_output=True,
                   timeout=120)
    listed = subprocess.run([str(codex), "mcp", "list", "--json"], cwd=project, env=env,
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    [server] = [s for s in json.loads(listed.stdout) if s["name"] == "codekeep"]
    transport = server["transport"]
    assert transport["command"] == str(Path(sys.executable).parent / "codekeep")
    assert transport["args"] == ["mcp"]
    subprocess.run([sys.executable, "-m", "codekeep", "uninstall", "codex", "--scope", "user",
                    "--root", str(project)], check=True, env=env, capture_output=True,
                   timeout=120)
    listed = subprocess.run([str(codex), "mcp", "list", "--json"], cwd=project, env=env,
                            capture_output=True, text=True, timeout=120)
    assert "codekeep" not in listed.stdout
