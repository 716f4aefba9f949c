"""The team scope through the doors a user has: the ``codekeep memory`` command line
and a real ``codekeep serve`` over stdio (the editor setting ``codekeep.team.dsn``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from codekeep.cli import main
from tests.server.lsp_harness import request, session, write_project
from tests.team.conftest import write_config

pytestmark = pytest.mark.slow


def cli(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str, str]:
    code = main(["memory", *args, "--root", str(root)])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_remember_list_promote_recall(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, team_dsn: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    for root, name in ((alice, "alice"), (bob, "bob")):
        root.mkdir()
        write_config(root, None, name)
    monkeypatch.setenv("CODEKEEP_TEAM_DSN", team_dsn)

    code, out, _ = cli(capsys, alice, "remember", "staging deploys need the VPN",
                       "--scope", "team", "--json")
    assert code == 0 and json.loads(out)["action"] == "ADD"
    code, out, _ = cli(capsys, alice, "remember", "the release branch is cut on Mondays", "--json")
    local_id = json.loads(out)["id"]
    code, out, _ = cli(capsys, alice, "promote", local_id, "--to", "team", "--json")
    assert code == 0 and json.loads(out)["action"] == "PROMOTE"

    code, out, _ = cli(capsys, bob, "list", "--scope", "team", "--json")
    listed = json.loads(out)["memories"]
    assert sorted(m["content"] for m in listed) == [
        "staging deploys need the VPN",
        "the release branch is cut on Mondays",
    ]
    assert {m["author"] for m in listed} == {"alice"} and {m["scope"] for m in listed} == {"team"}
    code, out, _ = cli(capsys, bob, "list", "--scope", "team")
    assert code == 0 and "(by alice)" in out and " team " in out
    code, out, _ = cli(capsys, bob, "recall", "when is the release branch cut", "--json")
    assert json.loads(out)["memories"][0]["scope"] == "team"


def test_cli_without_a_team_database(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CODEKEEP_TEAM_DSN", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "solo"
    root.mkdir()
    code, _, err = cli(capsys, root, "remember", "shared", "--scope", "team")
    assert code == 1
    assert err.startswith("codekeep: no team database configured: set CODEKEEP_TEAM_DSN")
    code, _, err = cli(capsys, root, "list", "--scope", "team")
    assert code == 1 and "no team database configured" in err
    code, _, err = cli(capsys, root, "remember", "a local note")
    assert code == 0


async def test_lsp_without_team_database_says_so(tmp_path: Path) -> None:
    project = write_project(tmp_path / "shapes")
    async with session(project) as client:
        with pytest.raises(JsonRpcException, match="no team database configured"):
            await request(client, "codekeep/memory/remember",
                          {"content": "shared", "scope": "team"})
        ok = await request(client, "codekeep/memory/remember", {"content": "local is fine"})
        assert ok["action"] == "ADD"


async def test_lsp_team_scope_and_promote(tmp_path: Path, team_dsn: str) -> None:
    """The editor setting codekeep.team.dsn (initializationOptions) opens the team scope."""
    project = write_project(tmp_path / "shapes")
    write_config(project, None, "carol")
    async with session(project, options={"team": {"dsn": team_dsn}}) as client:
        shared = await request(client, "codekeep/memory/remember",
                               {"content": "geometry areas are in square metres", "scope": "team"})
        assert shared["action"] == "ADD" and shared["id"].startswith("g")
        local = await request(client, "codekeep/memory/remember",
                              {"content": "total_area sums every shape"})
        promoted = await request(client, "codekeep/memory/promote",
                                 {"id": local["id"], "to": "team"})
        assert promoted["action"] == "PROMOTE" and promoted["id"].startswith("g")
        listed = await request(client, "codekeep/memory/list", {"scope": "team"})
        assert {m["author"] for m in listed["memories"]} == {"carol"}
        assert len(listed["memories"]) == 2
        recalled = await request(client, "codekeep/memory/recall",
                                 {"query": "geometry square metres"})
        assert recalled["memories"][0]["id"] == shared["id"]
        assert recalled["memories"][0]["scope"] == "team"
        with pytest.raises(JsonRpcException, match="only to the team scope"):
            await request(client, "codekeep/memory/promote", {"id": local["id"], "to": "user"})


async def test_mcp_remember_offers_the_team_scope_only_when_configured(
    tmp_path: Path, team_dsn: str
) -> None:
    """The MCP SDK's own client against ``codekeep mcp``: ``scope`` lists ``team`` where a
    team database is configured and writes there; elsewhere the schema and the refusal
    both say why there is none."""
    from tests.agent.projects import write_shop
    from tests.mcp.harness import stdio_client, text

    shared = write_shop(tmp_path / "shared")
    write_config(shared, team_dsn, "mcp-agent")
    async with stdio_client(shared) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        scope = tools["remember"].input_schema["properties"]["scope"]
        assert scope["enum"] == ["project", "user", "team"]
        written = await client.call_tool(
            "remember", {"content": "checkout totals are computed in cents", "scope": "team"})
        assert not written.is_error, text(written)
        team_id = written.structured_content["data"]["id"]
        assert team_id.startswith("g") and "waits for a person's confirmation" in text(written)
        unconfirmed = await client.call_tool("recall", {"query": "checkout totals cents"})
        assert "checkout totals are computed in cents" not in text(unconfirmed)
        assert main(["memory", "confirm", team_id, "--root", str(shared)]) == 0  # a person
        found = await client.call_tool("recall", {"query": "are totals computed in cents"})
        assert "checkout totals are computed in cents" in text(found)
    solo = write_shop(tmp_path / "solo")
    async with stdio_client(solo) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        scope = tools["remember"].input_schema["properties"]["scope"]
        assert scope["enum"] == ["project", "user"]
        assert "no team database is configured" in scope["description"]
        refused = await client.call_tool("remember", {"content": "shared", "scope": "team"})
        assert refused.is_error and "no team database is configured" in text(refused)
