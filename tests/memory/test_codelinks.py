"""Links follow renames and moves; a vanished symbol makes the memory stale in recall."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from codekeep.memory import MemoryService


def _changes(**fields: object) -> SimpleNamespace:
    base: dict[str, object] = {
        "added": [],
        "removed": [],
        "renamed_files": [],
        "deleted_files": [],
        "symbol_renames": {},
    }
    base.update(fields)
    return SimpleNamespace(**base)


def _symbol(symbol_id: str) -> SimpleNamespace:
    return SimpleNamespace(id=symbol_id, path=symbol_id.split("::")[0])


def test_file_move_rewrites_file_and_symbol_links(service: MemoryService) -> None:
    result = service.remember(
        "parse_config must stay side-effect free",
        files=["src/config.py"],
        symbols=["src/config.py::parse_config"],
    )
    service.apply_code_changes(
        _changes(renamed_files=[("src/config.py", "src/settings/config.py")])
    )
    memory = service.get(result.id or "")
    assert memory is not None
    assert memory.files == ["src/settings/config.py"]
    assert memory.symbols == ["src/settings/config.py::parse_config"]
    assert service.counts_for_symbols(["src/settings/config.py::parse_config"]) == {
        "src/settings/config.py::parse_config": 1
    }


def test_directory_rename_moves_everything_under_it(service: MemoryService) -> None:
    result = service.remember(
        "The legacy package is frozen", files=["legacy/a.py", "legacy/sub/b.py"]
    )
    service.apply_code_changes(_changes(renamed_files=[("legacy", "old_legacy")]))
    memory = service.get(result.id or "")
    assert memory is not None and memory.files == ["old_legacy/a.py", "old_legacy/sub/b.py"]


def test_symbol_rename_follows_the_symbol(service: MemoryService) -> None:
    result = service.remember("Retry uses jitter", symbols=["net.py::Client.retry"])
    service.apply_code_changes(
        _changes(symbol_renames={"net.py::Client.retry": "net.py::Client.retry_call"})
    )
    assert service.memories_for_symbol("net.py::Client.retry_call")[0].id == result.id
    assert service.memories_for_symbol("net.py::Client.retry") == []


def test_removed_symbol_marks_the_memory_stale_and_its_return_clears_it(
    service: MemoryService,
) -> None:
    service.remember("compute_total rounds half-even", symbols=["billing.py::compute_total"])
    service.apply_code_changes(_changes(removed=[_symbol("billing.py::compute_total")]))
    (hit,) = service.recall("compute_total rounding")
    assert "stale" in hit.to_json()["flags"]
    assert hit.memory.stale_symbols == ["billing.py::compute_total"]
    service.apply_code_changes(_changes(added=[_symbol("billing.py::compute_total")]))
    (hit,) = service.recall("compute_total rounding")
    assert "stale" not in hit.memory.flags


def test_symbol_moved_between_updates_is_not_stale(service: MemoryService) -> None:
    service.remember("helper is memoised", symbols=["util.py::helper"])
    sym = _symbol("util.py::helper")
    service.apply_code_changes(_changes(removed=[sym], added=[sym]))
    assert "stale" not in service.recall("helper memoised")[0].memory.flags


def test_deleted_file_marks_file_and_symbol_links_stale(service: MemoryService) -> None:
    service.remember(
        "The importer is slow", files=["tools/importer.py"], symbols=["tools/importer.py::run"]
    )
    service.apply_code_changes(_changes(deleted_files=["tools/importer.py"]))
    (hit,) = service.recall("importer slow")
    assert hit.memory.stale_files == ["tools/importer.py"]
    assert hit.memory.stale_symbols == ["tools/importer.py::run"]


def test_real_code_map_rename_and_delete_reach_memory(
    service: MemoryService, workspace: Path
) -> None:
    from codekeep.analysis.codemap import CodeMap

    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "shop.py").write_text("def checkout(cart):\n    return sum(cart)\n")
    codemap = CodeMap.open(workspace)
    try:
        codemap.index()
        (symbol,) = codemap.find_symbol("checkout")
        codemap.subscribe(service.apply_code_changes)
        result = service.remember(
            "checkout must not call the network", symbols=[symbol.id], files=[symbol.path]
        )
        (workspace / "pkg" / "shop.py").rename(workspace / "pkg" / "store.py")
        codemap.rename_file("pkg/shop.py", "pkg/store.py")
        memory = service.get(result.id or "")
        assert memory is not None
        assert memory.files == ["pkg/store.py"] and memory.symbols == ["pkg/store.py::checkout"]
        (workspace / "pkg" / "store.py").write_text("def pay(cart):\n    return 0\n")
        codemap.refresh_file("pkg/store.py")
        (hit,) = service.recall("checkout network")
        assert "stale" in hit.memory.flags
    finally:
        codemap.close()


def test_directory_rename_leaves_a_sibling_with_the_same_name_start(service: MemoryService) -> None:
    moved = service.remember(
        "Billing totals are cents", files=["pkg/billing.py"], symbols=["pkg/billing.py::total"]
    )
    kept = service.remember(
        "The pkg_tools scripts are throwaway",
        files=["pkg_tools/run.py"],
        symbols=["pkg_tools/run.py::main", "pkg%/odd.py::f"],
    )
    service.apply_code_changes(_changes(renamed_files=[("pkg", "core")]))
    first, second = service.get(moved.id or ""), service.get(kept.id or "")
    assert first is not None and second is not None
    assert (first.files, first.symbols) == (["core/billing.py"], ["core/billing.py::total"])
    assert second.files == ["pkg_tools/run.py"]
    assert second.symbols == ["pkg%/odd.py::f", "pkg_tools/run.py::main"]


def test_symbols_of_a_file_are_found_by_prefix_without_wildcards(service: MemoryService) -> None:
    """``_`` and ``%`` in a path are plain characters, not LIKE wildcards."""
    wanted = service.remember("a_b keeps order", symbols=["src/a_b.py::Queue.push"])
    service.remember("axb is unrelated", symbols=["src/axb.py::Queue.push"])
    assert [m.id for m in service.memories_for_file("src/a_b.py")] == [wanted.id]
