"""Forgetting: archive after 30 unused days, disable after 90, capacity, demotion, purge."""

from __future__ import annotations

from codekeep.memory import MemoryService


def _status(service: MemoryService, memory_id: str | None) -> str:
    memory = service.get(memory_id or "")
    assert memory is not None
    return memory.status


def test_unused_memories_are_archived_after_30_days(service: MemoryService, clock) -> None:
    result = service.remember("Old deployment notes for the v1 cluster")
    clock.advance(29)
    service.maintain()
    assert _status(service, result.id) == "active"
    clock.advance(2)
    report = service.maintain()
    assert report.archived == 1
    assert _status(service, result.id) == "archived"
    assert service.recall("deployment cluster") == []


def test_archived_memories_are_disabled_after_90_days(service: MemoryService, clock) -> None:
    result = service.remember("The v0 API used XML payloads")
    clock.advance(31)
    service.maintain()
    clock.advance(60)
    service.maintain()
    assert _status(service, result.id) == "disabled"
    assert [h["action"] for h in service.history(result.id or "")][-2:] == [
        "ARCHIVE_UNUSED",
        "DISABLE_UNUSED",
    ]


def test_being_recalled_counts_as_use(service: MemoryService, clock) -> None:
    result = service.remember("Search indexes are rebuilt nightly by cron")
    clock.advance(20)
    assert service.recall("search indexes")
    clock.advance(25)  # 45 days old, but used 25 days ago
    service.maintain()
    assert _status(service, result.id) == "active"


def test_preferences_and_notes_do_not_decay(service: MemoryService, clock) -> None:
    pref = service.remember("verbosity: concise", kind="preference")
    clock.advance(200)
    service.maintain()
    assert _status(service, pref.id) == "active"


def test_capacity_evicts_lowest_access_times_importance(make_service, clock) -> None:
    service = make_service(capacity_per_scope=3)
    keep_important = service.remember("alpha service owns the billing tables", importance=9)
    keep_used = service.remember("beta worker consumes the email queue", importance=2)
    for _ in range(4):
        service.recall("beta worker email queue")
    evicted = service.remember("gamma script rotates the log files", importance=2)
    clock.advance(0.01)
    newest = service.remember("delta job refreshes exchange rates", importance=3)
    assert _status(service, evicted.id) == "archived"
    for kept in (keep_important, keep_used, newest):
        assert _status(service, kept.id) == "active"
    assert "EVICT_CAPACITY" in [h["action"] for h in service.history(evicted.id or "")]


def test_capacity_default_is_500_active_per_scope(service: MemoryService) -> None:
    for number in range(501):
        service.remember(f"component{number} is owned by team{number}", importance=5)
    assert len(service.list(limit=1000)) == 500
    assert len(service.list(statuses=["archived"], limit=1000)) == 1


def test_purge_is_the_only_physical_delete(service: MemoryService) -> None:
    old = service.remember("use npm")
    new = service.remember("don't use npm")
    gone = service.remember("temporary note about the migration")
    service.forget(gone.id or "")
    assert service.count() == 2  # one superseded, one disabled
    assert service.purge() == 2
    assert service.get(old.id or "") is None and service.get(gone.id or "") is None
    assert _status(service, new.id) == "active"
    assert [h["action"] for h in service.history(old.id or "")] == ["PURGE"]


def test_memory_with_a_lifetime_expires_unless_seen_again(service: MemoryService, clock) -> None:
    short = service.remember("The staging cluster is being migrated this week", ttl_days=5)
    renewed = service.remember("The release branch is frozen for the audit", ttl_days=5)
    clock.advance(4)
    assert service.remember("The release branch is frozen for the audit").action == "REINFORCE"
    clock.advance(2)  # 6 days after writing, 2 after the renewal
    assert [h.memory.id for h in service.recall("staging cluster migrated")] == []
    assert [h.memory.id for h in service.recall("release branch frozen")] == [renewed.id]
    service.maintain()
    assert _status(service, short.id) == "archived"
    assert "EXPIRE" in [h["action"] for h in service.history(short.id or "")]


def test_memories_for_a_file_include_its_symbols(service: MemoryService) -> None:
    by_file = service.remember("cart.py is generated; never edit by hand", files=["shop/cart.py"])
    by_symbol = service.remember("checkout is idempotent", symbols=["shop/cart.py::checkout"])
    service.remember("unrelated", files=["shop/other.py"])
    assert {m.id for m in service.memories_for_file("shop/cart.py")} == {by_file.id, by_symbol.id}
