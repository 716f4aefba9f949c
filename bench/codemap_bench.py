"""Code map benchmark: prints ONE JSON object.

Corpus: the Python source of packages installed next to CodeKeep (mypy alone is over
100k lines; pygls, lsprotocol, jsonschema and httpx are CodeKeep's own dependencies),
copied into a temporary directory. Everything is measured in the same run against a
reference measured in that run (machines are noisy):

- cold index vs Universal Ctags ``ctags -R`` on the same tree (target ratio <= 4);
- warm restart (nothing changed) vs cold (target <= 0.1);
- a keystroke in a ~2,000-line file -> index updated, p50/p99 (targets 2 ms / 10 ms),
  vs a full re-parse of that file;
- find_symbol / search_symbols / find_references p99 with >= 100k symbols indexed
  (the corpus copied several times side by side) (targets 1 / 30 / 10 ms);
- index.db size per 50k lines (target <= 1 MB).

Usage: ``python bench/codemap_bench.py [--copies N] [--queries N]``.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from codekeep.analysis import CodeMap, IndexSettings
from codekeep.analysis.registry import LanguageSpec

PACKAGES = ("mypy", "pygls", "lsprotocol", "jsonschema", "httpx")
MB = 1024 * 1024


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def build_corpus(target: Path) -> dict[str, int]:
    """Copy the ``.py`` files of the packages; returns {package: lines}."""
    lines: dict[str, int] = {}
    for name in PACKAGES:
        source = _package_dir(name)
        if source is None:
            continue
        count = 0
        for path in source.rglob("*.py"):
            if "__pycache__" in path.parts:
                continue
            destination = target / name / path.relative_to(source)
            destination.parent.mkdir(parents=True, exist_ok=True)
            data = path.read_bytes()
            destination.write_bytes(data)
            count += data.count(b"\n")
        lines[name] = count
    return lines


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def fresh_index(root: Path) -> tuple[float, CodeMap]:
    shutil.rmtree(root / ".codekeep", ignore_errors=True)
    codemap = CodeMap.open(root, IndexSettings())
    return timed(codemap.index), codemap


def ctags_seconds(root: Path) -> float | None:
    ctags = shutil.which("ctags")
    if ctags is None:
        return None
    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        subprocess.run([ctags, "-R", "-f", os.path.join(scratch, "tags"), "."], cwd=root,
                       check=True, capture_output=True)
        return time.perf_counter() - started


def bench_index(root: Path, repeat: int) -> dict[str, object]:
    colds, ctags, warms = [], [], []
    for _ in range(repeat):
        tags = ctags_seconds(root)
        if tags is not None:
            ctags.append(tags)
        cold, codemap = fresh_index(root)
        colds.append(cold)
        codemap.close()
        warm_map = CodeMap.open(root)
        warms.append(timed(warm_map.index))
        warm_map.close()
    cold = statistics.median(colds)
    warm = statistics.median(warms)
    result: dict[str, object] = {
        "cold_index_s": round(cold, 3),
        "warm_index_s": round(warm, 4),
        "warm_over_cold": round(warm / cold, 4),
        "warm_over_cold_target": 0.1,
    }
    if ctags:
        tags = statistics.median(ctags)
        result.update({"ctags_s": round(tags, 3), "cold_over_ctags": round(cold / tags, 2),
                       "cold_over_ctags_target": 4})
    else:
        result["ctags_s"] = None
        result["ctags_missing"] = ("Universal Ctags not found on PATH: install the Debian "
                                   "package universal-ctags to get the ratio")
    return result


def _two_thousand_line_file(root: Path) -> str:
    candidates = [(abs(p.read_bytes().count(b"\n") - 2000), p) for p in root.rglob("*.py")]
    return min(candidates)[1].relative_to(root).as_posix()


class ReparseFloor:
    """tree-sitter alone re-parsing a one-keystroke edit of ``text`` incrementally.

    Typing that opens a string (a quote inside a docstring's quotes) makes the rest of
    the file parse differently; no extraction strategy can be cheaper than this re-parse.
    """

    def __init__(self, spec: LanguageSpec | None, text: str):
        assert spec is not None
        self.parser = spec.new_parser()
        self.data = text.encode("utf-8")
        self.tree = self.parser.parse(self.data)
        self.line_starts = [0] + [i + 1 for i, b in enumerate(self.data) if b == 10]

    def reparse(self, at: tuple[int, int], inserted: str) -> float:
        line, col = at
        offset = self.line_starts[line] + col
        added = inserted.encode("utf-8")
        tree = self.tree.copy()
        newlines = added.count(b"\n")
        end = ((line + newlines, len(added) - added.rfind(b"\n") - 1) if newlines
               else (line, col + len(added)))
        tree.edit(start_byte=offset, old_end_byte=offset, new_end_byte=offset + len(added),
                  start_point=at, old_end_point=at, new_end_point=end)
        data = self.data[:offset] + added + self.data[offset:]
        return timed(lambda: self.parser.parse(data, tree))


def bench_edits(root: Path, count: int) -> dict[str, object]:
    codemap = CodeMap.open(root)
    codemap.index()
    rel = _two_thousand_line_file(root)
    text = (root / rel).read_text(encoding="utf-8")
    lines = text.split("\n")
    codemap.open_document(rel, text)
    # Lines of function bodies (where a developer types most), from Python's own parser.
    body_lines = sorted({
        line - 1
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for line in range(node.body[0].lineno, (node.end_lineno or 0) + 1)
        if lines[line - 1].strip()
    })
    rng = random.Random(7)
    floor = ReparseFloor(codemap.registry.for_path(rel), text)

    def keystrokes(candidates: list[int], enter: bool = False,
                   reparse: list[float] | None = None) -> list[float]:
        """Type "x" somewhere in a line, or press Enter at its end (editor auto-indents)."""
        times = []
        for _ in range(count):
            line = rng.choice(candidates)
            indent = len(lines[line]) - len(lines[line].lstrip())
            if enter:
                col = len(lines[line].encode())
                start, end, text = (line, col), (line + 1, indent), "\n" + " " * indent
            else:
                col = indent + len(lines[line].strip()[:rng.randint(0, len(lines[line].strip()))]
                                   .encode())
                start, end, text = (line, col), (line, col + 1), "x"
            if reparse is not None:
                reparse.append(floor.reparse(start, text))
            started = time.perf_counter()
            codemap.apply_edit(rel, start, start, text)
            times.append(time.perf_counter() - started)
            codemap.apply_edit(rel, start, end if enter else (line, col + 1), "")
        return times

    typing_reparse: list[float] = []
    typing = keystrokes(body_lines, reparse=typing_reparse)
    anywhere = keystrokes(list(range(len(lines))))
    newline = keystrokes(body_lines, enter=True)
    full = []
    for i in range(max(10, count // 10)):
        variant = text + f"\n# {i}\n"
        full.append(timed(lambda v=variant: codemap.open_document(rel, v)))  # type: ignore[misc]
    codemap.close()
    p50 = percentile(typing, 0.5)
    return {
        "edit_file": rel,
        "edit_file_lines": len(lines),
        "edit_typing_in_body_p50_ms": ms(p50),
        "edit_typing_in_body_p99_ms": ms(percentile(typing, 0.99)),
        "edit_typing_targets_ms": {"p50": 2, "p99": 10},
        # tree-sitter's own incremental re-parse of the same keystrokes: the floor
        "edit_typing_reparse_only_p50_ms": ms(percentile(typing_reparse, 0.5)),
        "edit_typing_reparse_only_p99_ms": ms(percentile(typing_reparse, 0.99)),
        "edit_any_line_p50_ms": ms(percentile(anywhere, 0.5)),
        "edit_any_line_p99_ms": ms(percentile(anywhere, 0.99)),
        "edit_enter_in_body_p50_ms": ms(percentile(newline, 0.5)),
        "edit_enter_in_body_p99_ms": ms(percentile(newline, 0.99)),
        "full_reparse_p50_ms": ms(percentile(full, 0.5)),
        "edit_over_full_reparse": round(p50 / percentile(full, 0.5), 3),
    }


def bench_queries(base: Path, work: Path, copies: int, count: int) -> dict[str, object]:
    """Query latency on the corpus copied ``copies`` times (>= 100k symbols)."""
    for i in range(copies):
        shutil.copytree(base, work / f"copy{i}", ignore=shutil.ignore_patterns(".codekeep"))
    build_seconds, codemap = fresh_index(work)
    status = codemap.status()
    symbols = codemap.symbols_in()
    rng = random.Random(11)
    sample = rng.sample(symbols, min(count, len(symbols)))

    # The first reference query that crosses files loads the import graph once (lazily,
    # so warm restarts stay cheap); it is reported apart from the steady-state latency.
    first_refs = timed(lambda: codemap.find_references(name="__init__", limit=100))
    names = sorted({s.name for s in symbols})
    distinct = rng.sample(names, min(count, len(names)))
    find = [timed(lambda n=n: codemap.find_symbol(n, limit=50))  # type: ignore[misc]
            for n in distinct]
    find_weighted = [timed(lambda s=s: codemap.find_symbol(s.name, limit=50))  # type: ignore[misc]
                     for s in sample]
    refs = [timed(lambda s=s: codemap.find_references(symbol_id=s.id, limit=100))  # type: ignore[misc]
            for s in sample]

    def abbreviation(name: str) -> str:
        parts = [p for p in name.replace("_", " ").split() if p]
        return "".join(p[:2] for p in parts)[:8] or name[:3]

    queries = [abbreviation(s.name) for s in sample[: max(50, count // 4)]]
    codemap.search_symbols("warmup")
    search = [timed(lambda q=q: codemap.search_symbols(q, 50)) for q in queries]  # type: ignore[misc]
    codemap.close()
    return {
        "query_symbols": status.symbols,
        "query_references": status.references,
        "query_index_build_s": round(build_seconds, 2),
        "query_note": ("limit=50 for find_symbol/search, 100 for references; find_symbol over "
                       "distinct names, and over symbols (frequent names like __init__ weigh "
                       "more)"),
        "find_symbol_p50_ms": ms(percentile(find, 0.5)),
        "find_symbol_p99_ms": ms(percentile(find, 0.99)),
        "find_symbol_by_symbol_p99_ms": ms(percentile(find_weighted, 0.99)),
        "search_symbols_p50_ms": ms(percentile(search, 0.5)),
        "search_symbols_p99_ms": ms(percentile(search, 0.99)),
        "first_find_references_ms": ms(first_refs),
        "find_references_p50_ms": ms(percentile(refs, 0.5)),
        "find_references_p99_ms": ms(percentile(refs, 0.99)),
        "query_targets_p99_ms": {"find_symbol": 1, "search_symbols": 30, "find_references": 10},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=8,
                        help="corpus copies for the query benchmark (default 8)")
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--edits", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="codekeep-bench-") as scratch:
        base = Path(scratch) / "corpus"
        lines = build_corpus(base)
        total_lines = sum(lines.values())
        result: dict[str, object] = {
            "benchmark": "codemap",
            "corpus": {"packages": lines, "lines": total_lines,
                       "files": sum(1 for _ in base.rglob("*.py"))},
            "cpus": os.cpu_count(),
            "load_average_start": round(os.getloadavg()[0], 2),
        }
        result.update(bench_index(base, args.repeat))
        codemap = CodeMap.open(base)  # the index the last cold run left behind
        status = codemap.status()
        codemap.close()
        size = (base / ".codekeep" / "index.db").stat().st_size
        result.update({
            "symbols": status.symbols,
            "references": status.references,
            "index_db_bytes": size,
            "index_mb_per_50k_lines": round(size / MB / (total_lines / 50_000), 3),
            "index_mb_per_50k_lines_target": 1.0,
        })
        result.update(bench_edits(base, args.edits))
        result.update(bench_queries(base, Path(scratch) / "many", args.copies, args.queries))
    result["load_average_end"] = round(os.getloadavg()[0], 2)
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
