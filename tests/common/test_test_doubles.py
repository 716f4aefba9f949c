"""The scripted model server is a test double: the product never imports it."""

from __future__ import annotations

import ast
from pathlib import Path

import codekeep

PACKAGE = Path(codekeep.__file__).resolve().parent


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_product_module_imports_codekeep_testing():
    offenders = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "testing" not in path.relative_to(PACKAGE).parts
        and any(name == "codekeep.testing" or name.startswith("codekeep.testing.")
                for name in _imports(path))
    )
    assert offenders == []


def test_the_scripted_server_lives_in_the_testing_package():
    assert (PACKAGE / "testing" / "scripted_server.py").is_file()
    assert not (PACKAGE / "agent" / "scripted_server.py").exists()
