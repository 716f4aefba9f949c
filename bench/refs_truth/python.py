"""Python: jedi's ``get_references`` as truth on click 8.1.7 (sdist from PyPI).

The workspace is the unpacked sdist (``src/``, ``tests/``, ``examples/``, ``docs/``);
the symbols are 30 module-level functions and classes and methods of ``src/click``
(dunder methods left out), drawn in a fixed pseudo-random order among those jedi finds
at least one use of.
"""

from __future__ import annotations

import ast
import random
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

from bench.refs_truth.common import arguments, brief, close_maps, codekeep_references, score

PROJECT = "click"
VERSION = "8.1.7"
SYMBOLS = 30
SEED = 13


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


def candidates(root: Path) -> list[tuple[str, str, int, int]]:
    """(qualified name, path, 1-based line, name column) of every function, class and
    non-dunder method of the package, in path and line order."""
    found = []
    for file in sorted((root / "src" / PROJECT).rglob("*.py")):
        rel = file.relative_to(root).as_posix()
        text = file.read_text(encoding="utf-8")
        lines = text.splitlines()

        def add(node: ast.AST, prefix: str, rel: str = rel, lines: list[str] = lines) -> None:
            assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            column = lines[node.lineno - 1].find(node.name, node.col_offset)
            found.append((prefix + node.name, rel, node.lineno, column))

        for node in ast.parse(text).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                add(node, "")
            if isinstance(node, ast.ClassDef):
                for member in node.body:
                    if (isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef)
                            and not member.name.startswith("__")):
                        add(member, node.name + ".")
    return found


def jedi_references(root: Path, path: str, line: int, column: int) -> set[tuple[str, int]]:
    """Jedi's uses of the name at (path, line, column) inside the workspace, without the
    definition itself."""
    import jedi

    project = jedi.Project(root, added_sys_path=[str(root / "src")])
    script = jedi.Script(path=root / path, project=project)
    found = set()
    for ref in script.get_references(line, column, scope="project"):
        if ref.module_path is None or ref.line is None:
            continue
        module = Path(ref.module_path).resolve()
        if not module.is_relative_to(root):
            continue
        site = (module.relative_to(root).as_posix(), ref.line)
        if site != (path, line):
            found.add(site)
    return found


def main(argv: list[str]) -> dict[str, Any]:
    import jedi

    args = arguments("python").parse_args(argv)
    root = fetch(args.cache.resolve() / "python")
    pool = candidates(root)
    random.Random(SEED).shuffle(pool)
    truth: dict[str, set[tuple[str, int]]] = {}
    ours: dict[str, list[tuple[str, int, str]]] = {}
    for name, path, line, column in pool:
        if len(truth) == SYMBOLS:
            break
        expected = jedi_references(root, path, line, column)
        if expected:
            key = f"{path}::{name}"
            truth[key] = expected
            ours[key] = codekeep_references(root, name, path, line)
    close_maps()
    return {"language": "python", "truth": f"jedi {jedi.__version__}",
            "project": f"{PROJECT} {VERSION} (PyPI sdist)",
            **brief(score(truth, ours), args.show_symbols)}
