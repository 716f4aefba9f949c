"""One contract for every door: the code map itself refuses a wrong question (an unknown
focus file, a line the file does not have, a limit below 1) with a clear error, so the
CLI, the tools and the server need no checks of their own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from codekeep.analysis import CodeMap
from codekeep.analysis.errors import InvalidLimitError, LineOutOfRangeError, UnknownPathError

PROJECT = {
    "shop/models.py": (
        "class Cart:\n"
        "    def total(self) -> int:\n"
        "        return 0\n"
        "\n"
        "\n"
        "def make_cart() -> Cart:\n"
        "    return Cart()\n"
    ),
    "shop/views.py": (
        "from shop.models import make_cart\n"
        "\n"
        "\n"
        "def show():\n"
        "    return make_cart().total() + make_cart().total()\n"
    ),
    "notes.txt": "not code\n",
}


@pytest.fixture
def codemap(workspace: Callable[..., Path], open_map: Callable[..., CodeMap]) -> CodeMap:
    opened = open_map(workspace(PROJECT))
    opened.index()
    return opened


def test_unknown_focus_paths_are_named_not_ignored(codemap: CodeMap) -> None:
    with pytest.raises(UnknownPathError, match=r"not in the index: nope.py, notes.txt$"):
        codemap.repo_map(400, focus=["shop/views.py", "notes.txt", "nope.py"])
    assert "make_cart" in codemap.repo_map(400, focus=["shop/views.py"]).text


def test_a_line_past_the_end_is_an_error_not_an_empty_answer(codemap: CodeMap) -> None:
    with pytest.raises(LineOutOfRangeError, match=r"^shop/views.py has no line 998 \(it has 5\)$"):
        codemap.find_related("shop/views.py", 997)
    with pytest.raises(LineOutOfRangeError, match="has no line 0"):
        codemap.find_related("shop/views.py", -1)
    # The last line and a blank line between definitions are real lines.
    assert codemap.find_related("shop/views.py", 4).symbol is not None
    blank = codemap.find_related("shop/models.py", 3)
    assert blank.symbol is None
    with pytest.raises(UnknownPathError, match=r"not in the index: nope\.py"):
        codemap.find_related("nope.py", 0)


def test_limits_follow_one_rule_in_every_query(codemap: CodeMap) -> None:
    every_ref, total = codemap.find_references(name="make_cart")
    assert total == len(every_ref) == 3
    assert codemap.find_references(name="make_cart", limit=None) == (every_ref, 3)
    assert codemap.find_references(name="make_cart", limit=2) == (every_ref[:2], 3)
    assert len(codemap.find_symbol("total", limit=None)) == 1
    assert len(codemap.search_symbols("t", limit=None)) == len(codemap.search_symbols("t", 100))
    assert len(codemap.search_symbols("t", limit=1)) == 1
    queries: list[Callable[[int], object]] = [
        lambda limit: codemap.find_symbol("Cart", limit=limit),
        lambda limit: codemap.find_references(name="make_cart", limit=limit),
        lambda limit: codemap.find_references(symbol_id="shop/models.py::make_cart", limit=limit),
        lambda limit: codemap.search_symbols("cart", limit=limit),
    ]
    for query in queries:
        for bad in (0, -1):
            with pytest.raises(InvalidLimitError, match=f"limit must be a positive number.*{bad}"):
                query(bad)
