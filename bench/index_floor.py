"""The physical floor of a cold index with tree-sitter: prints ONE JSON object.

What a cold index cannot go below while it parses with tree-sitter and reads facts with
its query engine, against Universal Ctags on the same files in the same run. On the
trees of ``bench/index_bench.py`` (Django 5.1.4, the mixed-language tree), per language
and for the whole tree:

* ``ctags_s`` / ``ctags_cpu_s``: ``ctags -R`` of the tree (as ``bench/index_bench.py``
  runs it), and per language over that language's files only (``--languages``);
* ``parse_cpu_s``: tree-sitter's parse of every file, one process (no extraction);
* ``query_cpu_s``: the tags query over those trees (matches only, nothing read from them)
  and ``compile_s``: building the language's parser and compiling its query once;
* for the whole tree, ``parse_2cores_s`` and ``parse_query_2cores_s``: the wall (and
  ``..._cpu_s`` the CPU) time of the same work in two worker processes forked for it
  (files dealt out by size, largest first, each worker compiling the queries it needs,
  as index workers do), and their ratios to
  ``ctags -R`` of the whole tree: the least a tree-sitter cold index can be, before a line
  of extraction, row encoding or SQLite runs.

Medians over ``--rounds`` (ctags and tree-sitter alternate, so a busy machine slows both
alike), with the load average at the start and end.

Usage: ``python bench/index_floor.py [--rounds 3] [--trees django,mixed] [--cache DIR]``.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from index_bench import (  # type: ignore[import-not-found]
    django_tree,
    mixed_tree,
    tree_arguments,
)

from codekeep.analysis.registry import default_registry
from codekeep.settings.codemap import DEFAULT_EXCLUDES

CTAGS_LANGUAGES = {"python": "Python", "typescript": "TypeScript", "go": "Go",
                   "rust": "Rust", "c": "C", "javascript": "JavaScript"}


def files_by_language(tree: Path) -> dict[str, list[Path]]:
    """The files a cold index parses, by language (ctags-known languages only)."""
    registry = default_registry()
    found: dict[str, list[Path]] = {}
    excluded = set(DEFAULT_EXCLUDES) | {".codekeep"}
    for path in sorted(tree.rglob("*")):
        if excluded & set(path.relative_to(tree).parts) or not path.is_file():
            continue
        spec = registry.for_path(str(path.relative_to(tree)))
        if spec is not None and spec.name in CTAGS_LANGUAGES:
            found.setdefault(spec.name, []).append(path)
    return found


def _ctags(tree: Path, languages: str | None) -> tuple[float, float]:
    """``ctags -R`` of the tree (only ``languages`` when given): wall and CPU seconds."""
    ctags = shutil.which("ctags")
    if ctags is None:
        raise SystemExit("Universal Ctags not found: install the Debian package "
                         "universal-ctags")
    with tempfile.TemporaryDirectory() as scratch:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        only = [f"--languages={languages}"] if languages else []
        subprocess.run([ctags, "-R", *only, "-f", os.path.join(scratch, "tags"), "."],
                       cwd=tree, check=True, capture_output=True)
        wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def one_language(language: str, paths: list[Path]) -> dict[str, float]:
    """Compile, parse and query CPU of one language's files, in this process."""
    import tree_sitter as ts

    spec = default_registry().get(language)
    assert spec is not None
    started = _cpu()
    parser, query = spec.new_parser(), spec.compile_query()
    compiled = _cpu()
    data = [path.read_bytes() for path in paths]
    parse_start = _cpu()
    trees = [parser.parse(source) for source in data]
    parsed = _cpu()
    cursor = ts.QueryCursor(query)
    for tree in trees:
        for _match in cursor.matches(tree.root_node):
            pass
    return {"compile_s": compiled - started, "parse_cpu_s": parsed - parse_start,
            "query_cpu_s": _cpu() - parsed}


def _worker(jobs: list[tuple[str, str]], query: bool) -> None:
    import tree_sitter as ts

    registry = default_registry()
    parsers: dict[str, tuple[ts.Parser, ts.QueryCursor | None]] = {}
    for language, path in jobs:
        if language not in parsers:
            spec = registry.get(language)
            assert spec is not None  # compiled here, as each index worker compiles it
            parsers[language] = (spec.new_parser(), ts.QueryCursor(
                spec.compile_query()) if query else None)
        parser, cursor = parsers[language]
        tree = parser.parse(Path(path).read_bytes())
        if cursor is not None:
            for _match in cursor.matches(tree.root_node):
                pass


def two_cores(files: dict[str, list[Path]], query: bool) -> tuple[float, float]:
    """Wall and CPU time of parsing (and querying) every file in two forked processes
    (forked after tree-sitter and the grammar package are imported, as index workers)."""
    import tree_sitter_language_pack  # noqa: F401

    jobs = sorted(((path.stat().st_size, language, str(path))
                   for language, paths in files.items() for path in paths), reverse=True)
    shares: list[list[tuple[str, str]]] = [[], []]
    weights = [0, 0]
    for size, language, path in jobs:  # largest first, to the lighter share
        lighter = weights.index(min(weights))
        shares[lighter].append((language, path))
        weights[lighter] += size
    context = multiprocessing.get_context("fork")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    workers = [context.Process(target=_worker, args=(share, query)) for share in shares]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def bench_tree(tree: Path, rounds: int) -> dict[str, object]:
    files = files_by_language(tree)
    samples: dict[str, list[float]] = {}

    def add(name: str, value: float) -> None:
        samples.setdefault(name, []).append(value)

    for _round in range(rounds):
        wall, cpu = _ctags(tree, None)  # as bench/index_bench.py measures it
        add("ctags_s", wall)
        add("ctags_cpu_s", cpu)
        for name, query in (("parse", False), ("parse_query", True)):
            wall, cpu = two_cores(files, query)
            add(f"{name}_2cores_s", wall)
            add(f"{name}_2cores_cpu_s", cpu)
        for language, paths in files.items():
            wall, cpu = _ctags(tree, CTAGS_LANGUAGES[language])
            add(f"{language}.ctags_s", wall)
            add(f"{language}.ctags_cpu_s", cpu)
            for name, value in one_language(language, paths).items():
                add(f"{language}.{name}", value)
    medians = {name: statistics.median(values) for name, values in samples.items()}
    per_language = {
        language: {
            "files": len(paths), "bytes": sum(path.stat().st_size for path in paths),
            **{name.split(".", 1)[1]: round(value, 3) for name, value in medians.items()
               if name.startswith(f"{language}.")},
            "parse_over_ctags_cpu": round(medians[f"{language}.parse_cpu_s"]
                                          / medians[f"{language}.ctags_cpu_s"], 2),
            "parse_query_over_ctags_cpu": round(
                (medians[f"{language}.parse_cpu_s"] + medians[f"{language}.query_cpu_s"])
                / medians[f"{language}.ctags_cpu_s"], 2),
        }
        for language, paths in sorted(files.items())
    }
    ctags = medians["ctags_s"]
    return {
        "ctags_s": round(ctags, 3), "ctags_cpu_s": round(medians["ctags_cpu_s"], 3),
        "parse_2cores_s": round(medians["parse_2cores_s"], 3),
        "parse_2cores_cpu_s": round(medians["parse_2cores_cpu_s"], 3),
        "parse_query_2cores_s": round(medians["parse_query_2cores_s"], 3),
        "parse_query_2cores_cpu_s": round(medians["parse_query_2cores_cpu_s"], 3),
        "parse_2cores_over_ctags_wall": round(medians["parse_2cores_s"] / ctags, 2),
        "parse_query_2cores_over_ctags_wall": round(medians["parse_query_2cores_s"] / ctags,
                                                    2),
        # the same from CPU times (ctags runs on one core: its CPU is its wall on an idle
        # machine): the two workers' CPU split evenly over two cores, over ctags' CPU.
        # What a busy machine's wall times cannot show.
        "parse_2cores_cpu_half_over_ctags_cpu": round(
            medians["parse_2cores_cpu_s"] / 2 / medians["ctags_cpu_s"], 2),
        "parse_query_2cores_cpu_half_over_ctags_cpu": round(
            medians["parse_query_2cores_cpu_s"] / 2 / medians["ctags_cpu_s"], 2),
        "languages": per_language,
        "samples": {name: [round(v, 3) for v in values] for name, values in samples.items()
                    if "." not in name},
    }


def main(argv: list[str] | None = None) -> int:
    args = tree_arguments(__doc__.splitlines()[0], argv)
    builders = {"django": django_tree, "mixed": mixed_tree}
    result: dict[str, object] = {"benchmark": "index_floor", "cpus": os.cpu_count(),
                                 "load_average_start": round(os.getloadavg()[0], 2)}
    for name in args.trees.split(","):
        result[name] = bench_tree(builders[name](args.cache), args.rounds)
    print(json.dumps({**result, "load_average_end": round(os.getloadavg()[0], 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
