"""The knowledge base's knobs, read from the ``docs`` section of the settings.

``{"enabled": bool, "docstrings": bool, "chunkTokens": n, "overlapTokens": n,
"expand": "off" | "multi-query" | "hyde" | "both", "embeddings": {...}}``. ``expand``
asks the agent's model to rewrite each question first (the doors do it, through the
ledger: see ``codekeep.agent.docs_expansion``); off by default.
Embeddings reuse memory's endpoint setting shape (``{"url", "model"?, "apiKey"?}``;
absent: the ``CODEKEEP_EMBEDDINGS_*`` environment, as for memory).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from codekeep.docs.chunking import ChunkSizes
from codekeep.memory.settings import EmbeddingSettings

Expansion = Literal["off", "multi-query", "hyde", "both"]
EXPANSIONS: tuple[Expansion, ...] = ("off", "multi-query", "hyde", "both")


@dataclass(frozen=True, slots=True)
class DocsSettings:
    enabled: bool = True
    sizes: ChunkSizes = field(default_factory=ChunkSizes)
    docstrings: bool = True  # Python module and class docstrings are docs too
    expand: Expansion = "off"
    embeddings: EmbeddingSettings | None = None
    # BM25 column weights: document title, words of the path, heading path, body.
    weights: tuple[float, float, float, float] = (4.0, 2.0, 3.0, 1.0)
    rrf_k: int = 60
    # Candidates taken from each ranking before fusion, per result asked for (seed 003's
    # candidate_pool_multiplier).
    pool_multiplier: int = 4
    min_pool: int = 40
    per_page: int = 2  # chunks of one page before the other pages had their turn

    @classmethod
    def from_json(cls, data: Any) -> DocsSettings:
        """Parse the ``docs`` section; ``ValueError`` names a key with a wrong value."""
        if data is None:
            return cls(embeddings=EmbeddingSettings.from_env())
        if not isinstance(data, Mapping):
            raise ValueError(f"docs settings must be an object, got {type(data).__name__}")
        known = {"enabled", "docstrings", "chunkTokens", "overlapTokens", "expand",
                 "embeddings"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown docs settings: {', '.join(map(str, unknown))}")
        for key in ("enabled", "docstrings"):
            if key in data and not isinstance(data[key], bool):
                raise ValueError(f"docs setting {key} must be true or false")
        defaults = ChunkSizes()
        chunk = _count(data, "chunkTokens", defaults.chunk_tokens, minimum=32)
        overlap = _count(data, "overlapTokens", defaults.overlap_tokens, minimum=0)
        if overlap >= chunk:
            raise ValueError("docs setting overlapTokens must be smaller than chunkTokens")
        return cls(
            enabled=data.get("enabled", True),
            sizes=ChunkSizes(chunk, overlap),
            docstrings=data.get("docstrings", True),
            expand=expansion(data.get("expand", "off")),
            embeddings=EmbeddingSettings.from_json(data.get("embeddings")),
        )


def expansion(value: Any) -> Expansion:
    """``value`` as an expansion mode; ``ValueError`` naming the choices otherwise."""
    for mode in EXPANSIONS:
        if value == mode:
            return mode
    raise ValueError(f"docs expand must be one of {', '.join(EXPANSIONS)}, got {value!r}")


def _count(data: Mapping[str, Any], key: str, default: int, *, minimum: int) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"docs setting {key} must be a whole number of at least {minimum}")
    return value
