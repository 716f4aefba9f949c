"""Every LSP feature module keeps one style: named module-level handlers and a short
table that ``register(server)`` walks (CONTRIBUTING.md, "An LSP feature"). A handler
defined inside ``register`` is a closure a reader, a tool or a test cannot reach by name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import codekeep.server.features as features

MODULES = sorted(Path(features.__path__[0]).glob("*.py"))


@pytest.mark.parametrize("path", [m for m in MODULES if m.name != "__init__.py"],
                         ids=lambda path: path.stem)
def test_register_defines_no_handler_of_its_own(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    [register] = [node for node in tree.body
                  if isinstance(node, ast.FunctionDef) and node.name == "register"]
    nested = [node.name for node in ast.walk(register)
              if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
              and node is not register]
    assert nested == [], f"{path.name}: move {', '.join(nested)} to the module level"
