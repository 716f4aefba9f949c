"""Every threshold of the memory system in one place (values from the seed documents).

Tests and the server build a ``MemorySettings`` to change a threshold or inject a
clock; nothing else in the package hard-codes these numbers.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

DAY = 86_400.0
SUMMARY_THRESHOLD_TOKENS = 8_000  # seed 004 §3.2: summarise a backlog above this


@dataclass(frozen=True, slots=True)
class EmbeddingSettings:
    """An OpenAI-compatible ``POST {url}/embeddings`` endpoint; absent = lexical only."""

    url: str
    model: str
    api_key: str | None = None
    timeout: float = 10.0
    candidates: int = 500  # most recently seen memories scored by cosine per recall

    @classmethod
    def from_env(cls) -> EmbeddingSettings | None:
        url = os.environ.get("CODEKEEP_EMBEDDINGS_URL")
        if not url:
            return None
        return cls(
            url=url.rstrip("/"),
            model=os.environ.get("CODEKEEP_EMBEDDINGS_MODEL", "text-embedding-3-small"),
            api_key=os.environ.get("CODEKEEP_EMBEDDINGS_API_KEY")
            or os.environ.get("OPENAI_API_KEY"),
        )

    @classmethod
    def from_json(cls, data: Any) -> EmbeddingSettings | None:
        """``{"url", "model"?, "apiKey"?}`` from the editor; None/absent: the environment.

        Raises ``ValueError`` naming the key when a value has the wrong shape, so a typo
        in the editor's settings is reported instead of silently recalling lexically.
        """
        if data is None:
            return cls.from_env()
        _check_keys(data, "memory.embeddings", {"url", "model", "apiKey"})
        url = data.get("url")
        if not isinstance(url, str) or not url.strip():
            raise ValueError("memory setting embeddings.url must be a non-empty string")
        for key in ("model", "apiKey"):
            if data.get(key) is not None and not isinstance(data[key], str):
                raise ValueError(f"memory setting embeddings.{key} must be a string")
        return cls(
            url=url.strip().rstrip("/"),
            model=data.get("model") or "text-embedding-3-small",
            api_key=data.get("apiKey") or None,
        )


@dataclass(frozen=True, slots=True)
class MemorySettings:
    # write path
    min_confidence: float = 0.7
    update_similarity: float = 0.85
    merge_similarity: float = 0.60
    # retrieval: score = w_r·recency + w_i·importance + w_v·relevance
    weight_recency: float = 0.2
    weight_importance: float = 0.3
    weight_relevance: float = 0.5
    half_life_days: float = 7.0
    rrf_k: int = 10
    negative_factor: float = 0.5
    # layers
    summary_threshold_tokens: int = SUMMARY_THRESHOLD_TOKENS
    summary_min_ratio: float = 3.0
    promotion_count: int = 5
    extraction_support: int = 2  # an extracted memory is knowledge once seen in a 2nd task
    model_summaries: bool = True  # summaries/distillation/extraction by the model, if any
    demote_after_days: float = 30.0
    # capacity and forgetting
    capacity_per_scope: int = 500
    archive_after_days: float = 30.0
    disable_after_days: float = 90.0
    # working memory and coordinator
    observation_window: int = 20
    default_budget: int = 4_000
    embeddings: EmbeddingSettings | None = None
    clock: Callable[[], float] = field(default=time.time)

    @classmethod
    def from_json(cls, data: Any) -> MemorySettings:
        """The ``memory`` object of the editor settings: ``{"embeddings": {...},
        "modelSummaries": true, "summaryThresholdTokens": 8000}``.

        User settings: the embedding endpoint, whether a configured model writes the
        summaries, context distillations and conversation extraction (``modelSummaries``,
        default true), and the backlog size that triggers a summary
        (``summaryThresholdTokens``, default 8,000; seed 004 §3.2, §7.1 problem 3). The
        other thresholds come from the design documents. Absent sections fall back to the
        environment (``CODEKEEP_EMBEDDINGS_URL`` ...). Raises ``ValueError`` naming a bad key.
        """
        if data is None:
            return cls(embeddings=EmbeddingSettings.from_env())
        _check_keys(data, "memory", {"embeddings", "modelSummaries", "summaryThresholdTokens"})
        model = data.get("modelSummaries", True)
        if not isinstance(model, bool):
            raise ValueError("memory setting modelSummaries must be true or false")
        threshold = data.get("summaryThresholdTokens", SUMMARY_THRESHOLD_TOKENS)
        if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 1:
            raise ValueError("memory setting summaryThresholdTokens must be a positive integer")
        return cls(embeddings=EmbeddingSettings.from_json(data.get("embeddings")),
                   model_summaries=model, summary_threshold_tokens=threshold)


def _check_keys(data: Any, section: str, known: set[str]) -> None:
    if not isinstance(data, Mapping):
        raise ValueError(f"{section} settings must be an object, got {type(data).__name__}")
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown {section} settings: {', '.join(map(str, unknown))}")
