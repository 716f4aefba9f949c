"""Tools benchmark: what the safety pipeline costs, and search_code against grep.

Measured in one run on this repository (copied to a temporary workspace):

* pipeline overhead: ``read_file`` through the full pipeline (allow-list, validation,
  path guard, cache disabled by distinct ranges, observation, exploration, trace, dedup,
  SQLite audit) vs calling the handler directly — ratio and absolute medians;
* safety checks alone: path guard and command policy, median microseconds per check;
* compression: characters the model sees for a broad search vs the raw matched lines;
* ``search_code`` vs ``grep -rn`` (the reference) over the same tree.

Prints ONE JSON object. Usage: python bench/tools_bench.py [--rounds 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from codekeep.tools import ToolKit
from codekeep.tools.toolkit import default_registry

REPO = Path(__file__).resolve().parent.parent
IGNORE = shutil.ignore_patterns(
    ".git", ".codekeep", "node_modules", "*.egg-info", "__pycache__", ".*cache"
)


def _median_us(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1e6, 1)


async def _time_async(fn: Callable[[int], Awaitable[Any]], rounds: int) -> list[float]:
    samples = []
    for i in range(rounds):
        started = time.perf_counter()
        await fn(i)
        samples.append(time.perf_counter() - started)
    return samples


def _time_sync(fn: Callable[[], Any], rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return samples


async def main(rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        shutil.copytree(REPO, root, ignore=IGNORE, symlinks=True)
        kit = ToolKit.open(root)
        ctx = kit.context("bench", "edit")
        target = "codekeep/tools/pipeline.py"
        read_file = default_registry().get("read_file")
        assert read_file is not None

        async def via_pipeline(i: int) -> None:
            # distinct ranges so the cache never answers: the full chain runs every time
            await kit.pipeline.execute(
                "read_file", {"path": target, "start_line": 1 + i % 50, "end_line": 60 + i}, ctx
            )

        async def direct(i: int) -> None:
            await read_file.handler(ctx, path=target, start_line=1 + i % 50, end_line=60 + i)

        await direct(0)
        direct_s = await _time_async(direct, rounds)
        pipeline_s = await _time_async(via_pipeline, rounds)

        guard = ctx.guard
        policy = ctx.command_policy()
        path_s = _time_sync(
            lambda: guard.check("codekeep/tools/../tools/pipeline.py", "read"), rounds
        )
        command_s = _time_sync(
            lambda: policy.check("VAR=1 timeout 5 grep -rn 'sudo; x' codekeep/tools"), rounds
        )

        started = time.perf_counter()
        search = await kit.pipeline.execute("search_code", {"pattern": r"def \w+"}, ctx)
        search_s = time.perf_counter() - started
        started = time.perf_counter()
        grep = subprocess.run(
            ["grep", "-rnE", r"def [[:alnum:]_]+", "--include=*", "."],
            cwd=root,
            capture_output=True,
            check=False,
        )
        grep_s = time.perf_counter() - started
        raw_chars = sum(
            len(m["text"]) + len(f["path"]) + 8 for f in search.data["files"] for m in f["matches"]
        )
        kit.close()
    return {
        "benchmark": "tools",
        "rounds": rounds,
        "pipeline_read_file_median_us": _median_us(pipeline_s),
        "direct_read_file_median_us": _median_us(direct_s),
        "pipeline_overhead_ratio": round(
            statistics.median(pipeline_s) / statistics.median(direct_s), 2
        ),
        "pipeline_overhead_median_us": round(_median_us(pipeline_s) - _median_us(direct_s), 1),
        "path_guard_median_us": _median_us(path_s),
        "command_policy_median_us": _median_us(command_s),
        "search_code_s": round(search_s, 3),
        "grep_s": round(grep_s, 3),
        "search_vs_grep_ratio": round(search_s / grep_s, 2) if grep_s else None,
        "search_matches": search.data["total_matches"],
        "grep_lines": len(grep.stdout.splitlines()),
        "search_context_chars": len(search.content),
        "search_raw_match_chars": raw_chars,
        "compression_ratio": round(len(search.content) / raw_chars, 3) if raw_chars else None,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    print(json.dumps(asyncio.run(main(parser.parse_args().rounds))))
