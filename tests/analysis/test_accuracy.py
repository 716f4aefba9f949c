"""Python definitions on real third-party code agree with Python's own ``ast`` module.

The corpus is the installed source of ``jsonschema`` and ``httpx`` (runtime dependencies
of CodeKeep), copied into a temporary workspace. Every top-level and class-level
function and class that ``ast`` sees must be found (recall >= 99 %), with the same
container chain.
"""

from __future__ import annotations

import ast
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import jsonschema
import pytest

from codekeep.analysis import CodeMap

PACKAGES = [Path(jsonschema.__file__).parent, Path(httpx.__file__).parent]
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
BLOCKS = (ast.If, ast.Try, ast.With, ast.For, ast.While)


def _ast_definitions(tree: ast.AST, prefix: str = "") -> Iterator[str]:
    """Qualified names of module- and class-level defs (not inside function bodies)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, DEFINITIONS):
            qualified = prefix + node.name
            yield qualified
            if isinstance(node, ast.ClassDef):
                yield from _ast_definitions(node, qualified + ".")
        elif isinstance(node, (*BLOCKS, ast.ExceptHandler)) or (
                hasattr(ast, "TryStar") and isinstance(node, ast.TryStar)):
            yield from _ast_definitions(node, prefix)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("accuracy")
    for package in PACKAGES:
        shutil.copytree(package, root / package.name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return root


def test_python_definitions_match_ast(corpus: Path, open_map: Callable[..., CodeMap]) -> None:
    expected: set[tuple[str, str]] = set()
    for path in sorted(corpus.rglob("*.py")):
        rel = path.relative_to(corpus).as_posix()
        tree = ast.parse(path.read_bytes())
        expected |= {(rel, name) for name in _ast_definitions(tree)}
    codemap = open_map(corpus)
    codemap.index()
    found = {
        (s.path, s.id.split("::", 1)[1].split("#", 1)[0])
        for s in codemap.symbols_in()
        if s.kind in ("function", "method", "class")
    }
    missing = expected - found
    recall = 1 - len(missing) / len(expected)
    assert len(expected) > 1000
    assert recall >= 0.99, sorted(missing)[:20]
    extra = {item for item in found - expected}
    assert len(extra) / len(found) < 0.01, sorted(extra)[:20]
