"""Claude Code hook benchmark: latency of ``codekeep hook EVENT`` per event, and the
tokens the hooks inject per session against what the model's own ``recall`` calls cost.

Prints ONE JSON object. The workspace is Django's code (downloaded from PyPI by the
ordinary client, indexed by ``codekeep index``) with a 10k-memory store loaded as
``bench/memory_bench.py`` does (the steady state: 500 active facts, 200 summaries, the
rest archived, superseded or disabled). Each hook runs as Claude Code runs it: a fresh
``codekeep hook EVENT`` process, the event's JSON on stdin. The reference, measured in
the same run, is a bare interpreter start (``python -c pass``): the ratio says what the
hook costs beyond starting Python on this machine's load.

Events: SessionStart (startup and compact), UserPromptSubmit over two prompt sets —
``tuned`` (the prompts looked at while making the hooks fast) and ``held_out`` (never
looked at before the figures were taken; reported apart) — PostToolUse for a Read and
an Edit of a Django file a memory is linked to (an edit is recorded at once and
re-reads the file into the code map, which an edit of a file no memory names skips; a
read is only noted, for the next memory hook), Stop over a 40-call transcript, the
first Stop of a 1,000-call transcript (a long session resumed: the fold's budget
leaves the rest to later hooks; ``long_fold`` says how many hooks booked all of it),
SessionEnd. Target: p95 ≤ 300 ms for every event.

Tokens: for each prompt, the tokens the UserPromptSubmit hook injected, against the
tokens of a ``recall`` tool call's answer for the same prompt (what the model pays, at
least once, when it asks memory itself; the call's own tool_use and the later calls
that carry the answer again come on top and are not counted).

Usage: python bench/hooks_bench.py [--tree DJANGO_SRC] [--rounds 20] [--memories 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cli_bench import ENV, fetch_django, run_ms  # type: ignore[import-not-found]
from memory_bench import populate  # type: ignore[import-not-found]

from codekeep.common.tokens import token_len
from codekeep.memory import MemoryService

SESSION = "bench-session-0001"
GOAL_MS = 300.0
TUNED_PROMPTS = (
    "why does the queryset cache its results after the first iteration?",
    "add a retry to the migration runner when the database lock times out",
    "how are the billing invoice tests run here?",
    "the session middleware drops the cookie on login, find out why",
    "write a haiku about autumn",
)
HELD_OUT_PROMPTS = (
    "make the admin changelist paginate by 50 rows",
    "which template loader handles the app directories?",
    "the deploy pipeline fails on the lint step, what do we usually do?",
    "rename the stream buffer helper and update its callers",
    "explain how the url resolver matches a path",
)
LONG_CALLS = 1_000
EDITED_FILE = "django/utils/text.py"
READ_FILE = "django/db/models/query.py"


def payload(event: str, root: Path, transcript: Path, **fields: Any) -> str:
    return json.dumps({"session_id": SESSION, "transcript_path": str(transcript),
                       "cwd": str(root), "permission_mode": "default",
                       "hook_event_name": event, **fields})


def transcript_lines(calls: int, ids: str = "") -> str:
    """``calls`` assistant entries; ``ids`` prefixes their message ids (a transcript
    the ledger has not seen yet)."""
    rng = random.Random(7)
    lines = []
    for index in range(calls):
        lines.append(json.dumps({
            "type": "assistant", "sessionId": SESSION, "requestId": f"req_{ids}{index}",
            "timestamp": "2026-12-01T10:00:00.000Z", "uuid": f"u{ids}{index}",
            "message": {"id": f"msg_{ids}{index}", "model": "claude-sonnet-4-5-20250929",
                        "role": "assistant", "content": [{"type": "text", "text": "ok"}],
                        "usage": {"input_tokens": rng.randint(5, 50),
                                  "output_tokens": rng.randint(50, 900),
                                  "cache_creation_input_tokens": rng.randint(0, 3000),
                                  "cache_read_input_tokens": rng.randint(0, 40000)}}}))
    return "\n".join(lines) + "\n"


def hook_ms(codekeep: str, event: str, stdin: str, root: Path) -> tuple[float, float, str]:
    """Wall ms, CPU ms and stdout of one hook process."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([codekeep, "hook", event, "--root", str(root)], input=stdin,
                          capture_output=True, text=True, env=ENV, check=True)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu, done.stdout


def _hooks_until_folded(codekeep: str, root: Path, transcript: Path) -> int:
    """How many Stop hooks (the first one included) it takes to book every call of
    ``transcript``: its first hook already ran in the rounds."""
    hooks = 1
    while _booked(root, "r0_") < LONG_CALLS and hooks < 100:
        hook_ms(codekeep, "Stop", payload("Stop", root, transcript, stop_hook_active=False),
                root)
        hooks += 1
    return hooks


def _booked(root: Path, ids: str) -> int:
    import sqlite3

    with sqlite3.connect(root / ".codekeep" / "ledger.db") as conn:
        row = conn.execute("SELECT count(*) FROM imported WHERE source_id LIKE ?",
                           (f"claude-code:msg_{ids}%",)).fetchone()
    return int(row[0])


def _p95(ordered: list[float]) -> float:
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def stats(samples: list[tuple[float, float]], floor_ms: float) -> dict[str, float]:
    walls = sorted(wall for wall, _ in samples)
    cpus = sorted(cpu for _, cpu in samples)
    p50 = statistics.median(walls)
    return {"p50_ms": round(p50, 1), "p95_ms": round(_p95(walls), 1),
            "cpu_p50_ms": round(statistics.median(cpus), 1),
            "cpu_p95_ms": round(_p95(cpus), 1),
            "p50_vs_bare_python": round(p50 / floor_ms, 2),
            "meets_goal": _p95(walls) <= GOAL_MS}


def injected_tokens(stdout: str) -> int:
    if not stdout.strip():
        return 0
    return token_len(json.loads(stdout)["hookSpecificOutput"]["additionalContext"])


def recall_answer_tokens(root: Path, prompt: str) -> int:
    """Tokens of what the MCP ``recall`` tool answers for ``prompt`` (its JSON)."""
    memory = MemoryService.open(root)
    try:
        found = memory.recall(prompt, limit=10)
        return token_len(json.dumps({"memories": [r.to_json() for r in found]}))
    finally:
        memory.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, help="Django's unpacked source (skip download)")
    parser.add_argument("--version", default="5.1.4")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--memories", type=int, default=10_000)
    args = parser.parse_args(argv)

    codekeep = shutil.which("codekeep", path=str(Path(sys.executable).parent)) or "codekeep"
    workdir = Path(tempfile.mkdtemp(prefix="codekeep-hooks-bench-"))
    try:
        source = args.tree or fetch_django(args.version, workdir / "download")
        root = workdir / "tree"
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".codekeep"))
        subprocess.run([codekeep, "index", "--root", str(root)], check=True,
                       stdout=subprocess.DEVNULL, env=ENV)
        memory = MemoryService.open(root)
        try:
            populate(memory, args.memories, random.Random(42), all_active=False)
            # The edited file has a memory linked to one of its symbols, so every Edit
            # hook re-reads it into the code map (the path an unlinked file skips).
            memory.remember("slugify() must keep its output stable: URLs depend on it",
                            symbols=[f"{EDITED_FILE}::slugify"])
        finally:
            memory.close()
        transcript = workdir / "transcript.jsonl"
        transcript.write_text(transcript_lines(40))
        edited = root / EDITED_FILE
        original = edited.read_text()

        def event_inputs() -> dict[str, tuple[str, str]]:
            read = {"file_path": str(root / READ_FILE)}
            edit = {"file_path": str(edited), "old_string": "a", "new_string": "b"}
            return {
                "SessionStart startup": ("SessionStart", payload("SessionStart", root, transcript,
                                                                 source="startup")),
                "SessionStart compact": ("SessionStart", payload("SessionStart", root, transcript,
                                                                 source="compact")),
                "PostToolUse Read": ("PostToolUse", payload(
                    "PostToolUse", root, transcript, tool_name="Read", tool_input=read,
                    tool_response={}, tool_use_id="toolu_r")),
                "PostToolUse Edit": ("PostToolUse", payload(
                    "PostToolUse", root, transcript, tool_name="Edit", tool_input=edit,
                    tool_response={}, tool_use_id="toolu_e")),
                "Stop": ("Stop", payload("Stop", root, transcript, stop_hook_active=False)),
                "SessionEnd": ("SessionEnd", payload("SessionEnd", root, transcript,
                                                     reason="other")),
            }

        floor = [run_ms([sys.executable, "-c", "pass"]) for _ in range(args.rounds)]
        floor_ms = statistics.median(wall for wall, _ in floor)
        load_before = os.getloadavg()[0]
        samples: dict[str, list[tuple[float, float]]] = {}
        prompt_sets = {"tuned": TUNED_PROMPTS, "held_out": HELD_OUT_PROMPTS}
        tokens: dict[str, dict[str, list[int]]] = {
            name: {"injected": [], "recall_answer": []} for name in prompt_sets}
        for round_index in range(args.rounds):
            for name, (event, stdin) in event_inputs().items():
                if name == "PostToolUse Edit":  # a real change each time: the file differs
                    edited.write_text(original + f"\n# bench edit {round_index}\n")
                wall, cpu, _ = hook_ms(codekeep, event, stdin, root)
                samples.setdefault(name, []).append((wall, cpu))
            long = workdir / f"long-{round_index}.jsonl"
            long.write_text(transcript_lines(LONG_CALLS, ids=f"r{round_index}_"))
            wall, cpu, _ = hook_ms(codekeep, "Stop", payload("Stop", root, long,
                                                             stop_hook_active=False), root)
            samples.setdefault(f"Stop first fold of {LONG_CALLS} calls", []).append((wall, cpu))
            for set_name, prompts in prompt_sets.items():
                for prompt in prompts:
                    wall, cpu, out = hook_ms(codekeep, "UserPromptSubmit", payload(
                        "UserPromptSubmit", root, transcript, prompt=prompt), root)
                    samples.setdefault(f"UserPromptSubmit {set_name}", []).append((wall, cpu))
                    if round_index == 0:
                        tokens[set_name]["injected"].append(injected_tokens(out))
                        tokens[set_name]["recall_answer"].append(
                            recall_answer_tokens(root, prompt))
        edited.write_text(original)
        hooks_to_fold = _hooks_until_folded(codekeep, root, workdir / "long-0.jsonl")
        _, _, start_out = hook_ms(codekeep, "SessionStart", event_inputs()[
            "SessionStart startup"][1], root)
        log = root / ".codekeep" / "hooks.log"
        result = {
            "tree": f"django-{args.version}", "memories": args.memories,
            "rounds": args.rounds, "load_1min": [round(load_before, 2),
                                                 round(os.getloadavg()[0], 2)],
            "bare_python_ms": round(floor_ms, 1), "goal_p95_ms": GOAL_MS,
            "events": {name: stats(found, floor_ms) for name, found in samples.items()},
            "tokens": {
                "session_start_injected": injected_tokens(start_out),
                **{set_name: {"prompts": len(prompt_sets[set_name]),
                              "injected_per_prompt": found["injected"],
                              "recall_answer_per_prompt": found["recall_answer"],
                              "injected_total": sum(found["injected"]),
                              "recall_answers_total": sum(found["recall_answer"])}
                   for set_name, found in tokens.items()},
            },
            "long_fold": {"calls": LONG_CALLS, "stop_hooks_to_book_all": hooks_to_fold},
            "hook_failures_logged": len(log.read_text().splitlines()) if log.exists() else 0,
        }
        print(json.dumps(result, indent=2))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
