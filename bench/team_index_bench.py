"""A team indexes once: a new checkout indexed from a shared cache against a cold index of
the same tree, measured in the same run. Prints ONE JSON object.

The tree is Django's whole sdist from PyPI (the package, its tests and its reST docs:
code map and docs index both have work), unpacked once into ``--cache`` (default
``~/.cache/codekeep-bench``, never part of the repo); ``--tree DIR`` uses another. It is
copied twice into a scratch directory: checkout ``a`` and checkout ``b`` (a new
checkout: another path, no ``.codekeep/``). Each step is a fresh ``codekeep index``
process, its wall time and its CPU time (user + system of it and every worker it waited
for; on a loaded machine the wall time is mostly the wait for a core):

* ``cold``: checkout ``a``, an empty facts cache;
* ``export``: ``a`` again, ``--export FILE``;
* ``imported``: checkout ``b``, another empty cache, ``--import FILE``;
* with ``--team`` (a PostgreSQL 15 started for the run, as the tests do): ``published``,
  checkout ``a`` from scratch with an empty cache and ``CODEKEEP_TEAM_DSN`` set (a cold
  index that publishes what it computed), then ``team``, checkout ``b`` from scratch with
  an empty cache reading from the team database.

Ratios divide by ``cold`` (goal: a new checkout in <= 0.15 of it). The local model is
off (``CODEKEEP_LOCAL_MODEL=off``): embedding is measured by the docs benches.
``--source DIR`` runs the ``codekeep`` of another checkout (a before/after in one load).

Usage: ``python bench/team_index_bench.py [--team] [--rounds 1] [--tree DIR]
[--source DIR] [--cache DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from index_bench import measured  # type: ignore[import-not-found]

DJANGO = "5.1.4"


def django_sdist(cache: Path) -> Path:
    """Django's whole sdist (code, tests, docs), unpacked once into ``cache``."""
    target = cache / f"django-full-{DJANGO}"
    if target.exists():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as scratch:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--no-binary", ":all:", f"django=={DJANGO}", "-d", scratch],
                       check=True)
        [archive] = list(Path(scratch).glob("*.tar.gz"))
        shutil.unpack_archive(archive, scratch, filter="data")
        [tree] = [path for path in Path(scratch).iterdir() if path.is_dir()]
        shutil.move(tree, target)
    return target


def load() -> float:
    return round(os.getloadavg()[0], 1)


def one_round(tree: Path, scratch: Path, env: dict[str, str], team: bool) -> dict[str, Any]:
    checkouts = {name: scratch / name for name in ("a", "b")}
    for path in checkouts.values():
        shutil.rmtree(path, ignore_errors=True)
        shutil.copytree(tree, path, symlinks=True)
    codekeep = [sys.executable, "-m", "codekeep", "index", "--json"]
    figures: dict[str, Any] = {}

    def step(name: str, checkout: str, extra: list[str], cache: str, fresh: bool = True,
             **more: str) -> dict[str, Any]:
        """One ``codekeep index``; ``fresh``: no index and an empty facts cache first."""
        root = checkouts[checkout]
        if fresh:
            shutil.rmtree(scratch / cache, ignore_errors=True)
            shutil.rmtree(root / ".codekeep", ignore_errors=True)
        run_env = {**env, "CODEKEEP_PARSE_CACHE": str(scratch / cache), **more}
        before = load()
        wall, cpu, output = measured([*codekeep, "--root", str(root), *extra], root, run_env)
        answer = json.loads(output)
        figures[name] = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
                         "load": [before, load()], "files": answer.get("files"),
                         "docs_files": (answer.get("docs") or {}).get("files"),
                         "docs_chunks": (answer.get("docs") or {}).get("chunks"),
                         **{key: answer[key] for key in ("imported", "exported", "team")
                            if key in answer}}
        return answer

    artifact = scratch / "facts.export"
    step("cold", "a", [], "cache-cold")
    step("export", "a", ["--export", str(artifact)], "cache-cold", fresh=False)
    figures["export"]["mb"] = round(artifact.stat().st_size / 2**20, 1)
    step("imported", "b", ["--import", str(artifact)], "cache-import")
    artifact.unlink()
    if team:
        from codekeep.testing.postgres import PostgresServer, find_bin

        bin_dir = find_bin()
        if bin_dir is None:
            raise SystemExit("--team needs PostgreSQL (scripts/test installs it)")
        server = PostgresServer(bin_dir)
        server.start()
        try:
            dsn = server.create_database("team_index_bench")
            step("published", "a", [], "cache-published", CODEKEEP_TEAM_DSN=dsn)
            step("team", "b", [], "cache-team", CODEKEEP_TEAM_DSN=dsn)
        finally:
            server.destroy()
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--team", action="store_true")
    parser.add_argument("--tree", type=Path, default=None)
    parser.add_argument("--source", type=Path, default=None)
    parser.add_argument("--cache", type=Path,
                        default=Path.home() / ".cache" / "codekeep-bench")
    args = parser.parse_args(argv)
    tree = args.tree or django_sdist(args.cache)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODEKEEP_")}
    env["CODEKEEP_LOCAL_MODEL"] = "off"
    if args.source is not None:
        env["PYTHONPATH"] = str(args.source.resolve())
    rounds = []
    with tempfile.TemporaryDirectory(prefix="codekeep-team-index-") as scratch:
        for _ in range(args.rounds):
            rounds.append(one_round(tree, Path(scratch), env, args.team))
    result: dict[str, Any] = {"tree": str(tree), "source": str(args.source or "this checkout"),
                              "rounds": rounds}
    for name in ("imported", "team", "published"):
        for measure in ("wall_s", "cpu_s"):
            ratios = [r[name][measure] / r["cold"][measure] for r in rounds if name in r]
            if ratios:
                result[f"{name}_over_cold_{measure[:-2]}"] = round(statistics.median(ratios), 3)
    result["goal_new_checkout_over_cold"] = 0.15
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
