"""Recall scoring (0.2·recency + 0.3·importance + 0.5·relevance) against hand computation."""

from __future__ import annotations

import math

import pytest

from codekeep.memory import MemoryService
from codekeep.memory.scoring import importance_norm, recency, rrf_relevance
from codekeep.settings.memory import DAY


def test_recency_halves_every_seven_days() -> None:
    assert recency(0, 7) == 1.0
    assert recency(7 * DAY, 7) == pytest.approx(0.5)
    assert recency(14 * DAY, 7) == pytest.approx(0.25)
    assert recency(30 * DAY, 7) == pytest.approx(0.0513, abs=1e-4)  # 30 days old: ≈ 0.05


def test_importance_maps_one_to_ten_onto_zero_to_one() -> None:
    assert importance_norm(1) == 0.0
    assert importance_norm(10) == 1.0
    assert importance_norm(5) == pytest.approx(4 / 9)


def test_rrf_relevance_is_normalised_by_its_maximum() -> None:
    assert rrf_relevance([1], 10) == pytest.approx(1.0)
    assert rrf_relevance([2], 10) == pytest.approx(11 / 12)
    assert rrf_relevance([1, None], 10) == pytest.approx(0.5)
    assert rrf_relevance([2, 1], 10) == pytest.approx((1 / 12 + 1 / 11) / (2 / 11))


def test_score_of_a_week_old_important_match(service: MemoryService, clock) -> None:
    service.remember(
        "The payment module uses the Coordinator and Repository patterns", importance=10
    )
    clock.advance(7)
    (hit,) = service.recall("payment patterns")
    assert hit.parts.recency == pytest.approx(0.5)
    assert hit.parts.importance == 1.0
    assert hit.parts.relevance == 1.0
    assert hit.score == pytest.approx(0.2 * 0.5 + 0.3 * 1.0 + 0.5 * 1.0)  # 0.9
    assert hit.to_json()["scoreParts"] == {"recency": 0.5, "importance": 1.0, "relevance": 1.0}


def test_fts_and_file_matches_are_fused(service: MemoryService) -> None:
    short = service.remember("retry budget is three", importance=5)
    linked = service.remember(
        "the retry budget of the http client is configurable per call site",
        importance=5,
        files=["net/http.py"],
    )
    hits = {h.memory.id: h for h in service.recall("retry budget", files=["net/http.py"])}
    assert hits[short.id].parts.relevance == pytest.approx((1 / 11) / (2 / 11))
    assert hits[linked.id].parts.relevance == pytest.approx((1 / 12 + 1 / 11) / (2 / 11))
    ranked = service.recall("retry budget", files=["net/http.py"])
    assert ranked[0].memory.id == linked.id


def test_recall_counts_access_and_refreshes_recency(service: MemoryService, clock) -> None:
    result = service.remember("Feature flags are read from config/flags.yaml", importance=1)
    clock.advance(14)
    (first,) = service.recall("feature flags")
    assert first.parts.recency == pytest.approx(0.25)
    memory = service.get(result.id or "")
    assert memory is not None and memory.access_count == 1 and memory.last_accessed_at == clock.now
    (second,) = service.recall("feature flags")
    assert second.parts.recency == 1.0


def test_not_this_halves_the_score_shows_a_flag_and_is_reversible(service: MemoryService) -> None:
    result = service.remember("The flaky test is caused by the clock", importance=10)
    memory_id = result.id or ""
    (before,) = service.recall("flaky test clock")
    assert before.score == pytest.approx(1.0)
    assert service.not_this(memory_id, "it was the network")
    (after,) = service.recall("flaky test clock")
    assert after.score == pytest.approx(0.5)
    assert "not-this" in after.to_json()["flags"]
    assert service.undo_not_this(memory_id)
    (restored,) = service.recall("flaky test clock")
    assert restored.score == pytest.approx(1.0) and "not-this" not in restored.memory.flags
    assert service.get(memory_id) is not None  # never deleted


def test_superseded_disabled_and_archived_are_never_recalled(service: MemoryService) -> None:
    service.remember("use poetry")
    service.remember("don't use poetry")
    forgotten = service.remember("poetry lock files are committed")
    service.forget(forgotten.id or "")
    statuses = {hit.memory.status for hit in service.recall("poetry")}
    assert statuses == {"active"}
    assert [hit.memory.content for hit in service.recall("poetry")] == ["don't use poetry"]


def test_query_mentioning_a_file_or_symbol_uses_structured_links(service: MemoryService) -> None:
    result = service.remember("Keep this function pure", symbols=["app/billing.py::compute_total"])
    (hit,) = service.recall("why is compute_total pure")
    assert hit.memory.id == result.id
    (by_file,) = service.recall("anything about billing.py")
    assert by_file.memory.id == result.id


def test_empty_query_ranks_by_importance_and_recency(service: MemoryService) -> None:
    service.remember("low importance fact about logging", importance=1)
    service.remember("high importance fact about deployment", importance=9)
    ranked = service.recall("", limit=2)
    assert [h.memory.importance for h in ranked] == [9, 1]
    assert all(h.parts.relevance == 0.0 for h in ranked)
    assert math.isclose(ranked[0].score, 0.2 + 0.3 * 8 / 9)
