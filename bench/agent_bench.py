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

``--scenario two-task``: does memory pay, and does the ledger tell the truth?
On a real project installed from PyPI (``pathspec``, a CodeKeep dependency, copied from
site-packages), task 1 explores how a gitignore pattern becomes a regular expression
and learns (a finding noted, the task summary, what the user said); task 2 asks a
related question. The same scripted model answers both arms: when what memory put in
its prompt names the method and file, it goes straight to ``find_symbol`` and reads that
method; otherwise it searches and reads the matching files whole, as in task 1. Task 2's
tokens with task 1's memory are compared with task 2 on a fresh memory (target: >= 30 %
fewer, the answer still correct, checked against the code map), and the ledger's by-file
figures of every task are compared with the truth recomputed from the request log
(:mod:`codekeep.testing.truth`: the tokens of each file's text in each request; target:
within 5 %). The model is scripted, so the saving measures what memory makes possible,
not how often a real model takes the shortcut.

Usage: python bench/agent_bench.py [--symbols count_tokens,open_db,...]
       python bench/agent_bench.py --scenario two-task
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

from codekeep.agent.runner import build_loop
from codekeep.analysis.codemap import CodeMap
from codekeep.common.tokens import token_len
from codekeep.ledger import Ledger
from codekeep.memory import MemoryService
from codekeep.memory.events import SUMMARY_TEMPLATE
from codekeep.memory.extraction import MODEL_INSTRUCTIONS
from codekeep.settings.agent import ModelSettings
from codekeep.testing.scripted_server import (
    Reply,
    ScriptedCall,
    ScriptedModelServer,
    call,
    calls,
    prompt_tokens,
    say,
)
from codekeep.testing.truth import carried_chars, carried_tokens
from codekeep.tools import ToolSettings

REPO = Path(__file__).resolve().parent.parent
SYMBOLS = ("count_tokens", "open_db", "resolve_root", "parse_tool_arguments", "path_to_uri",
           "state_dir", "model_info", "classify_call_type")
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


def _read_whole(files: list[str], results: list[str], done: int) -> Reply | None:
    """The next reads that finish reading ``files`` whole (None: all read)."""
    seen = _coverage(results[1:])
    pending = [(path, seen.get(path, (0, 1))[0] + 1) for path in files
               if seen.get(path, (0, 1))[0] < seen.get(path, (0, 1))[1]]
    if not pending:
        return None
    return calls(*(ScriptedCall("read_file", {"path": path, "start_line": start},
                                id=f"read_{done}_{i}") for i, (path, start) in
                   enumerate(pending)))


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
        return _read_whole(files, results, done) or \
            say(f"{symbol} appears in {', '.join(files) or 'no file'}.")

    return respond


async def _ask(root: Path, server: ScriptedModelServer, services: dict[str, Any],
               strategy: Strategy, symbol: str, uncapped: bool = False) -> dict[str, Any]:
    server.set_responder(strategy(symbol))
    settings = ModelSettings(model="scripted-model", base_url=server.base_url,
                             context_window=1_000_000)  # no compression: raw strategy cost
    unlimited = {"result_chars": 10_000_000, "read_cap": 10_000_000}
    tools = replace(ToolSettings(), **unlimited) if uncapped else None
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


# ---- two tasks: memory that pays, a ledger that tells the truth ----------------------

PROJECT = "pathspec"
TASK_1 = ("How does pathspec turn a gitignore pattern into a regular expression? Our tests "
          "run with `pytest -q`.")
TASK_2 = "Which pathspec method compiles a gitignore pattern into a regex, and in which file?"
TARGET_METHOD = "GitIgnoreSpecPattern.pattern_to_regex"
TARGET_FILE = "pathspec/patterns/gitignore/spec.py"
SAVING_TARGET = 0.30
ERROR_TARGET = 0.05
_REMEMBERED = re.compile(r"(\w+\.pattern_to_regex) in (\S+\.py)")
_SYMBOL_AT = re.compile(r"^method \S+  .*  (\S+\.py):(\d+)", re.MULTILINE)


def _memory_call(body: dict[str, Any]) -> Reply | None:
    """The agent's memory calls (summary template, extraction) get well-formed answers."""
    system = str(body["messages"][0].get("content") or "")
    if system == SUMMARY_TEMPLATE:
        files = sorted(set(re.findall(r"files: ([^)\n]+)", body["messages"][-1]["content"])))
        listed = [f.strip() for line in files for f in line.split(",")][:5]
        return say(json.dumps({"files": listed, "operations": "explored pathspec",
                               "result": "answered"}))
    if system.startswith(MODEL_INSTRUCTIONS[:40]):
        return say(json.dumps({"memories": []}))
    return None


def two_task_strategy(body: dict[str, Any]) -> Reply:
    """Explore (search, read the matching files whole) unless memory names the method."""
    memory = _memory_call(body)
    if memory is not None:
        return memory
    done, results = _rounds(body)
    # what memory knew when the task started (the system prompt), not this task's notes
    remembered = _REMEMBERED.search(str(body["messages"][0].get("content") or ""))
    if remembered and done == 0:
        return call("find_symbol", {"name": remembered.group(1)})
    if remembered and done == 1:
        where = _SYMBOL_AT.search(results[0])
        path, line = (where.group(1), int(where.group(2))) if where else (remembered.group(2), 1)
        return call("read_file", {"path": path, "start_line": line, "end_line": line + 30})
    if remembered:
        return say(f"{remembered.group(1)} in {remembered.group(2)} compiles the pattern.")
    if done == 0:
        return call("search_code", {"pattern": "def pattern_to_regex"})
    files = _FILE_LINE.findall(results[0])
    reads = _read_whole(files, results, done)
    if reads is not None:
        return reads
    finding = f"{TARGET_METHOD} in {TARGET_FILE} turns a gitignore pattern into a regex"
    if not any("noted" in r for r in results):
        return call("note_finding", {"finding": finding, "evidence": TARGET_FILE})
    return say(f"{TARGET_METHOD} in {TARGET_FILE} compiles the pattern "
               f"(searched {len(files)} files).")


def _project_copy(tmp: Path, name: str) -> Path:
    """The installed package, copied so the stores go in the copy."""
    source = Path(__import__(PROJECT).__file__).resolve().parent
    root = tmp / name
    shutil.copytree(source, root / PROJECT, ignore=shutil.ignore_patterns("__pycache__"))
    return root


async def _task(root: Path, server: ScriptedModelServer, task: str) -> dict[str, Any]:
    """One task on ``root`` with all its services; tokens, answer and the by-file check."""
    codemap = CodeMap.open(root)
    codemap.index()
    memory = MemoryService.open(root, user_dir=root / ".user")
    ledger = Ledger.open(root, start_flusher=False)
    first = len(server.requests)
    try:
        settings = ModelSettings(model="scripted-model", base_url=server.base_url,
                                 context_window=128_000)  # a gpt-4o-sized window
        loop = build_loop(root, settings, codemap=codemap, memory=memory, ledger=ledger)
        try:
            result = await loop.run(task, "explore")
        finally:
            loop.toolkit.close()
        report = ledger.report(task_id=result.task_id, top_files=1000)
        symbol = codemap.find_symbol(TARGET_METHOD)
    finally:
        ledger.close()
        memory.close()
        codemap.close()
    truth: dict[str, int] = {}
    by_chars: dict[str, int] = {}  # weighting by characters, for reference
    for body in server.requests[first:]:
        for path, tokens in carried_tokens(body, root).items():
            truth[path] = truth.get(path, 0) + tokens
        for path, tokens in _char_weighted(body, root).items():
            by_chars[path] = by_chars.get(path, 0) + tokens
    billed = {row["path"]: row["tokens"] for row in report["byFile"]}
    correct = bool(symbol) and symbol[0].path == TARGET_FILE and \
        TARGET_METHOD in result.answer and TARGET_FILE in result.answer
    return {"tokens": report["total"]["tokens"], "calls": report["total"]["calls"],
            "answer": result.answer, "correct": correct, "truth": truth, "billed": billed,
            "byChars": by_chars, "toolCalls": [c.name for c in result.tool_calls]}


def _char_weighted(body: dict[str, Any], root: Path) -> dict[str, int]:
    """What weighting by characters (the prompt's characters, schemas as JSON) would bill."""
    files = carried_chars(body, root)
    total = sum(len(str(m.get("content") or "")) + sum(
        len(json.dumps(c.get("function") or {})) for c in m.get("tool_calls") or [])
        for m in body["messages"]) + len(json.dumps(body.get("tools") or []))
    return {path: prompt_tokens(body) * chars // total for path, chars in files.items()}


def _error(runs: list[dict[str, Any]], billed: str = "billed") -> dict[str, Any]:
    """By-file figures vs the request log: summed absolute error over summed truth."""
    truth = sum(sum(run["truth"].values()) for run in runs)
    off = sum(abs(run[billed].get(path, 0) - tokens)
              for run in runs for path, tokens in run["truth"].items())
    off += sum(tokens for run in runs for path, tokens in run[billed].items()
               if path not in run["truth"])
    worst = max((abs(run[billed].get(path, 0) - tokens) / tokens, path)
                for run in runs for path, tokens in run["truth"].items() if tokens)
    return {"truthTokens": truth, "absoluteErrorTokens": off,
            "error": round(off / truth, 4) if truth else 0.0,
            "worstFileError": round(worst[0], 4), "worstFile": worst[1]}


async def _two_tasks(tmp: Path) -> dict[str, Any]:
    with ScriptedModelServer(responder=two_task_strategy) as server:
        learned = _project_copy(tmp, "with-memory")
        first = await _task(learned, server, TASK_1)
        remembered = await _task(learned, server, TASK_2)
        fresh = await _task(_project_copy(tmp, "fresh-memory"), server, TASK_2)
    saving = 1 - remembered["tokens"] / fresh["tokens"]
    error = _error([first, remembered, fresh])
    return {
        "bench": "agent_two_tasks_memory_and_attribution",
        "project": f"{PROJECT} {__import__(PROJECT).__version__} (PyPI)",
        "task1": {k: first[k] for k in ("tokens", "calls", "correct", "toolCalls")},
        "task2WithMemory": {k: remembered[k] for k in ("tokens", "calls", "correct",
                                                       "toolCalls", "answer")},
        "task2FreshMemory": {k: fresh[k] for k in ("tokens", "calls", "correct",
                                                   "toolCalls", "answer")},
        "task2Saving": round(saving, 4),
        "savingTarget": SAVING_TARGET,
        "byFileError": error,
        # the same figures weighted by characters instead of tokens
        "byFileErrorCharWeighted": _error([first, remembered, fresh], "byChars"),
        "errorTarget": ERROR_TARGET,
        "meetsTarget": saving >= SAVING_TARGET and remembered["correct"] and fresh["correct"]
        and error["error"] <= ERROR_TARGET,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--symbols", default=",".join(SYMBOLS))
    parser.add_argument("--scenario", choices=("where", "two-task"), default="where")
    args = parser.parse_args()
    if args.scenario == "two-task":
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps(asyncio.run(_two_tasks(Path(tmp)))))
        return
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
