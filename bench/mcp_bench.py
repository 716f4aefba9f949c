"""The MCP door through the real protocol: tool-call latency and the tokens it saves.

Starts ``codekeep mcp`` on stdio (the SDK's own client, as a host would) on a copy of
this repository's ``codekeep/`` package and measures:

* latency: ``find_symbol`` / ``find_references`` / ``find_related`` calls, each on a
  different symbol (no answer comes from the per-client cache), interleaved with the
  protocol's own ``ping`` in the same run; p50/p99 of each and the p50 over ping;
* tokens: for functions that have callers, what an agent reads to answer "where is X
  and who calls it" through MCP (the request arguments plus the text of the
  ``find_symbol`` and ``find_related`` answers) against reading the defining file and
  every calling file whole (what it reads without a code map, even granting it found
  the right files); the goal is a ratio of at most 25 %;
* the schemas a host is handed at connect time: the default set vs every tool.

Prints one JSON object. Usage: ``python bench/mcp_bench.py [--rounds N] [--questions N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.types import Implementation

from codekeep.analysis.codemap import CodeMap
from codekeep.common.tokens import token_len

REPO = Path(__file__).resolve().parents[1]
GOAL_RATIO = 0.25


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": round(statistics.median(values), 3), "p99": round(percentile(values, 0.99), 3)}


def schema_tokens(tools: list[Any]) -> int:
    """Tokens of the tool definitions as a host receives them (name, schemas, hints)."""
    return token_len(
        json.dumps([tool.model_dump(mode="json", exclude_none=True) for tool in tools])
    )


def answer_text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def corpus(into: Path) -> Path:
    root = into / "corpus"
    shutil.copytree(REPO / "codekeep", root / "codekeep",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    return root


def called_functions(root: Path, limit: int) -> list[tuple[str, str, int, list[str]]]:
    """(name, path, 1-based line, caller files) of functions with callers elsewhere."""
    found = []
    with CodeMap.open(root) as codemap:
        codemap.index()
        seen: set[str] = set()
        for symbol in codemap.symbols_in():
            if symbol.kind not in ("function", "method") or symbol.name in seen:
                continue
            if symbol.name.startswith("_") or len(codemap.find_symbol(symbol.name)) != 1:
                continue  # one definition: the question has one answer
            callers = codemap.incoming_calls(symbol.id)
            files = sorted({edge.symbol.path for edge in callers} - {symbol.path})
            if files:
                seen.add(symbol.name)
                line = symbol.selection_range.start.line + 1
                found.append((symbol.name, symbol.path, line, files))
    return found[:limit]


async def measure(root: Path, rounds: int, questions: int) -> dict[str, Any]:
    targets = called_functions(root, max(rounds, questions))
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "codekeep", "mcp", "--root", str(root)]
    )
    client = Client(params, client_info=Implementation(name="bench", version="1"), mode="legacy")
    async with client:
        default_tools = (await client.list_tools()).tools
        await client.call_tool("find_symbol", {"name": targets[0][0]})  # first index done
        timings: dict[str, list[float]] = {"ping": [], "find_symbol": [], "find_references": [],
                                           "find_related": []}  # fmt: skip
        rounds = min(rounds, len(targets))  # one symbol per round: never a cache hit
        for name, path, line, _files in targets[:rounds]:
            calls: dict[str, dict[str, Any]] = {
                "find_symbol": {"name": name},
                "find_references": {"name": name},
                "find_related": {"path": path, "line": line},
            }
            for tool, arguments in calls.items():
                started = time.perf_counter()
                await client.send_ping()
                timings["ping"].append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                await client.call_tool(tool, arguments)
                timings[tool].append((time.perf_counter() - started) * 1000)
        via_mcp = whole_files = 0
        asked = targets[:questions]
        for name, path, line, files in asked:
            symbol_args = {"name": name}
            related_args = {"path": path, "line": line}
            found = await client.call_tool("find_symbol", symbol_args)
            related = await client.call_tool("find_related", related_args)
            via_mcp += sum(token_len(json.dumps(a)) for a in (symbol_args, related_args))
            via_mcp += token_len(answer_text(found)) + token_len(answer_text(related))
            whole_files += sum(
                token_len((root / f).read_text(encoding="utf-8")) for f in {path, *files}
            )
        listing = await client.call_tool("list_tool_categories", {})
        for row in (listing.structured_content or {})["data"]["categories"]:
            await client.call_tool("load_tools", {"category": row["category"]})
        every_tool = (await client.list_tools()).tools
    ping = statistics.median(timings["ping"])
    return {
        "corpus": {"files": sum(1 for _ in (root / "codekeep").rglob("*.py"))},
        "rounds": min(rounds, len(timings["find_symbol"])),
        "latency_ms": {tool: summary(values) for tool, values in timings.items()},
        "over_ping_p50_ms": {
            tool: round(statistics.median(values) - ping, 3)
            for tool, values in timings.items()
            if tool != "ping"
        },
        "where_and_who_calls": {
            "questions": len(asked),
            "tokens_via_mcp": via_mcp,
            "tokens_reading_whole_files": whole_files,
            "ratio": round(via_mcp / whole_files, 4),
            "goal_ratio": GOAL_RATIO,
            "met": via_mcp / whole_files <= GOAL_RATIO,
        },
        "schemas_at_connect": {
            "default_tools": len(default_tools),
            "default_tokens": token_len(
                json.dumps([t.model_dump(mode="json") for t in default_tools])
            ),
            "all_tools": len(every_tool),
            "all_tokens": token_len(json.dumps([t.model_dump(mode="json") for t in every_tool])),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--questions", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = asyncio.run(measure(corpus(Path(tmp)), args.rounds, args.questions))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
