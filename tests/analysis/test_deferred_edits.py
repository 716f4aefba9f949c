"""Edits whose facts are owed (``CodeMap.apply_edit(..., defer=True)``, what the server
does per keystroke): lookups by name are exact at once, every other query settles
first, subscribers hear of a change when it is settled, and owed facts never reach
another process as a ghost: closing or losing the buffer leaves the disk's content."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from codekeep.analysis import CodeMap
from codekeep.analysis.codemap import INDEX_FILE
from codekeep.analysis.model import ChangeSet
from codekeep.analysis.store import IndexStore
from codekeep.common.workspace import state_dir

SOURCE = "class Shop:\n    def sell(self):\n        return 1\n\n\ndef main():\n    pass\n"
TYPED = "    def refund(self, order):\n        return sell(order)\n\n"


def type_method(codemap: CodeMap) -> None:
    """Type TYPED into Shop's body (before `def sell`), one keystroke per edit, deferred."""
    line, col = 1, 0
    for char in TYPED:
        codemap.apply_edit("shop.py", (line, col), (line, col), char, defer=True)
        line, col = (line + 1, 0) if char == "\n" else (line, col + 1)


def stored_names(root: Path) -> set[str]:
    """Symbol names index.db holds for shop.py, read as it is (no buffer reconciled)."""
    store = IndexStore(state_dir(root) / INDEX_FILE)
    try:
        return {s.name for s in store.symbols_in_file("shop.py")}
    finally:
        store.close()


@pytest.fixture
def shop(workspace: Callable[..., Path], open_map: Callable[..., CodeMap]) -> CodeMap:
    """A code map of shop.py, indexed, with shop.py open as a buffer."""
    codemap = open_map(workspace({"shop.py": SOURCE}))
    codemap.index()
    codemap.open_document("shop.py", SOURCE)
    return codemap


def test_a_lookup_is_exact_while_the_facts_are_owed(shop: CodeMap) -> None:
    codemap = shop
    heard: list[ChangeSet] = []
    codemap.subscribe(heard.append)
    type_method(codemap)
    assert codemap.owes_facts() and heard == []
    [refund] = codemap.find_symbol("refund")
    assert (refund.id, refund.kind, refund.container) == ("shop.py::Shop.refund", "method", "Shop")
    assert (refund.range.start.line, refund.range.end.line) == (1, 2)
    [sell] = codemap.find_symbol("sell", kind="method")
    assert sell.range.start.line == 4  # moved down by the three typed lines
    assert codemap.find_symbol("refund", kind="function") == []
    assert codemap.owes_facts()  # lookups by name read the tree, not the owed rows
    # a query about uses needs the settled facts: it settles first
    refs, total = codemap.find_references(name="sell")
    assert total == 1 and refs[0].range.start.line == 2
    assert not codemap.owes_facts()
    assert [s.id for change in heard for s in change.added] == ["shop.py::Shop.refund"]


def test_every_other_query_settles_first(shop: CodeMap) -> None:
    codemap = shop
    queries: list[Callable[[], object]] = [
        lambda: codemap.symbols_in(["shop.py"]),
        lambda: codemap.symbol("shop.py::Shop.refund"),
        lambda: codemap.symbol_at("shop.py", 1, 8),
        lambda: codemap.find_related("shop.py", 2),
        lambda: codemap.search_symbols("refnd"),
        lambda: codemap.find_symbol("Shop.refund"),
        lambda: codemap.repo_map(256),
        lambda: codemap.status(),
    ]
    for query in queries:
        type_method(codemap)
        assert codemap.owes_facts()
        query()
        assert not codemap.owes_facts(), query
        codemap.open_document("shop.py", SOURCE)  # start again from the disk's text


def test_owed_facts_reach_the_index_only_when_settled_and_never_outlive_the_buffer(
    shop: CodeMap,
) -> None:
    codemap, root = shop, shop.root
    type_method(codemap)
    assert "refund" not in stored_names(root)  # owed: index.db still has the last settled rows
    codemap.settle()
    assert "refund" in stored_names(root)  # the buffer's rows, while it is open
    codemap.apply_edit("shop.py", (1, 8), (1, 14), "repay", defer=True)
    codemap.close()  # owed edits and all: the disk's content again
    assert stored_names(root) == {"Shop", "sell", "main"}


def test_a_lost_buffer_with_owed_facts_is_reconciled_by_the_next_code_map(
    workspace: Callable[..., Path]
) -> None:
    """A server killed with owed edits leaves its last settled buffer rows, marked as
    its buffer's: the next code map to open finds nobody holding them and re-reads."""
    root = workspace({"shop.py": SOURCE})
    lost = CodeMap.open(root)
    lost.index()
    lost.open_document("shop.py", SOURCE)
    type_method(lost)
    lost.settle()
    lost.apply_edit("shop.py", (1, 8), (1, 14), "repay", defer=True)
    lost._store.close()  # gone without closing its buffer (as a killed server)
    with CodeMap.open(root) as after:
        assert after.find_symbol("refund") == [] and after.find_symbol("repay") == []
        assert {s.name for s in after.symbols_in(["shop.py"])} == {"Shop", "sell", "main"}
