"""``codekeep mcp --http`` (streamable HTTP at /mcp) with the SDK's own client."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp.types import ToolListChangedNotification

from tests.mcp.harness import MCP_COMMAND, SERVER_ENV, http_client, http_server, text

pytestmark = pytest.mark.slow
TOKEN = "s3cret-token-for-tests-only"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_tools_and_resources_over_http(project: Path, mode: str) -> None:
    with http_server(project) as url:
        async with http_client(url, mode=mode) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            found = await client.call_tool("find_symbol", {"name": "compute_total"})
            outline = await client.read_resource("codekeep://codemap/repo-map")
    assert "find_symbol" in names and "write_file" not in names
    assert not found.is_error and "pkg/billing.py" in text(found)
    assert "pkg/checkout.py" in outline.contents[0].text  # type: ignore[union-attr]


async def test_load_tools_over_http_says_the_list_changed(project: Path) -> None:
    notified = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, ToolListChangedNotification):
            notified.set()

    with http_server(project) as url:
        async with http_client(url, mode="legacy", message_handler=on_message) as client:
            assert client.server_capabilities.tools is not None
            assert client.server_capabilities.tools.list_changed is True
            await client.call_tool("load_tools", {"category": "ledger"})
            await asyncio.wait_for(notified.wait(), 10)
            names = {tool.name for tool in (await client.list_tools()).tools}
    assert "ledger_report" in names


async def test_two_clients_at_once_keep_their_own_disclosure(project: Path) -> None:
    with http_server(project) as url:
        async with (
            http_client(url, name="cursor", mode="legacy") as first,
            http_client(url, name="cline", mode="legacy") as second,
        ):
            await first.call_tool("load_tools", {"category": "ledger"})
            answers = await asyncio.gather(
                *(first.call_tool("find_symbol", {"name": "checkout"}) for _ in range(5)),
                *(second.call_tool("find_references", {"name": "compute_total"}) for _ in range(5)),
            )
            first_names = {tool.name for tool in (await first.list_tools()).tools}
            second_names = {tool.name for tool in (await second.list_tools()).tools}
    assert all(not answer.is_error for answer in answers)
    assert "ledger_report" in first_names and "ledger_report" not in second_names


async def test_a_client_that_leaves_mid_call_does_not_stop_the_server(project: Path) -> None:
    with http_server(project) as url:
        async with http_client(url, mode="legacy") as leaving:
            call = asyncio.create_task(leaving.call_tool("repo_map", {"token_budget": 4000}))
            await asyncio.sleep(0.05)
            call.cancel()
        async with http_client(url) as staying:
            found = await staying.call_tool("find_symbol", {"name": "checkout"})
    assert not found.is_error and "pkg/checkout.py" in text(found)


async def test_a_token_is_required_when_configured(project: Path) -> None:
    with http_server(project, env={"CODEKEEP_MCP_TOKEN": TOKEN}) as url:
        async with httpx2.AsyncClient() as raw:
            missing = await raw.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            wrong = await raw.post(
                url, json={}, headers={"Authorization": "Bearer not-the-token-at-all"}
            )
        with pytest.raises(Exception):  # noqa: B017 - the SDK raises its transport error
            async with http_client(url, token="wrong-token-but-long-enough") as client:
                await client.list_tools()
        async with http_client(url, token=TOKEN) as client:
            found = await client.call_tool("find_symbol", {"name": "checkout"})
    assert missing.status_code == 401 and missing.json()["reason"] == "missing bearer token"
    assert wrong.status_code == 401 and wrong.headers["www-authenticate"].startswith("Bearer")
    assert not found.is_error


async def test_an_oversized_request_is_refused_and_serving_goes_on(project: Path) -> None:
    with http_server(project) as url:
        async with httpx2.AsyncClient() as raw:
            huge = await raw.post(
                url,
                content=b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"'
                + b"x" * (5 * 1024 * 1024) + b'"}}',
                headers={"Content-Type": "application/json",
                         "Accept": "application/json, text/event-stream"},
            )  # fmt: skip
        async with http_client(url) as client:
            found = await client.call_tool("find_symbol", {"name": "checkout"})
    assert huge.status_code == 413
    assert not found.is_error


def test_other_binds_need_an_explicit_flag_and_a_token(project: Path) -> None:
    base = [*MCP_COMMAND, "--root", str(project), "--http", "0.0.0.0:8799"]
    refused = subprocess.run(base, env=SERVER_ENV, capture_output=True, text=True, timeout=60)
    no_token = subprocess.run(
        [*base, "--allow-remote"], env=SERVER_ENV, capture_output=True, text=True, timeout=60
    )
    assert refused.returncode == 2 and "--allow-remote" in refused.stderr
    assert no_token.returncode == 2 and "bearer token" in no_token.stderr
