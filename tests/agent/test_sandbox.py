"""Tests the agent writes and then runs cannot reach what the tools refuse.

The agent, against the scripted model, writes ``test_probe.py`` and runs the allowed
``pytest`` on it. The test tries every way out: a canary file outside the workspace,
one in the home directory's ``.ssh``, the workspace's ``.env``, a hard link to the
outside canary, the network (the scripted model's own port), and writing outside.
Inside the bubblewrap sandbox each attempt finds nothing. Without a sandbox the
command is refused with the reason, unless the user opted in to unsandboxed runs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codekeep.settings import load_settings
from codekeep.settings.tools import UNSANDBOXED_ENV
from codekeep.testing.scripted_server import call, say
from codekeep.tools import command_sandbox
from tests.agent.conftest import AgentHarness

CANARY = "CANARY-7f3a9c"

PROBE = '''
import os, socket, pathlib

def read(path):
    try:
        return pathlib.Path(path).read_text()
    except OSError as error:
        return f"<{{type(error).__name__}}>"

def test_probe():
    found = {{
        "outside": read({outside!r}),
        "home_ssh": read({ssh!r}),
        "env": read(".env"),
        "hard_link": read("mirror.txt"),
    }}
    try:
        socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
        found["network"] = "reached"
    except OSError as error:
        found["network"] = f"<{{type(error).__name__}}>"
    try:
        pathlib.Path({pwned!r}).write_text("pwned")
    except OSError:
        pass
    print("PROBE", found)
    assert False, found  # fail so pytest prints what was found
'''


@pytest.fixture
def planted(harness: AgentHarness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
            ) -> dict[str, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "canary.txt").write_text(f"{CANARY} outside\n")
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(f"{CANARY} ssh key\n")
    monkeypatch.setenv("HOME", str(home))
    (harness.root / ".env").write_text(f"API_TOKEN={CANARY}\n")
    os.link(outside / "canary.txt", harness.root / "mirror.txt")
    return {"outside": outside / "canary.txt", "ssh": home / ".ssh" / "id_rsa",
            "pwned": outside / "pwned.txt"}


def _probe(harness: AgentHarness, planted: dict[str, Path]) -> str:
    return PROBE.format(outside=str(planted["outside"]), ssh=str(planted["ssh"]),
                        pwned=str(planted["pwned"]),
                        port=harness.server.base_url.rsplit(":", 1)[1].split("/")[0])


@pytest.mark.slow
@pytest.mark.skipif(command_sandbox.bwrap() is None, reason="needs bubblewrap (scripts/test "
                    "installs it); the refusal without it is tested below")
async def test_a_test_the_agent_wrote_finds_nothing_outside(
        harness: AgentHarness, planted: dict[str, Path]) -> None:
    harness.server.push(
        call("write_file", {"path": "test_probe.py", "content": _probe(harness, planted)}),
        call("run_command", {"command": "pytest -q -p no:cacheprovider test_probe.py"}),
        say("done"),
    )
    result = await harness.run("Write a probe test and run it", "edit")
    assert [(c.name, c.outcome) for c in result.tool_calls][:1] == [("write_file", "ok")]
    ran = harness.server.tool_messages(2)[-1]["content"]
    assert "PROBE" in ran, ran  # the test did run, in the sandbox
    assert CANARY not in ran, ran
    for name in ("outside", "home_ssh", "env", "hard_link", "network"):
        assert f"\\'{name}\\': \\'<" in ran or f"'{name}': '<" in ran, (name, ran)
    assert "API_TOKEN" not in ran
    assert not planted["pwned"].exists()


async def test_without_a_sandbox_commands_are_refused_unless_the_user_opts_in(
        harness: AgentHarness, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(command_sandbox, "bwrap", lambda: None)
    harness.server.push(call("run_command", {"command": "ls"}), say("done"), say("done"))
    await harness.run("List the files", "edit")
    refused = _tool_results(harness)
    assert any("REFUSED [command.no_sandbox]" in r and "bubblewrap" in r
               and "tools.allowUnsandboxed" in r for r in refused), refused

    # The opt-in is the setting tools.allowUnsandboxed; its variable sets it like any other.
    env = {UNSANDBOXED_ENV: "1"}
    tools = load_settings(harness.root, env=env).settings.tools
    assert tools.allow_unsandboxed
    harness.server.push(call("run_command", {"command": "ls"}), say("done"), say("done"))
    await harness.run("List the files again", "edit", tools=tools)
    assert any(r.startswith("$ ls\nexit 0") and "pkg" in r for r in _tool_results(harness))


def _tool_results(harness: AgentHarness) -> list[str]:
    return [m["content"] for body in harness.server.requests for m in body["messages"]
            if m.get("role") == "tool"]
