"""replace_symbol_body, insert_before/after_symbol and delete_symbol through the pipeline,
on a real indexed workspace: the diff they answer with, the indentation they keep, and
what they refuse (stale file, broken parse, remaining uses, ambiguity, a path outside)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from codekeep.analysis.codemap import CodeMap
from codekeep.tools import ToolContext, ToolKit, ToolResult

SHOP = '''"""A shop."""


class Cart:
    def __init__(self):
        self.items = []

    def total(self):
        return sum(self.items)


def make_cart():
    return Cart()
'''

USER = """from shop import make_cart


def checkout():
    return make_cart().total()
"""


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    (root / "shop.py").write_text(SHOP)
    (root / "user.py").write_text(USER)
    (root / "other.py").write_text("class Other:\n    def total(self):\n        return 0\n")
    return root


@pytest.fixture
def edit(shop: Path) -> Iterator[tuple[ToolKit, ToolContext]]:
    codemap = CodeMap.open(shop)
    codemap.index()
    kit = ToolKit.open(shop, codemap=codemap)
    yield kit, kit.context("task", "edit")
    kit.close()
    codemap.close()


async def _call(edit: tuple[ToolKit, ToolContext], tool: str, **arguments: object) -> ToolResult:
    kit, ctx = edit
    return await kit.pipeline.execute(tool, arguments, ctx)


async def test_replace_body_keeps_indentation_and_answers_with_the_diff(
        edit: tuple[ToolKit, ToolContext], shop: Path) -> None:
    result = await _call(edit, "replace_symbol_body", symbol="Cart.total",
                         body="def total(self):\n    return sum(self.items) * 2\n")
    assert result.ok, result.content
    text = (shop / "shop.py").read_text()
    assert "    def total(self):\n        return sum(self.items) * 2\n\n\ndef make_cart" in text
    diff = result.data["diff"]
    assert "-        return sum(self.items)\n+        return sum(self.items) * 2" in diff
    ast.parse(text)
    # the code map follows: the method is found at its place and the other file untouched
    assert (shop / "other.py").read_text().endswith("return 0\n")
    again = await _call(edit, "find_symbol", name="Cart.total")
    assert again.data["symbols"][0]["line"] == 8


async def test_insert_before_and_after_a_method(edit: tuple[ToolKit, ToolContext],
                                                shop: Path) -> None:
    after = await _call(edit, "insert_after_symbol", symbol="shop.py::Cart.total",
                        text="\ndef count(self):\n    return len(self.items)\n")
    assert after.ok, after.content
    before = await _call(edit, "insert_before_symbol", symbol="make_cart",
                         text="def empty():\n    return []\n\n\n")
    assert before.ok, before.content
    text = (shop / "shop.py").read_text()
    assert ("        return sum(self.items)\n\n    def count(self):\n"
            "        return len(self.items)\n") in text
    assert "def empty():\n    return []\n\n\ndef make_cart():" in text
    namespace: dict[str, object] = {}
    exec(compile(text, "shop.py", "exec"), namespace)  # the edited file runs
    assert namespace["Cart"]().count() == 0  # type: ignore[operator, attr-defined]


async def test_delete_is_refused_while_resolved_uses_remain(
        edit: tuple[ToolKit, ToolContext], shop: Path) -> None:
    refused = await _call(edit, "delete_symbol", symbol="make_cart")
    assert refused.rule == "in_use" and "user.py:1" in refused.content
    assert (shop / "shop.py").read_text() == SHOP
    forced = await _call(edit, "delete_symbol", symbol="make_cart", force=True)
    assert forced.ok and "-def make_cart():" in forced.data["diff"]
    assert "make_cart" not in (shop / "shop.py").read_text()


async def test_refusals_leave_the_file_alone(edit: tuple[ToolKit, ToolContext],
                                            shop: Path) -> None:
    ambiguous = await _call(edit, "replace_symbol_body", symbol="total", body="def total(): 1")
    assert ambiguous.rule == "ambiguous" and "other.py::Other.total" in ambiguous.content
    broken = await _call(edit, "replace_symbol_body", symbol="Cart.total",
                         body="def total(self:\n    return (\n")
    assert broken.rule == "syntax"
    assert (shop / "shop.py").read_text() == SHOP
    (shop / "shop.py").write_text(SHOP.replace('"""A shop."""', '"""A shop!\n\n"""'))
    stale = await _call(edit, "replace_symbol_body", symbol="Cart.total",
                        body="def total(self):\n    return 0\n")
    assert stale.rule == "stale"
    assert "return sum(self.items)" in (shop / "shop.py").read_text()
    missing = await _call(edit, "delete_symbol", symbol="Nope.nothing")
    assert missing.rule == "not_found"


async def test_symbol_edits_are_edit_tools_only(edit: tuple[ToolKit, ToolContext]) -> None:
    kit, _ctx = edit
    result = await kit.pipeline.execute(
        "replace_symbol_body", {"symbol": "Cart.total", "body": "def total(self): 0"},
        kit.context("reader", "explore"))
    assert not result.ok and result.outcome == "refused"
