"""One workspace, three kinds of writer at once: an MCP server, a language server and the
CLI. Every write lands (nothing lost) and nobody sees "database is locked"."""

from __future__ import annotations

import asyncio
import itertools
import subprocess
from pathlib import Path

import pytest

from codekeep.memory import MemoryService
from tests.mcp.harness import MCP_COMMAND, SERVER_ENV, stdio_client, text
from tests.server.lsp_harness import request, session

pytestmark = pytest.mark.slow
ROUNDS = 12
_SYLLABLES = ["ka", "lo", "mi", "nu", "pe", "ro", "si", "tu", "va", "xe", "zo", "bi"]
_WORDS = ("".join(parts) for parts in itertools.permutations(_SYLLABLES, 3))


def fact() -> str:
    """A sentence sharing no word with any other (so consolidation never merges two)."""
    return "Remember " + " ".join(next(_WORDS) for _ in range(6))


async def test_mcp_lsp_and_cli_writers_lose_nothing(project: Path) -> None:
    mcp_facts = [fact() for _ in range(ROUNDS)]
    lsp_facts = [fact() for _ in range(ROUNDS)]
    cli_facts = [fact() for _ in range(4)]

    async def through_mcp() -> list[str]:
        problems = []
        async with stdio_client(project, "--allow-write") as client:
            for number, content in enumerate(mcp_facts):
                written = await client.call_tool("remember", {"content": content})
                code = f"def made_by_mcp_{number}():\n    return {number}\n"
                edited = await client.call_tool(
                    "write_file", {"path": f"pkg/mcp_{number % 3}.py", "content": code}
                )
                problems += [text(r) for r in (written, edited) if r.is_error]
        return problems

    async def through_lsp() -> list[str]:
        async with session(project) as lsp:
            for content in lsp_facts:
                await request(lsp, "codekeep/memory/remember", {"content": content})
                await request(lsp, "codekeep/findSymbol", {"name": "checkout"})
        return []

    def through_cli() -> list[str]:
        problems = []
        for content in cli_facts:
            done = subprocess.run(
                [*MCP_COMMAND[:-1], "memory", "remember", content, "--root", str(project)],
                env=SERVER_ENV, capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            indexed = subprocess.run(
                [*MCP_COMMAND[:-1], "index", "--root", str(project)],
                env=SERVER_ENV, capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            problems += [p.stderr for p in (done, indexed) if p.returncode != 0]
        return problems

    results = await asyncio.gather(through_mcp(), through_lsp(), asyncio.to_thread(through_cli))
    assert [p for problems in results for p in problems] == []
    with MemoryService.open(project) as memory:
        stored = {m.content for m in memory.list(statuses=["active", "observed"], limit=500)}
    expected = {c.rstrip(".") for c in mcp_facts + lsp_facts + cli_facts}
    assert expected <= stored
