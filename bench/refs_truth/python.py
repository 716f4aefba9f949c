"""Python: jedi's ``get_references`` as truth on the sdists of
:data:`bench.refs_truth.python_packages.PACKAGES`, each scored on its own.

Each workspace is one unpacked sdist (its package, ``tests/``, examples, docs); jedi's
search path is the package's import roots and the standard library only, so ``import
flask`` in the tests means the workspace's flask, and jedi's cap on the files a
reference search parses (``_PARSED_FILE_LIMIT``, 30) is lifted so a widely used name
gets its whole truth. The symbols are 30 module-level functions and classes and
methods of the package (dunder methods left out), drawn in a fixed pseudo-random
order among those jedi finds at least one use of. Jedi's answers are kept in the cache
(they depend only on the sdist and jedi's version).

Two things jedi does not answer are left out of the comparison, on both sides: the
other ``def`` lines of a name defined several times in one scope (``@overload``
stubs: definitions, not uses), and quoted annotations (``cmd: "Command"``), which jedi
does not resolve.

Usage: ``python -m bench.refs_truth python [--package NAME ...] [--held-out]``; held-out
packages are measured only with ``--held-out`` and reported apart.
"""

from __future__ import annotations

import ast
import json
import random
import shutil
import subprocess
import sys
import sysconfig
import tarfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.refs_truth.common import (
    arguments,
    brief,
    close_maps,
    codekeep_references,
    meets_goals,
    score,
)
from bench.refs_truth.python_packages import PACKAGES, Package

SYMBOLS = 30
SEED = 13
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
Line = tuple[str, int]


def fetch(cache: Path, package: Package) -> Path:
    """The unpacked sdist, downloaded once with pip into the cache."""
    cache.mkdir(parents=True, exist_ok=True)
    stem = f"{package.project.replace('-', '_')}-{package.version}"
    root = cache / stem
    if root.is_dir():
        return root
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                    "--no-binary", ":all:", f"{package.project}=={package.version}",
                    "-d", str(cache)], check=True)
    with tarfile.open(cache / f"{stem}.tar.gz") as archive:
        archive.extractall(cache, filter="data")
    return root


def candidates(
    root: Path, package: Package,
) -> tuple[list[tuple[str, str, int, int]], dict[tuple[str, str], set[Line]]]:
    """Every function, class and non-dunder method of the package, in path and line
    order, as (qualified name, path, 1-based line, name column); and for each (path,
    qualified name) the lines of all its definitions (several with ``@overload``)."""
    found = []
    lines_of: dict[tuple[str, str], set[Line]] = defaultdict(set)
    files = sorted({file for base in package.roots
                    for file in (root / base / package.package).rglob("*.py")})
    for file in files:
        rel = file.relative_to(root).as_posix()
        text = file.read_text(encoding="utf-8")
        lines = text.splitlines()
        members: list[tuple[str, ast.AST]] = []
        for node in ast.parse(text).body:
            if isinstance(node, DEFS):
                members.append(("", node))
            if isinstance(node, ast.ClassDef):
                members += [(node.name + ".", member) for member in node.body
                            if isinstance(member, DEFS[:2]) and not member.name.startswith("__")]
        for prefix, node in members:
            assert isinstance(node, DEFS)
            column = lines[node.lineno - 1].find(node.name, node.col_offset)
            found.append((prefix + node.name, rel, node.lineno, column))
            lines_of[(rel, prefix + node.name)].add((rel, node.lineno))
    return found, lines_of


def quoted_annotations(root: Path) -> dict[str, set[Line]]:
    """Name -> lines where it is written as a quoted annotation, in every file (under
    an import alias too: ``from .core import Option as CoreOption``, ``"CoreOption"``)."""
    found: dict[str, set[Line]] = defaultdict(set)
    for file in sorted(root.rglob("*.py")):
        try:
            tree = ast.parse(file.read_bytes())
        except SyntaxError:
            continue
        rel = file.relative_to(root).as_posix()
        aliases = {alias.asname: alias.name for node in ast.walk(tree)
                   if isinstance(node, ast.ImportFrom) for alias in node.names if alias.asname}
        annotations = [node.annotation for node in ast.walk(tree)
                       if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation]
        annotations += [node.returns for node in ast.walk(tree)
                        if isinstance(node, DEFS[:2]) and node.returns]
        for annotation in annotations:
            for node in ast.walk(annotation):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    for name in node.value.replace("[", " ").replace("]", " ").split():
                        name = name.strip(",")
                        found[aliases.get(name, name)].add((rel, node.lineno))
    return found


def jedi_references(root: Path, package: Package, path: str, line: int,
                    column: int) -> set[Line]:
    """Jedi's uses of the name at (path, line, column) inside the workspace, with the
    whole workspace searched (no 30-file cap)."""
    import jedi
    import jedi.inference.references as jedi_references_module

    jedi_references_module._PARSED_FILE_LIMIT = sys.maxsize  # type: ignore[attr-defined]
    paths = sysconfig.get_paths()
    sys_path = [str((root / base).resolve()) for base in package.roots]
    project = jedi.Project(root, sys_path=[*sys_path, paths["stdlib"], paths["platstdlib"]])
    script = jedi.Script(path=root / path, project=project)
    found = set()
    for ref in script.get_references(line, column, scope="project"):
        if ref.module_path is None or ref.line is None:
            continue
        module = Path(ref.module_path).resolve()
        if module.is_relative_to(root):
            found.add((module.relative_to(root).as_posix(), ref.line))
    return found


def truth_of(cache: Path, root: Path, package: Package) -> dict[str, Any]:
    """The drawn symbols with jedi's uses of each (``key -> [name, path, line, uses]``),
    computed once per sdist and jedi version and kept in the cache."""
    import jedi

    kept = cache / f"jedi-{jedi.__version__}-{package.project}-{package.version}.json"
    if kept.is_file():
        return dict(json.loads(kept.read_text(encoding="utf-8")))
    pool, definitions = candidates(root, package)
    quoted = quoted_annotations(root)
    random.Random(SEED).shuffle(pool)
    truth: dict[str, Any] = {}
    for name, path, line, column in pool:
        if len(truth) == SYMBOLS:
            break
        left_out = definitions[(path, name)] | quoted.get(name.rsplit(".", 1)[-1], set())
        expected = jedi_references(root, package, path, line, column) - left_out
        if expected:
            truth[f"{path}::{name}"] = [name, path, line, sorted(expected),
                                        sorted(left_out)]
    kept.write_text(json.dumps(truth), encoding="utf-8")
    return truth


def measure(cache: Path, package: Package, show_symbols: bool) -> dict[str, Any]:
    """One package's figures against jedi, from a fresh index of the sdist."""
    root = fetch(cache, package)
    shutil.rmtree(root / ".codekeep", ignore_errors=True)
    truth: dict[str, set[Line]] = {}
    ours: dict[str, list[tuple[str, int, str]]] = {}
    for key, (name, path, line, expected, left_out) in truth_of(cache, root, package).items():
        skipped = {(p, n) for p, n in left_out}
        truth[key] = {(p, n) for p, n in expected}
        ours[key] = [use for use in codekeep_references(root, name, path, line)
                     if use[:2] not in skipped]
    close_maps()
    figures = brief(score(truth, ours), show_symbols)
    return {"project": f"{package.project} {package.version} (PyPI sdist)",
            "shapes": package.shapes, **figures, "meets_goals": meets_goals(figures)}


def main(argv: list[str]) -> dict[str, Any]:
    import jedi

    parser = arguments("python")
    parser.add_argument("--package", action="append", default=[],
                        help="measure only this package (repeatable)")
    parser.add_argument("--held-out", action="store_true",
                        help="measure the held-out packages too (reported apart)")
    args = parser.parse_args(argv)
    cache = args.cache.resolve() / "python"
    chosen = [p for p in PACKAGES if (p.project in args.package if args.package
                                      else not p.held_out or args.held_out)]
    tuned = {p.project: measure(cache, p, args.show_symbols) for p in chosen if not p.held_out}
    held_out = {p.project: measure(cache, p, args.show_symbols) for p in chosen if p.held_out}
    return {"language": "python", "truth": f"jedi {jedi.__version__} (no file cap)",
            "packages": tuned, "held_out": held_out,
            "meets_goals": all(f["meets_goals"] for f in [*tuned.values(),
                                                          *held_out.values()])}
