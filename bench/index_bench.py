"""Cold index benchmark against Universal Ctags: prints ONE JSON object.

Two trees, fetched from the registries by their ordinary clients into a cache
directory (``--cache``, default ``~/.cache/codekeep-bench``; never part of the repo):

* ``django`` — Django's sdist from PyPI (the package and its test suite, ~470k lines
  of Python plus some JavaScript), as ``bench/cli_bench.py`` unpacks it;
* ``mixed`` — Python (``rich`` from PyPI), TypeScript (the ``.ts`` sources of ``rxjs``,
  ``mobx`` and ``@trpc/server`` from npm), Go (Debian ``golang-*-dev``: sources under
  /usr/share/gocode), Rust (Debian ``librust-*-dev``: sources under
  /usr/share/cargo/registry) and C (Debian
  ``libxcrypt-source``), only the files of those five languages and none under a
  directory CodeKeep excludes by default (``dist`` …), so both tools read the same files.

Each round (so a busy machine slows both alike) runs, on the same tree:

* ``ctags -R`` (Universal Ctags, the physical reference: definitions only);
* a cold code-map index in a fresh process (``CodeMap.index`` on a tree without
  ``.codekeep/``, the content-addressed parse cache pointed at an empty directory so
  nothing is reused, only written, as on a user's first index): the index call's wall
  time, and the CPU time of the process and its workers; ``cores_busy`` is the index
  call's CPU (parent plus workers) over its wall time, 2.0 = both cores busy throughout;
* the same with the parse cache turned off (``CODEKEEP_PARSE_CACHE=off``):
  ``uncached_cold``, what writing the cache costs;
* the same with the parse cache already filled (a second checkout or worktree of the
  same content): ``cached_cold``;
* ``codekeep index`` as typed (code map, then the docs knowledge base), wall only.

Ratios are medians over rounds, wall against ctags' wall and CPU against ctags' CPU,
with the load average at the start and end. Goal: cold wall <= 4x ctags.

Usage: ``python bench/index_bench.py [--rounds 3] [--trees django,mixed] [--cache DIR]``.
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

from cli_bench import cached_django  # type: ignore[import-not-found]

from codekeep.settings.codemap import DEFAULT_EXCLUDES

GOAL = 4.0
DJANGO = "5.1.4"
PYPI = {"rich": "13.9.4"}
NPM = {"rxjs": "7.8.1", "mobx": "6.13.5", "@trpc/server": "10.45.2"}
DEBIAN = ("golang-github-spf13-cobra-dev", "golang-github-stretchr-testify-dev",
          "golang-gopkg-yaml.v3-dev", "librust-syn-dev", "librust-serde-dev",
          "libxcrypt-source")
MIXED_SUFFIXES = {".py": "python", ".ts": "typescript", ".go": "go", ".rs": "rust",
                  ".c": "c", ".h": "c"}

# Runs in a fresh interpreter: one cold index, its own timings as JSON on stdout
# (the workers' CPU: every child the index waited for, i.e. its pool).
DRIVER = """
import json, resource, sys, time
from pathlib import Path
from codekeep.analysis import CodeMap
def cpu(who):
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime
started = time.perf_counter()
codemap = CodeMap.open(Path(sys.argv[1]))
opened = time.perf_counter()
parent = cpu(resource.RUSAGE_SELF)
stats = codemap.index()
done = time.perf_counter()
parent = cpu(resource.RUSAGE_SELF) - parent
codemap.close()
print(json.dumps({"index_s": done - opened, "open_s": opened - started,
                  "parent_cpu_s": parent, "workers_cpu_s": cpu(resource.RUSAGE_CHILDREN),
                  "files": stats.files, "symbols": stats.symbols,
                  "references": stats.references, "languages": stats.languages}))
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measured(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """(wall s, CPU s of the process and every child it waited for, stdout)."""
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True,
                          text=True)
    return time.perf_counter() - started, _children_cpu() - cpu, done.stdout


# ---- trees -------------------------------------------------------------------------
def django_tree(cache: Path) -> Path:
    return cached_django(cache, DJANGO)


def _unpack_pypi(name: str, version: str, into: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--no-binary", ":all:", f"{name}=={version}", "-d", str(into)],
                   check=True)
    [archive] = list(into.glob("*.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(into / "src", filter="data")


def _unpack_npm(name: str, version: str, into: Path) -> None:
    subprocess.run(["npm", "pack", "--silent", f"{name}@{version}"], cwd=into, check=True,
                   capture_output=True)
    [archive] = list(into.glob("*.tgz"))
    with tarfile.open(archive) as tar:
        tar.extractall(into / "src", filter="data")


def _unpack_debian(package: str, into: Path) -> None:
    subprocess.run(["apt-get", "download", "-q", package], cwd=into, check=True,
                   capture_output=True)
    [archive] = list(into.glob("*.deb"))
    subprocess.run(["dpkg-deb", "-x", archive.name, "src"], cwd=into, check=True)


def mixed_tree(cache: Path) -> Path:
    """Only the five languages' files of the fetched packages, one directory each."""
    target = cache / "mixed"
    if target.exists():
        return target
    with tempfile.TemporaryDirectory(dir=cache) as scratch:
        work = Path(scratch)
        sources: list[tuple[str, Path]] = []
        for name, version in PYPI.items():
            (work / name).mkdir()
            _unpack_pypi(name, version, work / name)
            sources.append((name, work / name / "src"))
        for name, version in NPM.items():
            folder = work / name.strip("@").replace("/", "-")
            folder.mkdir()
            _unpack_npm(name, version, folder)
            sources.append((folder.name, folder / "src"))
        for package in DEBIAN:
            (work / package).mkdir()
            _unpack_debian(package, work / package)
            sources.append((package, work / package / "src"))
        tree = work / "tree"
        excluded = set(DEFAULT_EXCLUDES)
        for name, source in sources:
            for path in source.rglob("*"):
                if (path.suffix in MIXED_SUFFIXES and path.is_file()
                        and not excluded & set(path.relative_to(source).parts)):
                    destination = tree / name / path.relative_to(source)
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(path, destination)
        shutil.move(tree, target)
    return target


def describe(tree: Path) -> dict[str, object]:
    lines: dict[str, int] = {}
    files = 0
    for path in tree.rglob("*"):
        language = MIXED_SUFFIXES.get(path.suffix, "other")
        if ".codekeep" in path.parts or not path.is_file():
            continue
        files += 1
        lines[language] = lines.get(language, 0) + path.read_bytes().count(b"\n")
    return {"files": files, "lines": sum(lines.values()), "lines_by_language": lines}


# ---- one tree -----------------------------------------------------------------------
def bench_tree(tree: Path, rounds: int, codekeep: str) -> dict[str, object]:
    ctags = shutil.which("ctags")
    if ctags is None:
        raise SystemExit("Universal Ctags not found: install the Debian package "
                         "universal-ctags")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    samples: dict[str, list[float]] = {}
    counts: dict[str, object] = {}

    def add(name: str, value: float) -> None:
        samples.setdefault(name, []).append(value)

    def cold(parse_cache: Path | str) -> tuple[float, float, float, dict]:
        shutil.rmtree(tree / ".codekeep", ignore_errors=True)
        run_env = {**env, "CODEKEEP_PARSE_CACHE": str(parse_cache)}
        wall, cpu, out = measured([sys.executable, "-c", DRIVER, str(tree)], tree, run_env)
        report = json.loads(out)
        counts.update({k: report[k] for k in ("files", "symbols", "references",
                                               "languages")})
        return report["index_s"], wall, cpu, report

    with tempfile.TemporaryDirectory(prefix="codekeep-index-bench-") as scratch:
        for round_number in range(rounds):
            with tempfile.TemporaryDirectory(dir=scratch) as tags_dir:
                wall, cpu, _out = measured(
                    [ctags, "-R", "-f", os.path.join(tags_dir, "tags"), "."], tree, env)
            add("ctags_s", wall)
            add("ctags_cpu_s", cpu)
            empty = Path(scratch) / f"parse-cache-{round_number}"
            index_s, process_s, cpu, report = cold(empty)
            add("cold_index_s", index_s)
            add("cold_process_s", process_s)
            add("cold_cpu_s", cpu)
            add("cold_parent_cpu_s", report["parent_cpu_s"])
            add("cold_workers_cpu_s", report["workers_cpu_s"])
            add("cold_cores_busy",
                (report["parent_cpu_s"] + report["workers_cpu_s"]) / index_s)
            index_s, process_s, cpu, report = cold(empty)  # same content, cache filled
            add("cached_cold_index_s", index_s)
            add("cached_cold_cpu_s", cpu)
            index_s, process_s, cpu, report = cold("off")
            add("uncached_cold_index_s", index_s)
            add("uncached_cold_cpu_s", cpu)
            shutil.rmtree(tree / ".codekeep", ignore_errors=True)
            wall, _cpu, _out = measured([codekeep, "index", "--root", str(tree)], tree,
                                        {**env, "CODEKEEP_PARSE_CACHE": str(empty) + "-cli"})
            add("cli_index_s", wall)
        shutil.rmtree(tree / ".codekeep", ignore_errors=True)
    medians = {name: round(statistics.median(values), 3) for name, values in samples.items()}

    def ratio(a: str, b: str) -> float:
        return round(medians[a] / medians[b], 2)

    return {
        **counts,
        **medians,
        "cold_over_ctags_wall": ratio("cold_index_s", "ctags_s"),
        "cold_process_over_ctags_wall": ratio("cold_process_s", "ctags_s"),
        "cold_over_ctags_cpu": ratio("cold_cpu_s", "ctags_cpu_s"),
        "cached_cold_over_ctags_wall": ratio("cached_cold_index_s", "ctags_s"),
        "uncached_cold_over_ctags_wall": ratio("uncached_cold_index_s", "ctags_s"),
        "cli_index_over_ctags_wall": ratio("cli_index_s", "ctags_s"),
        "goal_wall_ratio": GOAL,
        "goal_met": medians["cold_index_s"] / medians["ctags_s"] <= GOAL,
        "samples": {name: [round(v, 3) for v in values] for name, values in samples.items()},
    }


def tree_arguments(description: str, argv: list[str] | None) -> argparse.Namespace:
    """``--rounds``, ``--trees`` and ``--cache`` (created), as the index benches take them."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--trees", default="django,mixed")
    parser.add_argument("--cache", type=Path,
                        default=Path.home() / ".cache" / "codekeep-bench")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    return args


def main(argv: list[str] | None = None) -> int:
    args = tree_arguments(__doc__.splitlines()[0], argv)
    codekeep = shutil.which("codekeep", path=str(Path(sys.executable).parent)) or "codekeep"
    builders = {"django": django_tree, "mixed": mixed_tree}
    trees = {name: builders[name](args.cache) for name in args.trees.split(",")}
    result: dict[str, object] = {"benchmark": "index", "cpus": os.cpu_count(),
                                 "load_average_start": round(os.getloadavg()[0], 2)}
    for name, tree in trees.items():
        result[name] = {"tree": describe(tree), **bench_tree(tree, args.rounds, codekeep)}
    print(json.dumps({**result, "load_average_end": round(os.getloadavg()[0], 2)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
