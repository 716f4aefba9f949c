"""Agent token benchmark: "where is X defined and who calls it?" on this repository.

Two scripted models answer the same questions through the real agent loop, the real
tools and the real scripted OpenAI-compatible endpoint on 127.0.0.1; tokens come from the
ledger (the endpoint reports usage counted with tiktoken over exactly what it was sent):

* code map: find_symbol and find_references in one round -> answer;
* whole files (the reference, measured in the same run): search_code to find the files
  mentioning X -> read each of them whole (continuing where a capped read stopped)
  -> answer; and the most generous form of it, every file whole in one read (the
  result cap lifted). ``meetsTarget`` is judged against that generous reference.

Target: code-map tokens <= 25 % of whole-file tokens. Prints ONE JSON object.

Usage: python bench/agent_bench.py [--symbols count_tokens,open_db,...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from codekeep.agent.config import ModelSettings
from codekeep.agent.runner import build_loop
from codekeep.analysis.codemap import CodeMap
from codekeep.common.tokens import token_len
from codekeep.ledger import Ledger
from codekeep.testing.scripted_server import (
    Reply,
    ScriptedCall,
    ScriptedModelServer,
    call,
    calls,
    prompt_tokens,
    say,
)
from codekeep.tools import ToolSettings

REPO = Path(__file__).resolve().parent.parent
SYMBOLS = ("count_tokens", "open_db", "resolve_root", "parse_tool_arguments", "path_to_uri",
           "state_dir", "model_info", "infer_call_type")
TARGET = 0.25
_LOCATION = re.compile(r"(\S+\.py):(\d+)")
_FILE_LINE = re.compile(r"^(\S+\.\w+) \(\d+\)$", re.MULTILINE)
_READ_HEADER = re.compile(r"^(\S+) lines \d+-(\d+) of (\d+)")
_NUMBERED_LINE = re.compile(r"^ *(\d+)(?:  |$)", re.MULTILINE)

Strategy = Callable[[str], Callable[[dict[str, Any]], Reply]]


def _rounds(body: dict[str, Any]) -> tuple[int, list[str]]:
    """How many tool rounds happened, and the tool results seen so far."""
    messages = body["messages"]
    done = sum(1 for m in messages if m["role"] == "assistant" and m.get("tool_calls"))
    return done, [str(m.get("content") or "") for m in messages if m["role"] == "tool"]


def code_map_strategy(symbol: str) -> Callable[[dict[str, Any]], Reply]:
    """Ask the code map both questions at once, answer from the two compact results."""

    def respond(body: dict[str, Any]) -> Reply:
        done, results = _rounds(body)
        if done == 0:
            return calls(ScriptedCall("find_symbol", {"name": symbol}, id="definition"),
                         ScriptedCall("find_references", {"name": symbol}, id="callers"))
        location = _LOCATION.search(results[0])
        callers = ", ".join(_FILE_LINE.findall(results[1])) or "no callers"
        where = location.group(0) if location else "not found"
        return say(f"{symbol} is defined at {where}; used in {callers}.")

    return respond


def _coverage(results: list[str]) -> dict[str, tuple[int, int]]:
    """path -> (last line seen, total lines) from the read_file results so far."""
    seen: dict[str, tuple[int, int]] = {}
    for text in results:
        header = _READ_HEADER.match(text)
        if not header:
            continue
        path, end, total = header.group(1), int(header.group(2)), int(header.group(3))
        numbered = _NUMBERED_LINE.findall(text)
        capped = text.rstrip().endswith("omitted") or "request start_line=" in text
        last = (int(numbered[-1]) if numbered else 0) if capped else end
        seen[path] = (max(last, seen.get(path, (0, total))[0]), total)
    return seen


def whole_file_strategy(symbol: str) -> Callable[[dict[str, Any]], Reply]:
    """The reference: find the files that mention X, then read every one of them whole.

    ``read_file`` keeps what enters the context under a size cap and says where it
    stopped, so a whole large file takes several reads, as it would for any agent.
    """

    def respond(body: dict[str, Any]) -> Reply:
        done, results = _rounds(body)
        if done == 0:
            return call("search_code", {"pattern": symbol})
        files = _FILE_LINE.findall(results[0])
        seen = _coverage(results[1:])
        pending = [(path, seen.get(path, (0, 1))[0] + 1) for path in files
                   if seen.get(path, (0, 1))[0] < seen.get(path, (0, 1))[1]]
        if pending:
            return calls(*(ScriptedCall("read_file", {"path": path, "start_line": start},
                                        id=f"read_{done}_{i}")
                           for i, (path, start) in enumerate(pending)))
        return say(f"{symbol} appears in {', '.join(files) or 'no file'}.")

    return respond


async def _ask(root: Path, server: ScriptedModelServer, services: dict[str, Any],
               strategy: Strategy, symbol: str, uncapped: bool = False) -> dict[str, Any]:
    server.set_responder(strategy(symbol))
    settings = ModelSettings(model="scripted-model", base_url=server.base_url,
                             context_window=1_000_000)  # no compression: raw strategy cost
    unlimited = {"result_chars": 10_000_000, "read_cap": 10_000_000}
    tools = replace(ToolSettings.load(root), **unlimited) if uncapped else None
    loop = build_loop(root, settings, tool_settings=tools, **services)
    first_request = len(server.requests)
    started = time.perf_counter()
    try:
        result = await loop.run(f"Where is {symbol} defined and who calls it?", "explore")
    finally:
        loop.toolkit.close()
    report = services["ledger"].report(task_id=result.task_id)
    tool_results = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"]
    first = server.requests[first_request]
    overhead = prompt_tokens({"messages": first["messages"][:1], "tools": first.get("tools")})
    return {"tokens": report["total"]["tokens"], "calls": report["total"]["calls"],
            "overheadPerCall": overhead,
            "resultTokens": sum(token_len(str(m["content"])) for m in tool_results),
            "toolCalls": len(result.tool_calls), "seconds": time.perf_counter() - started,
            "answer": result.answer}


async def _measure(root: Path, symbols: list[str], services: dict[str, Any]) -> dict[str, Any]:
    questions = []
    with ScriptedModelServer() as server:
        for symbol in symbols:
            mapped = await _ask(root, server, services, code_map_strategy, symbol)
            whole = await _ask(root, server, services, whole_file_strategy, symbol)
            single = await _ask(root, server, services, whole_file_strategy, symbol,
                                uncapped=True)
            questions.append({
                "symbol": symbol, "codeMapTokens": mapped["tokens"],
                "wholeFileTokens": whole["tokens"],
                "ratio": round(mapped["tokens"] / whole["tokens"], 4),
                "wholeFileOneReadTokens": single["tokens"],
                "ratioOneRead": round(mapped["tokens"] / single["tokens"], 4),
                "overheadPerCall": mapped["overheadPerCall"],
                "codeMapResultTokens": mapped["resultTokens"],
                "wholeFileResultTokens": whole["resultTokens"],
                "codeMapCalls": mapped["calls"], "wholeFileCalls": whole["calls"],
                "wholeFileReads": whole["toolCalls"] - 1, "codeMapSeconds": mapped["seconds"],
                "wholeFileSeconds": whole["seconds"], "answer": mapped["answer"]})
    mapped_total = sum(q["codeMapTokens"] for q in questions)
    whole_total = sum(q["wholeFileTokens"] for q in questions)
    single_total = sum(q["wholeFileOneReadTokens"] for q in questions)
    mapped_fixed = sum(q["overheadPerCall"] * q["codeMapCalls"] for q in questions)
    whole_fixed = sum(q["overheadPerCall"] * q["wholeFileCalls"] for q in questions)
    return {
        "bench": "agent_tokens_where_defined_who_calls",
        "repository": str(REPO.name),
        "questions": [{k: (round(v, 4) if isinstance(v, float) else v) for k, v in q.items()}
                      for q in questions],
        "codeMapTokensTotal": mapped_total,
        "wholeFileTokensTotal": whole_total,
        "ratioTotal": round(mapped_total / whole_total, 4),
        # the most generous reference: each file whole in ONE read (no result cap)
        "wholeFileOneReadTokensTotal": single_total,
        "ratioOneReadTotal": round(mapped_total / single_total, 4),
        "ratioOneReadMedian": round(statistics.median(q["ratioOneRead"] for q in questions), 4),
        "ratioOneReadMax": round(max(q["ratioOneRead"] for q in questions), 4),
        # the same system prompt + tool schemas ride along in every call of either strategy
        "overheadPerCallMedian": statistics.median(q["overheadPerCall"] for q in questions),
        "ratioExcludingFixedOverhead": round((mapped_total - mapped_fixed)
                                             / (whole_total - whole_fixed), 4),
        "resultTokensRatio": round(sum(q["codeMapResultTokens"] for q in questions)
                                   / sum(q["wholeFileResultTokens"] for q in questions), 4),
        "ratioMedian": round(statistics.median(q["ratio"] for q in questions), 4),
        "ratioMax": round(max(q["ratio"] for q in questions), 4),
        "codeMapTokensMedian": statistics.median(q["codeMapTokens"] for q in questions),
        "wholeFileTokensMedian": statistics.median(q["wholeFileTokens"] for q in questions),
        "codeMapSecondsMedian": round(statistics.median(q["codeMapSeconds"]
                                                        for q in questions), 4),
        "wholeFileSecondsMedian": round(statistics.median(q["wholeFileSeconds"]
                                                          for q in questions), 4),
        "target": TARGET,
        "meetsTarget": mapped_total / single_total <= TARGET,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--symbols", default=",".join(SYMBOLS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        shutil.copytree(REPO / "codekeep", root / "codekeep")  # the stores go in the copy
        codemap = CodeMap.open(root)
        stats = codemap.index()
        ledger = Ledger.open(root, start_flusher=False)
        try:  # no memory: earlier answers must not shorten later questions
            result = asyncio.run(_measure(root, args.symbols.split(","), {
                "codemap": codemap, "memory": None, "ledger": ledger}))
        finally:
            ledger.close()
            codemap.close()
    result["indexedFiles"] = stats.files
    print(json.dumps(result))


if __name__ == "__main__":
    main()
