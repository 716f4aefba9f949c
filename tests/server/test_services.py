"""The per-workspace bundle both front doors use: wiring, settings changes, closing.

(How settings are read and checked: tests/settings.)"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from codekeep.services import WorkspaceServices
from codekeep.settings import Settings
from codekeep.settings.codemap import IndexSettings
from codekeep.settings.ledger import LedgerSettings
from codekeep.settings.memory import EmbeddingSettings, MemorySettings


def test_memory_follows_code_renames(tmp_path: Path) -> None:
    (tmp_path / "shapes.py").write_text("def area(r):\n    return r * r\n")
    services = WorkspaceServices.open(tmp_path)
    try:
        services.codemap.index()
        written = services.memory.remember(
            "area() takes a radius, not a diameter", kind="fact",
            symbols=["shapes.py::area"], files=["shapes.py"],
        )
        assert written.action != "REJECT", written.reason
        (tmp_path / "geometry.py").write_bytes((tmp_path / "shapes.py").read_bytes())
        (tmp_path / "shapes.py").unlink()
        services.codemap.rename_file("shapes.py", "geometry.py")
        assert [m.id for m in services.memory.memories_for_symbol("geometry.py::area")] == [
            written.id
        ]
    finally:
        services.close()
        services.close()  # a second close is harmless
    assert (tmp_path / ".codekeep" / "index.db").is_file()
    assert (tmp_path / ".codekeep" / "memory.db").is_file()
    assert (tmp_path / ".codekeep" / "ledger.db").is_file()


def test_settings_change_reopens_the_code_map_and_keeps_buffers(tmp_path: Path) -> None:
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "stub.py").write_text("def stub():\n    pass\n")
    (tmp_path / "app.py").write_text("def app():\n    pass\n")
    services = WorkspaceServices.open(
        tmp_path, Settings(index=IndexSettings(extra_exclude=("gen/",))))
    try:
        services.codemap.index()
        assert services.codemap.find_symbol("stub") == []
        services.codemap.open_document("app.py", "def unsaved():\n    pass\n")
        assert services.reconfigure(Settings(), open_paths=["app.py"])
        services.codemap.index()
        assert [s.path for s in services.codemap.find_symbol("stub")] == ["gen/stub.py"]
        assert [s.name for s in services.codemap.find_symbol("unsaved")] == ["unsaved"]
        assert not services.reconfigure(Settings(), open_paths=["app.py"])
    finally:
        services.close()


def test_changed_memory_and_ledger_sections_reopen_those_stores(tmp_path: Path) -> None:
    """One instance per store: a settings change replaces it (same database), and the
    folder's budget listeners follow the new ledger."""
    services = WorkspaceServices.open(tmp_path)
    events: list[tuple[str, float]] = []
    services.subscribe_budget(lambda event: events.append((event.scope, event.threshold)))
    try:
        memory, ledger = services.memory, services.ledger
        kept = memory.remember("Releases are cut on Tuesdays", kind="fact")
        ledger_changed = Settings(ledger=LedgerSettings(warn_ratios=(0.5,)))
        assert not services.reconfigure(ledger_changed)  # the index is unaffected
        assert services.memory is memory and services.ledger is not ledger
        services.ledger.set_budget(daily=100)
        services.ledger.record(task_id="t", call_type="plan", model="gpt-4o", input_tokens=60)
        assert events == [("daily", 0.5)]  # the new warn ratio, heard by the old listener

        embeddings = EmbeddingSettings(url="http://127.0.0.1:9/v1")
        services.reconfigure(replace(ledger_changed, memory=MemorySettings(embeddings=embeddings)))
        assert services.memory is not memory
        assert [m.id for m in services.memory.list()] == [kept.id]  # same database
    finally:
        services.close()


def test_a_held_ledger_is_replaced_only_once_released(tmp_path: Path) -> None:
    """A running agent task holds the stores: settings wait for it, then apply."""
    services = WorkspaceServices.open(tmp_path)
    try:
        _, memory, ledger = services.hold_stores()
        services.reconfigure(Settings(ledger=LedgerSettings(retention_days=7)))
        assert services.ledger is ledger and services.memory is memory
        ledger.record(task_id="t", call_type="plan", model="gpt-4o", input_tokens=5)  # still open
        services.release_stores()
        assert services.ledger is not ledger and services.memory is memory
        assert services.ledger.settings.retention_days == 7
        assert services.ledger.report(task_id="t")["total"]["calls"] == 1  # nothing lost
    finally:
        services.close()
