"""The one spelling of symbol ids: parse, format, numbering, renames and prefix queries."""

from __future__ import annotations

import sqlite3

import pytest

from codekeep.common.symbol_id import SymbolId, file_prefix, numbered, prefix_range, qualify


def test_round_trip_of_a_numbered_method() -> None:
    sid = SymbolId.parse("shop/inventory.py::Inventory.restock#2")
    assert (sid.path, sid.qual) == ("shop/inventory.py", "Inventory.restock#2")
    assert (sid.container, sid.name, sid.number) == ("Inventory", "restock", 2)
    assert sid.qualified == "Inventory.restock"
    assert str(sid) == "shop/inventory.py::Inventory.restock#2"
    assert SymbolId.of("shop/inventory.py", "restock", "Inventory", 2) == sid


def test_top_level_symbol_has_no_container_or_number() -> None:
    sid = SymbolId.of("app.py", "main")
    assert str(sid) == "app.py::main"
    assert (sid.container, sid.number, sid.parent) == (None, None, None)


def test_the_first_definition_is_not_numbered() -> None:
    assert numbered("A.f", 1) == numbered("A.f", None) == "A.f"
    assert numbered(qualify("f", "A"), 3) == "A.f#3"


def test_nested_containers_and_parent() -> None:
    sid = SymbolId.parse("src/app.ts::Outer.Inner.method")
    assert (sid.container, sid.name) == ("Outer.Inner", "method")
    assert sid.parent == SymbolId("src/app.ts", "Outer.Inner")


@pytest.mark.parametrize("text", ["no_separator", "::name", "path.py::", ""])
def test_text_that_is_not_an_id_is_refused_with_its_text(text: str) -> None:
    with pytest.raises(ValueError, match="not a symbol id"):
        SymbolId.parse(text)
    assert SymbolId.try_parse(text) is None


def test_rename_of_the_file_or_a_directory_above_it() -> None:
    sid = SymbolId.parse("pkg/billing.py::Invoice.total")
    assert sid.moved("pkg/billing.py", "pkg/invoices.py") == SymbolId.parse(
        "pkg/invoices.py::Invoice.total"
    )
    assert sid.moved("pkg", "core") == SymbolId.parse("core/billing.py::Invoice.total")
    assert sid.moved("pk", "x") is None  # a sibling whose name starts the same is not under it
    assert sid.moved("pkg/billing", "x") is None


def test_prefix_range_is_exactly_starts_with_and_needs_no_escaping() -> None:
    ids = [
        "a_b.py::f",
        "a_b.py::g#2",
        "a%b.py::f",
        "a_b.pyx::f",
        "a_b.py:x",
        "a_b.py;::f",
        "axb.py::f",
    ]
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (id TEXT PRIMARY KEY)")
    conn.executemany("INSERT INTO t VALUES (?)", [(i,) for i in ids])
    low, high = prefix_range(file_prefix("a_b.py"))
    found = [r[0] for r in conn.execute("SELECT id FROM t WHERE id >= ? AND id < ?", (low, high))]
    assert sorted(found) == ["a_b.py::f", "a_b.py::g#2"]
    assert sorted(found) == sorted(i for i in ids if i.startswith("a_b.py::"))
    with pytest.raises(ValueError):
        prefix_range("")
