"""CLI latency benchmark: how long ``codekeep find|refs|search`` take as a user types them.

Prints ONE JSON object. The tree is Django's code (the package and its test suite,
about 470k lines of Python), the sdist installed from PyPI by this script
(``pip download --no-deps --no-binary :all:``) and indexed once. Then, in rounds
(each round runs every command once, so a busy machine slows all of them alike), wall
time of a fresh process for:

* the interpreter's floor, ``python -c "import sqlite3, json"`` — the same interpreter,
  measured in the same rounds: every figure is also given as a ratio to it;
* ``codekeep --version`` and ``codekeep --help``;
* ``find``, ``refs`` and ``search`` with ``--no-refresh`` (the index as it is), and as
  typed (which first checks the tree for changes: a warm start stats every file and
  every folder, and lists again only the folders whose stat changed — see
  ``codekeep/analysis/listings.py``; the tree is left alone for the settle time of a
  folder before the rounds start, as a tree between two edits is).

Goals: ``--no-refresh`` within 4x the floor, as typed within 6x (wall
time). The CPU time of each process (user + system) is given too, with its ratio to the
floor's: on a busy machine the wall times wait for a core, the CPU times much less.
The load average at the end is in ``load``.

The commands run with Python's bytecode cache on (``PYTHONDONTWRITEBYTECODE`` is
dropped from their environment), as on a user's machine: without it every run compiles
CodeKeep's modules from source again, which measures the compiler, not the CLI.

Usage: python bench/cli_bench.py [--version 5.1.4] [--tree DIR] [--rounds 15]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

NO_REFRESH_GOAL = 4.0
AS_TYPED_GOAL = 6.0
QUERIES = {
    "find": ["find", "Model"],
    "refs": ["refs", "get_queryset", "--limit", "20"],
    "search": ["search", "QuerySet", "--limit", "20"],
}


def fetch_django(version: str, into: Path, part: str = "code") -> Path:
    """Download Django's sdist from PyPI (the ordinary client) and unpack one part of it:
    ``code`` (the package and its test suite) or ``docs`` (the reST docs). Returns the
    unpacked source tree (for ``docs``, the docs folder inside it)."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary",
         ":all:", f"django=={version}", "-d", str(into)],
        check=True,
    )
    [archive] = list(into.glob("*.tar.gz"))
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if ("/docs/" in m.name) == (part == "docs")]
        tar.extractall(into, members=members, filter="data")
    if part == "docs":
        [docs] = list(into.glob("*/docs"))
        return docs
    [tree] = [path for path in into.iterdir() if path.is_dir()]
    return tree


def cached_django(cache: Path, version: str) -> Path:
    """Django's code unpacked once into ``cache`` (``django-<version>``) and reused."""
    target = cache / f"django-{version}"
    if not target.exists():
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache) as scratch:
            shutil.move(fetch_django(version, Path(scratch)), target)
    return target


def python_lines(tree: Path) -> tuple[int, int]:
    files = list(tree.rglob("*.py"))
    return len(files), sum(path.read_bytes().count(b"\n") for path in files)


ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def run_ms(command: list[str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one fresh process, its output
    discarded; it must succeed. On a busy machine the wall time waits for a core; the
    CPU time says what the command itself costs."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=ENV)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def summary(samples: list[tuple[float, float]],
            floor: tuple[float, float] | None) -> dict[str, float]:
    walls = sorted(wall for wall, _ in samples)
    median = statistics.median(walls)
    cpu = statistics.median(cpu for _, cpu in samples)
    result = {"median_ms": round(median, 1),
              "p90_ms": round(walls[min(len(walls) - 1, int(len(walls) * 0.9))], 1),
              "cpu_ms": round(cpu, 1)}
    if floor is not None:
        result["ratio"] = round(median / floor[0], 2)
        result["cpu_ratio"] = round(cpu / floor[1], 2)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default="5.1.4", help="Django version to download")
    parser.add_argument("--tree", type=Path, help="an unpacked source tree (skip download)")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)

    codekeep = shutil.which("codekeep", path=str(Path(sys.executable).parent)) or "codekeep"
    workdir = Path(tempfile.mkdtemp(prefix="codekeep-cli-bench-"))
    try:
        source = args.tree or fetch_django(args.version, workdir / "download")
        tree = workdir / "tree"
        # its own .codekeep/, never the caller's
        shutil.copytree(source, tree, ignore=shutil.ignore_patterns(".codekeep"))
        files, lines = python_lines(tree)
        started = time.perf_counter()
        subprocess.run([codekeep, "index", "--root", str(tree)], check=True,
                       stdout=subprocess.DEVNULL, env=ENV)
        cold_index = time.perf_counter() - started

        commands: dict[str, list[str]] = {
            "floor": [sys.executable, "-c", "import sqlite3, json"],
            "--version": [codekeep, "--version"],
            "--help": [codekeep, "--help"],
        }
        root = ["--root", str(tree)]
        for name, query in QUERIES.items():
            commands[f"{name} --no-refresh"] = [codekeep, *query, *root, "--no-refresh"]
            commands[name] = [codekeep, *query, *root]
        for command in commands.values():  # warm the page cache and the index
            run_ms(command)
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, command in commands.items():
                samples[name].append(run_ms(command))

        floor = (statistics.median(wall for wall, _ in samples["floor"]),
                 statistics.median(cpu for _, cpu in samples["floor"]))
        results = {name: summary(values, None if name == "floor" else floor)
                   for name, values in samples.items()}
        no_refresh = max(results[f"{q} --no-refresh"]["ratio"] for q in QUERIES)
        as_typed = max(results[q]["ratio"] for q in QUERIES)
        print(json.dumps({
            "tree": {"project": f"django {args.version}", "python_files": files,
                     "lines": lines, "cold_index_s": round(cold_index, 1)},
            "rounds": args.rounds,
            "commands": results,
            "load": [round(value, 2) for value in os.getloadavg()],
            "worst_ratio": {"no_refresh": no_refresh, "as_typed": as_typed},
            "worst_cpu_ratio": {
                "no_refresh": max(results[f"{q} --no-refresh"]["cpu_ratio"] for q in QUERIES),
                "as_typed": max(results[q]["cpu_ratio"] for q in QUERIES)},
            "goals": {"no_refresh": NO_REFRESH_GOAL, "as_typed": AS_TYPED_GOAL,
                      "met": no_refresh <= NO_REFRESH_GOAL and as_typed <= AS_TYPED_GOAL},
        }, indent=2))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
