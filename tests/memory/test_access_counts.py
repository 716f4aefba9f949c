"""Recall counts its results without writing: the counts are queued, seen by every read,
carried by the next write, and on disk after a clean shutdown."""

from __future__ import annotations

import sqlite3
import time

import pytest

from codekeep.memory import MemoryService
from codekeep.memory.store import access
from tests.memory.conftest import Clock


def _on_disk(service: MemoryService, memory_id: str) -> tuple[int, float | None]:
    """What another process reading memory.db would see."""
    conn = sqlite3.connect(service.project.path)
    try:
        row = conn.execute(
            "SELECT access_count, last_accessed_at FROM memories WHERE id = ?", (memory_id,)
        ).fetchone()
    finally:
        conn.close()
    return int(row[0]), row[1]


def _writes(statements: list[str]) -> list[str]:
    return [s for s in statements if s.split(None, 1)[0].upper() in ("BEGIN", "UPDATE", "INSERT")]


def test_a_recall_writes_nothing_yet_reads_see_its_counts(
    service: MemoryService, clock: Clock
) -> None:
    memory_id = service.remember("Feature flags are read from config/flags.yaml").id or ""
    clock.advance(14)
    traced: list[str] = []
    service.project.conn.set_trace_callback(traced.append)
    (first,) = service.recall("feature flags")
    (second,) = service.recall("feature flags")
    service.project.conn.set_trace_callback(None)
    assert _writes(traced) == []
    assert first.parts.recency == pytest.approx(0.25)
    assert second.parts.recency == 1.0  # the queued recall counts as use, as a write did
    memory = service.get(memory_id)
    assert memory is not None and (memory.access_count, memory.last_accessed_at) == (2, clock.now)
    assert _on_disk(service, memory_id) == (0, None)


def test_the_next_write_carries_the_queued_counts(service: MemoryService, clock: Clock) -> None:
    memory_id = service.remember("The billing job retries three times").id or ""
    service.recall("billing job")
    clock.advance(1)
    service.remember("Invoices are rendered with weasyprint")
    assert _on_disk(service, memory_id) == (1, clock.now - 86_400)
    assert service.get(memory_id).access_count == 1  # type: ignore[union-attr]  # not twice


def test_a_clean_shutdown_keeps_every_count(make_service, clock: Clock) -> None:
    service: MemoryService = make_service()
    memory_id = service.remember("Deploys go through the release branch").id or ""
    for _ in range(3):
        service.recall("release branch deploys")
    service.close()
    reopened: MemoryService = make_service()
    memory = reopened.get(memory_id)
    assert memory is not None and (memory.access_count, memory.last_accessed_at) == (3, clock.now)


def test_a_failed_write_queues_the_counts_again(service: MemoryService, clock: Clock) -> None:
    memory_id = service.remember("Sessions expire after one hour").id or ""
    service.recall("sessions expire")
    store = service.project
    with pytest.raises(RuntimeError), store.transaction():
        raise RuntimeError("the write this count rode on failed")
    assert _on_disk(service, memory_id) == (0, None)
    assert service.get(memory_id).access_count == 1  # type: ignore[union-attr]
    service.recall("sessions expire")
    store.flush_access()
    assert _on_disk(service, memory_id) == (2, clock.now)


def test_a_long_queue_is_written_by_the_recall_that_fills_it(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory_id = service.remember("Uploads are streamed to object storage").id or ""
    monkeypatch.setattr(access, "MAX_QUEUED", 1)
    service.recall("uploads streamed")
    assert _on_disk(service, memory_id)[0] == 1


def test_an_old_queue_is_written_by_the_next_recall(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory_id = service.remember("Metrics are scraped every fifteen seconds").id or ""
    monkeypatch.setattr(access, "MAX_AGE_SECONDS", 1.0)
    service.recall("metrics scraped")
    assert _on_disk(service, memory_id)[0] == 0
    time.sleep(1.0)
    service.recall("metrics scraped")
    assert _on_disk(service, memory_id)[0] == 2
