"""The public CodeMap API on a small multi-file Python project (real files, real index)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from codekeep.analysis import ChangeSet, CodeMap, UnknownPathError

PROJECT = {
    "shop/__init__.py": "",
    "shop/models.py": '''
        """Models."""
        MAX_ITEMS = 10


        class Cart:
            def __init__(self) -> None:
                self.items = []

            def add(self, item: "Item") -> None:
                self.items.append(item)
                self.total()

            def total(self) -> int:
                return len(self.items)


        class Item:
            pass


        def make_cart() -> Cart:
            return Cart()
        ''',
    "shop/checkout.py": '''
        from shop.models import Cart, make_cart


        def checkout(cart: Cart) -> int:
            cart.add(None)
            return cart.total()


        def quick() -> int:
            return checkout(make_cart())
        ''',
    "other/legacy.py": '''
        def make_cart():
            return None


        def use():
            return make_cart()
        ''',
}


@pytest.fixture
def codemap(workspace: Callable[..., Path], open_map: Callable[..., CodeMap]) -> CodeMap:
    codemap = open_map(workspace(PROJECT))
    codemap.index()
    return codemap


def test_index_counts_files_symbols_and_languages(codemap: CodeMap) -> None:
    status = codemap.status()
    assert status.files == 4
    assert status.languages == {"python": 4}
    assert status.ready and status.pending == 0
    assert status.symbols == 11
    assert (codemap.root / ".codekeep" / "index.db").is_file()
    assert (codemap.root / ".codekeep" / ".gitignore").is_file()


def test_status_counts_follow_writes_here_and_by_another_process(
        codemap: CodeMap, open_map: Callable[..., CodeMap]) -> None:
    # the counts are kept between writes: a write here or through another connection
    # (another server, the CLI) must show in the next status
    assert codemap.status().symbols == 11
    (codemap.root / "shop/extra.py").write_text("def one():\n    return 1\n")
    codemap.refresh_file("shop/extra.py")
    assert (codemap.status().files, codemap.status().symbols) == (5, 12)
    (codemap.root / "shop/more.py").write_text("def two():\n    return one()\n")
    other = open_map(codemap.root)
    other.refresh_file("shop/more.py")
    status = codemap.status()
    assert (status.files, status.symbols, status.references) == (6, 13, other.status().references)
    assert status.references > 0


def test_find_symbol_by_name_container_and_id(codemap: CodeMap) -> None:
    [cart] = codemap.find_symbol("Cart")
    assert (cart.id, cart.kind, cart.path, cart.container) == (
        "shop/models.py::Cart", "class", "shop/models.py", None)
    assert cart.signature == "class Cart"
    assert cart.range.start.line == 4 and cart.selection_range.start.byte_col == 6
    [add] = codemap.find_symbol("Cart.add")
    assert add.kind == "method" and add.container == "Cart"
    assert add.signature == 'def add(self, item: "Item") -> None'
    assert [s.id for s in codemap.find_symbol("shop/models.py::Cart.total")] == [
        "shop/models.py::Cart.total"]
    assert {s.path for s in codemap.find_symbol("make_cart")} == {
        "shop/models.py", "other/legacy.py"}
    assert codemap.find_symbol("make_cart", kind="class") == []
    assert codemap.find_symbol("nope") == []


def test_references_resolved_through_imports_come_first(codemap: CodeMap) -> None:
    refs, total = codemap.find_references(symbol_id="shop/models.py::make_cart")
    assert total == 2
    labelled = [(r.path, r.range.start.line, r.confidence) for r in refs]
    assert labelled == [
        ("shop/checkout.py", 0, "resolved"),   # the import
        ("shop/checkout.py", 9, "resolved"),   # the call
    ]  # other/legacy.py calls its own make_cart: no use of this one, not even by name
    assert refs[0].symbol_id == "shop/models.py::make_cart"
    limited, total = codemap.find_references(symbol_id="shop/models.py::make_cart", limit=1)
    assert len(limited) == 1 and total == 2
    legacy, _total = codemap.find_references(symbol_id="other/legacy.py::make_cart")
    assert [(r.path, r.range.start.line, r.confidence) for r in legacy] == [
        ("other/legacy.py", 5, "resolved")]


def test_references_by_name_pick_the_definition_each_use_follows(codemap: CodeMap) -> None:
    refs, _total = codemap.find_references(name="make_cart")
    targets = {(r.path, r.range.start.line): r.symbol_id for r in refs}
    assert targets[("other/legacy.py", 5)] == "other/legacy.py::make_cart"
    assert targets[("shop/checkout.py", 9)] == "shop/models.py::make_cart"
    assert codemap.find_references(symbol_id="missing.py::x") == ([], 0)


def test_method_uses_resolve_in_their_class_and_match_by_name_elsewhere(
    codemap: CodeMap,
) -> None:
    refs, _ = codemap.find_references(symbol_id="shop/models.py::Cart.total")
    # `self.total()` inside Cart is certain, and so is `cart.total()` on the parameter
    # annotated `cart: Cart` (python_scopes)
    assert {(r.path, r.confidence) for r in refs} == {
        ("shop/models.py", "resolved"), ("shop/checkout.py", "resolved")}


def test_find_related_gives_calls_callers_and_types(codemap: CodeMap) -> None:
    related = codemap.find_related("shop/checkout.py", 5)
    assert related.symbol is not None and related.symbol.id == "shop/checkout.py::checkout"
    assert [s.id for s in related.calls] == [
        "shop/models.py::Cart.add", "shop/models.py::Cart.total"]
    assert [s.id for s in related.called_by] == ["shop/checkout.py::quick"]
    assert "shop/models.py::Cart" in [s.id for s in related.related]
    method = codemap.find_related("shop/models.py", 10)
    assert method.symbol is not None and method.symbol.id == "shop/models.py::Cart.add"
    assert [s.id for s in method.calls] == ["shop/models.py::Cart.total"]
    assert [s.id for s in method.called_by] == ["shop/checkout.py::checkout"]
    assert [s.id for s in method.related] == [  # types it uses, its class, its siblings
        "shop/models.py::Item", "shop/models.py::Cart", "shop/models.py::Cart.__init__",
        "shop/models.py::Cart.total"]
    with pytest.raises(UnknownPathError):
        codemap.find_related("nope.py", 1)


def test_outline_is_in_source_order_with_containers(codemap: CodeMap) -> None:
    outline = [(s.id, s.kind) for s in codemap.symbols_in(["shop/models.py"])]
    assert outline == [
        ("shop/models.py::MAX_ITEMS", "constant"),
        ("shop/models.py::Cart", "class"),
        ("shop/models.py::Cart.__init__", "method"),
        ("shop/models.py::Cart.add", "method"),
        ("shop/models.py::Cart.total", "method"),
        ("shop/models.py::Item", "class"),
        ("shop/models.py::make_cart", "function"),
    ]
    assert len(codemap.symbols_in()) == 11
    with pytest.raises(UnknownPathError):
        codemap.symbols_in(["missing.py"])


def test_symbol_and_reference_at_a_position(codemap: CodeMap) -> None:
    inner = codemap.symbol_at("shop/models.py", 10, 8)
    assert inner is not None and inner.id == "shop/models.py::Cart.add"
    outer = codemap.symbol_at("shop/models.py", 5, 0)
    assert outer is not None and outer.id == "shop/models.py::Cart"
    assert codemap.symbol_at("shop/models.py", 0, 0) is None
    ref = codemap.reference_at("shop/checkout.py", 9, 20)
    assert ref is not None and ref.name == "make_cart" and ref.confidence == "resolved"
    assert ref.symbol_id == "shop/models.py::make_cart"
    assert codemap.reference_at("shop/checkout.py", 9, 2) is None


def test_json_shapes_follow_the_design(codemap: CodeMap) -> None:
    [cart] = codemap.find_symbol("Cart")
    data = cart.to_json(codemap.root)
    assert set(data) == {"id", "name", "kind", "path", "uri", "range", "selectionRange",
                         "signature", "container", "language"}
    assert data["uri"].startswith("file://") and data["uri"].endswith("/shop/models.py")
    assert data["range"]["start"] == {"line": 4, "character": 0}
    refs, _ = codemap.find_references(symbol_id=cart.id)
    assert {"path", "uri", "range", "symbolId", "confidence"} <= set(refs[0].to_json(
        codemap.root))
    assert set(codemap.status().to_json()) == {"files", "symbols", "references", "languages",
                                               "pending", "ready"}


def test_warm_start_reparses_nothing_and_sees_changes(
    codemap: CodeMap, open_map: Callable[..., CodeMap]
) -> None:
    codemap.close()
    again = open_map(codemap.root)
    stats = again.index()
    assert (stats.parsed, stats.unchanged, stats.removed) == (0, 4, 0)
    checkout = codemap.root / "shop/checkout.py"
    checkout.write_text(checkout.read_text() + "\n\ndef refund() -> None:\n    pass\n")
    (codemap.root / "other/legacy.py").unlink()
    stats = again.index()
    assert (stats.parsed, stats.removed) == (1, 1)
    assert [s.id for s in again.find_symbol("refund")] == ["shop/checkout.py::refund"]
    assert again.find_symbol("use") == []


def test_touched_but_identical_file_is_not_rewritten(codemap: CodeMap) -> None:
    path = codemap.root / "shop/models.py"
    path.write_text(path.read_text())  # new mtime, same bytes
    seen: list[ChangeSet] = []
    codemap.subscribe(seen.append)
    stats = codemap.index()
    assert stats.parsed == 0 and seen == []


def test_symbol_ids_survive_edits_that_do_not_rename(codemap: CodeMap) -> None:
    path = "shop/models.py"
    before = {s.id for s in codemap.symbols_in([path])}
    codemap.open_document(path, "# a new first line\n\n" + (codemap.root / path).read_text())
    assert {s.id for s in codemap.symbols_in([path])} == before
    [cart] = codemap.find_symbol("Cart")
    assert cart.range.start.line == 6


def test_subscribers_hear_added_and_removed_symbols(codemap: CodeMap) -> None:
    seen: list[ChangeSet] = []
    codemap.subscribe(seen.append)
    text = (codemap.root / "shop/checkout.py").read_text().replace("def quick", "def speedy")
    changes = codemap.open_document("shop/checkout.py", text)
    assert [s.id for s in changes.added] == ["shop/checkout.py::speedy"]
    assert [s.id for s in changes.removed] == ["shop/checkout.py::quick"]
    assert changes.changed_files == ["shop/checkout.py"]
    assert seen == [changes]


def test_delete_and_rename_files(codemap: CodeMap) -> None:
    renamed = codemap.rename_file("shop/checkout.py", "shop/pay.py")
    assert renamed.renamed_files == [("shop/checkout.py", "shop/pay.py")]
    assert renamed.symbol_renames["shop/checkout.py::checkout"] == "shop/pay.py::checkout"
    assert [s.id for s in codemap.find_symbol("checkout")] == ["shop/pay.py::checkout"]
    deleted = codemap.delete_file("other/legacy.py")
    assert deleted.deleted_files == ["other/legacy.py"]
    assert {s.id for s in deleted.removed} == {"other/legacy.py::make_cart",
                                               "other/legacy.py::use"}
    assert codemap.status().files == 3


def test_refresh_file_reads_the_disk(codemap: CodeMap) -> None:
    (codemap.root / "shop/extra.py").write_text("def fresh():\n    return 1\n")
    changes = codemap.refresh_file("shop/extra.py")
    assert [s.id for s in changes.added] == ["shop/extra.py::fresh"]
    (codemap.root / "shop/extra.py").unlink()
    assert codemap.refresh_file("shop/extra.py").deleted_files == ["shop/extra.py"]
    assert codemap.refresh_file("README.txt").is_empty()
