"""Every threshold of the memory system in one place.

Tests build a ``MemorySettings`` to change a threshold or inject a clock; nothing else
in the package hard-codes these numbers. Only fields declared with ``setting`` /
``section`` are user settings (``codekeep.memory.*``, see docs/settings.md); the
thresholds come from the design documents.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from codekeep.settings.fields import section, setting

DAY = 86_400.0
SUMMARY_THRESHOLD_TOKENS = 8_000  # summarise a backlog above this


Provider = Literal["auto", "endpoint", "local"]


@dataclass(frozen=True, slots=True)
class EmbeddingSettings:
    """Where vectors come from: an OpenAI-compatible ``POST {url}/embeddings`` endpoint
    (no ``url`` = lexical only), or ``provider = "local"``, the bundled all-MiniLM-L6-v2
    run in-process (``codekeep.embeddings.local_model``; no server, no network)."""

    provider: Provider = setting(
        "`endpoint`: the OpenAI-compatible `url` below; `local`: the all-MiniLM-L6-v2 "
        "model run in-process on the CPU (`codekeep models install` fetches its weights; "
        "`url` is then not used); `auto`: the `url` when set, else the local model when "
        "its files are installed, else lexical only.",
        default="endpoint", env=("CODEKEEP_EMBEDDINGS_PROVIDER",))
    url: str | None = setting(
        "OpenAI-compatible endpoint (its `/embeddings`), e.g. `http://127.0.0.1:8080/v1`; "
        "unset: relevance is lexical only.", default=None, env=("CODEKEEP_EMBEDDINGS_URL",))
    model: str = setting("Embedding model name.", default="text-embedding-3-small",
                         env=("CODEKEEP_EMBEDDINGS_MODEL",))
    api_key: str | None = setting(
        "Key sent as a bearer token.", default=None, secret=True,
        env=("CODEKEEP_EMBEDDINGS_API_KEY", "OPENAI_API_KEY"))
    timeout: float = setting(
        "Seconds an embeddings request may take before recall answers lexically.",
        default=10.0, above=0.0, env=("CODEKEEP_EMBEDDINGS_TIMEOUT",))
    candidates: int = 500  # most recently seen memories scored by cosine per recall

    @property
    def endpoint(self) -> str | None:
        """``{url}/embeddings`` (a trailing slash in the setting is fine), None when off
        or when the local model is used instead."""
        url = (self.url or "").strip().rstrip("/")
        return f"{url}/embeddings" if url and self.provider != "local" else None


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
    summary_threshold_tokens: int = setting(
        "Unsummarised event tokens of a task that trigger a summary.",
        default=SUMMARY_THRESHOLD_TOKENS, minimum=1)
    summary_min_ratio: float = 3.0
    promotion_count: int = 5
    extraction_support: int = 2  # an extracted memory is knowledge once seen in a 2nd task
    model_summaries: bool = setting(
        "Let a configured model write task summaries, context distillations and "
        "conversation extraction (off: the rule-based ones only).", default=True)
    demote_after_days: float = 30.0
    # capacity and forgetting
    capacity_per_scope: int = 500
    archive_after_days: float = 30.0
    disable_after_days: float = 90.0
    # working memory and coordinator
    observation_window: int = 20
    default_budget: int = 4_000
    embeddings: EmbeddingSettings = section(
        EmbeddingSettings, "Optional embedding relevance for recall.")
    clock: Callable[[], float] = field(default=time.time)
