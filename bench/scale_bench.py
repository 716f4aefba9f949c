"""Scale curve on the Linux kernel: cold index against ctags, index size, server memory,
readiness and per-query latency at four sizes of the same tree. Prints ONE JSON object.

The tree is Debian's ``linux-source-6.1`` (``apt-get install linux-source-6.1``; its
archive is unpacked once into the cache, ``--cache``, default ``~/.cache/codekeep-bench``,
never part of the repo) with the upstream top-level ``.gitignore``: the lines Debian's
packaging appends (``/*`` and ``!/debian/``) are taken out. ``--source DIR`` uses a tree
already unpacked instead. The sizes (copied once into the cache, each with the top-level
.gitignore; the whole tree is the unpacked tree itself):

* ``s1``: kernel, include, fs (~3.1M lines of C);
* ``s2``: s1 + net, drivers/net (~8.8M);
* ``s3``: the whole tree but drivers/ other than drivers/net (~14M);
* ``whole``: everything (~31.6M, 55k source files).

For each size, in the same run (so the load slows both alike): ``ctags -R`` (Debian's
Universal Ctags) wall time; a cold ``codekeep index`` (no ``.codekeep/``, the facts cache
an empty directory) wall time and its ratio to ctags; ``index.db``'s size; then a real
``codekeep serve`` on the built index: ``ready_s``, from its start to the first answer of
``codekeep/findSymbol`` that finds a symbol (an answer from the built index), and
``status_ready_s`` (``indexStatus`` says ready: its check of the disk finished); each query
asked ``--repeat`` times (p50 / p99 ms): ``find`` (codekeep/findSymbol), ``references``
(codekeep/findReferences of ``kfree`` — used 10k+ times in the whole tree — one page of
100, with the exact total), ``references_paged`` (``u32``, ~18k uses in the smallest tree:
page after page of 100), ``workspace_symbol`` and ``search`` (fuzzy: exact names,
abbreviations, prefixes), ``search_short`` (one- and two-letter queries), ``related``
(codekeep/findRelated in kernel/fork.c) and ``repo_map`` (1024 tokens); then the
server's RSS after the burst and its peak (VmHWM);
then ``codekeep index --export`` of the facts, and a new checkout's index from them
(``--import`` into an empty cache, no ``.codekeep/``): ``imported_cold_s`` and its ratio
to the cold index (goal <= 0.15).
Growth ratios divide the largest size's figures by the smallest's.

Usage: ``python bench/scale_bench.py [--sizes s1,s2,s3,whole] [--repeat 20]
[--source DIR] [--cache DIR] [--no-ctags]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

from server_bench import StdioClient  # type: ignore[import-not-found]
from server_rss_bench import status_mb  # type: ignore[import-not-found]

from codekeep.common.uris import path_to_uri

ARCHIVE = Path("/usr/src/linux-source-6.1.tar.xz")
DEBIAN_LINES = ("/*", "!/debian/")  # what Debian's packaging appends to .gitignore
SIZES: dict[str, tuple[str, ...] | None] = {
    "s1": ("kernel", "include", "fs"),
    "s2": ("kernel", "include", "fs", "net", "drivers/net"),
    "s3": ("-drivers", "drivers/net"),  # every top-level entry but drivers, and drivers/net
    "whole": None,
}
FIND = ("copy_process", "task_struct", "kfree", "spin_lock", "inode", "printk")
FUZZY = ("kmalloc", "spnlck", "task_str", "do_sys_op", "ext4_wr", "cpyproc", "mutex_lo")
# one- and two-letter queries (the start of a name or of a word), chosen before any
# figure of them was seen
SHORT = ("m", "d", "t", "io", "pc", "fw", "q", "wr")
REFERENCED = "kfree"
MANY = "u32"  # used ~18k times in the smallest tree: paged, 100 a page
RELATED = ("kernel/fork.c", "copy_process")
GOALS = {"imported_over_cold": 0.15, "ready_s": 2.0, "rss_after_mb": 400, "p99_ms": 50,
         "cold_over_ctags_whole": 2.5}


def unpacked(cache: Path, source: Path | None) -> Path:
    """The kernel tree with the upstream .gitignore (Debian's lines taken out)."""
    if source is None:
        source = cache / "linux-source-6.1"
        if not source.is_dir():
            if not ARCHIVE.is_file():
                raise SystemExit(f"{ARCHIVE} is missing: apt-get install linux-source-6.1")
            with tempfile.TemporaryDirectory(dir=cache) as scratch, \
                    tarfile.open(ARCHIVE) as tar:
                tar.extractall(scratch, filter="data")
                shutil.move(Path(scratch, "linux-source-6.1"), source)
    gitignore = source / ".gitignore"
    lines = gitignore.read_text().splitlines()
    kept = [line for line in lines if line not in DEBIAN_LINES]
    if kept != lines:
        gitignore.write_text("\n".join(kept) + "\n")
    return source


def sized(cache: Path, whole: Path, name: str) -> Path:
    """The tree of one size (a copy made once; the whole tree is ``whole`` itself)."""
    parts = SIZES[name]
    if parts is None:
        return whole
    target = cache / f"linux-{name}"
    if target.is_dir():
        return target
    if parts[0].startswith("-"):
        skipped = parts[0][1:]
        parts = tuple(entry.name for entry in whole.iterdir()
                      if entry.name not in (skipped, ".codekeep")) + parts[1:]
    with tempfile.TemporaryDirectory(dir=cache) as scratch:
        tree = Path(scratch, "tree")
        tree.mkdir()
        shutil.copyfile(whole / ".gitignore", tree / ".gitignore")
        for part in parts:
            origin, destination = whole / part, tree / part
            destination.parent.mkdir(parents=True, exist_ok=True)
            if origin.is_dir():
                shutil.copytree(origin, destination, symlinks=True)
            elif not destination.exists():
                shutil.copy2(origin, destination, follow_symlinks=False)
        shutil.move(tree, target)
    return target


def c_lines(tree: Path) -> tuple[int, int]:
    """(files, lines) of C source and headers, as the issue's table counts them."""
    files = lines = 0
    for folder, dirs, names in os.walk(tree):
        dirs[:] = [d for d in dirs if d != ".codekeep"]
        for name in names:
            if name.endswith((".c", ".h")):
                files += 1
                with open(os.path.join(folder, name), "rb") as file:
                    lines += file.read().count(b"\n")
    return files, lines


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {"p50_ms": round(statistics.median(ordered) * 1000, 2),
            "p99_ms": round(p99 * 1000, 2)}


def serve(tree: Path, repeat: int, env: dict[str, str]) -> dict[str, Any]:
    """A real server on the built index: readiness, each query's latency, its RSS."""
    started = time.perf_counter()
    client = StdioClient([sys.executable, "-m", "codekeep", "serve", "--log-level", "ERROR"],
                         env=env)
    uri = path_to_uri(tree)
    client.request("initialize", {
        "processId": os.getpid(), "rootUri": uri,
        "workspaceFolders": [{"uri": uri, "name": tree.name}],
        "capabilities": {"general": {"positionEncodings": ["utf-8", "utf-16"]}},
    })
    client.notify("initialized", {})
    while not client.request("codekeep/findSymbol", {"name": FIND[0], "limit": 1})["symbols"]:
        if time.perf_counter() - started > 600:
            raise SystemExit(f"the server on {tree} never found {FIND[0]}")
        time.sleep(0.02)
    ready_s = time.perf_counter() - started
    while not client.request("codekeep/indexStatus", {})["ready"]:
        time.sleep(0.1)
    status_ready_s = time.perf_counter() - started
    rss_ready = status_mb(client.process.pid)["VmRSS"]
    related_uri = path_to_uri(tree / RELATED[0])
    [target] = client.request("codekeep/findSymbol", {"name": RELATED[1],
                                                      "limit": 1})["symbols"]
    line = target["selectionRange"]["start"]["line"]
    queries: dict[str, tuple[str, Any]] = {}
    samples: dict[str, list[float]] = {}
    answers: dict[str, Any] = {}
    for number in range(repeat):
        name, fuzzy = FIND[number % len(FIND)], FUZZY[number % len(FUZZY)]
        queries = {
            "find": ("codekeep/findSymbol", {"name": name}),
            "references": ("codekeep/findReferences", {"name": REFERENCED, "limit": 100}),
            "workspace_symbol": ("workspace/symbol", {"query": fuzzy}),
            "search": ("codekeep/searchSymbols", {"query": fuzzy}),
            "search_short": ("codekeep/searchSymbols",
                             {"query": SHORT[number % len(SHORT)]}),
            "references_paged": ("codekeep/findReferences",
                                 {"name": MANY, "limit": 100, "offset": 100 * number}),
            "related": ("codekeep/findRelated", {"uri": related_uri,
                                                 "position": {"line": line, "character": 0}}),
            "repo_map": ("codekeep/repoMap", {"tokens": 1024}),
        }
        for query, (method, params) in queries.items():
            began = time.perf_counter()
            answers[query] = client.request(method, params)
            samples.setdefault(query, []).append(time.perf_counter() - began)
    memory = status_mb(client.process.pid)
    client.close()
    references = answers["references"]
    return {
        "ready_s": round(ready_s, 2), "status_ready_s": round(status_ready_s, 2),
        "rss_ready_mb": rss_ready, "rss_after_mb": memory["VmRSS"],
        "rss_peak_mb": memory["VmHWM"],
        "queries": {query: percentiles(values) for query, values in samples.items()},
        "references_total": references["total"],
        "references_page": len(references["references"]),
        "references_paged_total": answers["references_paged"]["total"],
    }


def bench_size(tree: Path, repeat: int, ctags: bool, scratch: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODEKEEP_")}
    files, lines = c_lines(tree)
    result: dict[str, Any] = {"c_files": files, "c_lines": lines}
    if ctags:
        tags = scratch / "tags"
        result["ctags_s"] = round(timed(["ctags", "-R", "-f", str(tags), "."], tree, env), 2)
        tags.unlink(missing_ok=True)
    shutil.rmtree(tree / ".codekeep", ignore_errors=True)
    facts = scratch / f"facts-{tree.name}"
    run_env = {**env, "CODEKEEP_PARSE_CACHE": str(facts)}
    codekeep = [sys.executable, "-m", "codekeep"]
    result["cold_s"] = round(timed([*codekeep, "index", "--root", str(tree)], tree, run_env), 2)
    if ctags:
        result["cold_over_ctags"] = round(result["cold_s"] / result["ctags_s"], 2)
    result["index_db_mb"] = round((tree / ".codekeep" / "index.db").stat().st_size / 2**20, 1)
    result.update(serve(tree, repeat, run_env))
    # a team indexes once: export the facts, then a new checkout (no index, an empty
    # cache) imports them and indexes
    artifact = scratch / f"{tree.name}.facts"
    result["export_s"] = round(timed([*codekeep, "index", "--root", str(tree), "--export",
                                      str(artifact)], tree, run_env), 2)
    result["export_mb"] = round(artifact.stat().st_size / 2**20, 1)
    shutil.rmtree(tree / ".codekeep", ignore_errors=True)
    shutil.rmtree(facts, ignore_errors=True)
    result["imported_cold_s"] = round(timed([*codekeep, "index", "--root", str(tree),
                                             "--import", str(artifact)], tree, run_env), 2)
    result["imported_over_cold"] = round(result["imported_cold_s"] / result["cold_s"], 3)
    artifact.unlink()
    shutil.rmtree(facts, ignore_errors=True)
    return result


def growth(first: dict[str, Any], last: dict[str, Any]) -> dict[str, float]:
    """How much each figure grew from the smallest size to the largest."""
    ratios = {key: round(last[key] / first[key], 2) for key in
              ("c_lines", "cold_s", "index_db_mb", "ready_s", "rss_after_mb") if first.get(key)}
    for query, figures in last["queries"].items():
        ratios[f"{query}_p99"] = round(figures["p99_ms"] / first["queries"][query]["p99_ms"], 2)
    return ratios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(SIZES))
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--source", type=Path, default=None)
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "codekeep-bench")
    parser.add_argument("--no-ctags", action="store_true")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    if shutil.which("ctags") is None and not args.no_ctags:
        raise SystemExit("Universal Ctags not found: apt-get install universal-ctags")
    whole = unpacked(args.cache, args.source)
    result: dict[str, Any] = {"benchmark": "scale", "cpus": os.cpu_count(),
                              "load_average_start": round(os.getloadavg()[0], 2)}
    measured: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="codekeep-scale-") as scratch:
        for name in args.sizes.split(","):
            tree = sized(args.cache, whole, name)
            measured[name] = bench_size(tree, args.repeat, not args.no_ctags, Path(scratch))
            print(json.dumps({name: measured[name]}), file=sys.stderr, flush=True)
    result.update(measured)
    names = list(measured)
    if len(names) > 1:
        result["growth"] = growth(measured[names[0]], measured[names[-1]])
    result["goals"] = GOALS
    print(json.dumps({**result, "load_average_end": round(os.getloadavg()[0], 2)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
