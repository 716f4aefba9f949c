"""Retrieval scoring: ``score = 0.2·recency + 0.3·importance + 0.5·relevance``.

* recency    = exp(−ln2 · age_days / half_life), half-life 7 days, age measured from
               the last time the memory was seen (reinforced) or used (recalled);
* importance = (importance − 1) / 9, i.e. 1..10 mapped onto 0..1;
* relevance  = reciprocal-rank fusion of the ranked lists that were consulted
               (FTS5 BM25, structured file/symbol matches, embeddings when configured):
               Σ 1/(k + rank) divided by its maximum L/(k + 1), so a memory ranked
               first by every list has relevance 1.0. k = 10 keeps rank differences
               visible for the short lists memory deals with.

A memory with live "not this" feedback has its final score multiplied by 0.5.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from codekeep.memory.model import ScoreParts
from codekeep.settings.memory import DAY, MemorySettings


def recency(age_seconds: float, half_life_days: float) -> float:
    age_days = max(0.0, age_seconds) / DAY
    return math.exp(-math.log(2) * age_days / half_life_days)


def importance_norm(importance: int) -> float:
    return (min(10, max(1, importance)) - 1) / 9


def rrf_relevance(ranks: Sequence[int | None], k: int) -> float:
    """Fused relevance from 1-based ranks, one per consulted list (None = not in it)."""
    if not ranks:
        return 0.0
    total = sum(1.0 / (k + rank) for rank in ranks if rank is not None)
    return total / (len(ranks) / (k + 1))


def combine(parts: ScoreParts, settings: MemorySettings, negative: bool) -> float:
    score = (
        settings.weight_recency * parts.recency
        + settings.weight_importance * parts.importance
        + settings.weight_relevance * parts.relevance
    )
    return score * settings.negative_factor if negative else score
