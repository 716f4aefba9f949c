"""Python: jedi's ``get_references`` as truth on click 8.1.7 (sdist from PyPI).

The workspace is the unpacked sdist (``src/``, ``tests/``, ``examples/``, ``docs/``);
jedi's search path is ``src/`` and the standard library only, so ``import click`` in
the tests and examples means the workspace's click. The symbols are 30 module-level
functions and classes and methods of ``src/click`` (dunder methods left out), drawn in a
fixed pseudo-random order among those jedi finds at least one use of.

Two things jedi does not answer are left out of the comparison, on both sides: the
other ``def`` lines of a name defined several times in one scope (``@overload``
stubs: definitions, not uses), and quoted annotations (``cmd: "Command"``), which jedi
does not resolve.
"""

from __future__ import annotations

import ast
import random
import subprocess
import sys
import sysconfig
import tarfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.refs_truth.common import arguments, brief, close_maps, codekeep_references, score

PROJECT = "click"
VERSION = "8.1.7"
SYMBOLS = 30
SEED = 13
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
Line = tuple[str, int]


def fetch(cache: Path) -> Path:
    """The unpacked sdist, downloaded once with pip into the cache."""
    cache.mkdir(parents=True, exist_ok=True)
    root = cache / f"{PROJECT}-{VERSION}"
    if root.is_dir():
        return root
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                    "--no-binary", ":all:", f"{PROJECT}=={VERSION}", "-d", str(cache)],
                   check=True)
    with tarfile.open(cache / f"{PROJECT}-{VERSION}.tar.gz") as archive:
        archive.extractall(cache, filter="data")
    return root


def candidates(
    root: Path,
) -> tuple[list[tuple[str, str, int, int]], dict[tuple[str, str], set[Line]]]:
    """Every function, class and non-dunder method of the package, in path and line
    order, as (qualified name, path, 1-based line, name column); and for each (path,
    qualified name) the lines of all its definitions (several with ``@overload``)."""
    found = []
    lines_of: dict[tuple[str, str], set[Line]] = defaultdict(set)
    for file in sorted((root / "src" / PROJECT).rglob("*.py")):
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


def jedi_references(root: Path, path: str, line: int, column: int) -> set[Line]:
    """Jedi's uses of the name at (path, line, column) inside the workspace."""
    import jedi

    paths = sysconfig.get_paths()
    project = jedi.Project(root, sys_path=[str(root / "src"), paths["stdlib"],
                                           paths["platstdlib"]])
    script = jedi.Script(path=root / path, project=project)
    found = set()
    for ref in script.get_references(line, column, scope="project"):
        if ref.module_path is None or ref.line is None:
            continue
        module = Path(ref.module_path).resolve()
        if module.is_relative_to(root):
            found.add((module.relative_to(root).as_posix(), ref.line))
    return found


def main(argv: list[str]) -> dict[str, Any]:
    import jedi

    args = arguments("python").parse_args(argv)
    root = fetch(args.cache.resolve() / "python")
    pool, definitions = candidates(root)
    quoted = quoted_annotations(root)
    random.Random(SEED).shuffle(pool)
    truth: dict[str, set[Line]] = {}
    ours: dict[str, list[tuple[str, int, str]]] = {}
    for name, path, line, column in pool:
        if len(truth) == SYMBOLS:
            break
        left_out = definitions[(path, name)] | quoted.get(name.rsplit(".", 1)[-1], set())
        expected = jedi_references(root, path, line, column) - left_out
        if expected:
            key = f"{path}::{name}"
            truth[key] = expected
            ours[key] = [use for use in codekeep_references(root, name, path, line)
                         if use[:2] not in left_out]
    close_maps()
    return {"language": "python", "truth": f"jedi {jedi.__version__}",
            "project": f"{PROJECT} {VERSION} (PyPI sdist)",
            **brief(score(truth, ours), args.show_symbols)}
