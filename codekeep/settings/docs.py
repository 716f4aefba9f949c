"""The knowledge base's knobs (``codekeep.docs``; every key in docs/settings.md).

``expand`` asks the agent's model to rewrite each question first (the doors do it,
through the ledger: see ``codekeep.agent.docs_expansion``); off by default. Embeddings
have memory's endpoint shape and environment variables (``CODEKEEP_EMBEDDINGS_*``), so
one endpoint serves both unless ``docs.embeddings`` says otherwise.
The ranking constants below the settings are tuned by code and tests only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from codekeep.settings.fields import SettingsError, check_bounds, section, setting
from codekeep.settings.memory import EmbeddingSettings, Provider

Expansion = Literal["off", "multi-query", "hyde", "both"]
EXPANSIONS: tuple[Expansion, ...] = ("off", "multi-query", "hyde", "both")


@dataclass(frozen=True, slots=True)
class DocsEmbeddingSettings(EmbeddingSettings):
    """Memory's embedding settings with ``auto`` as the provider: the knowledge base uses
    the local model as soon as its files are installed (``codekeep models install``),
    with no setting to write. Memory keeps ``endpoint``: a hook is a fresh process that
    must answer in ~100 ms, and loading the model would cost it a second."""

    provider: Provider = setting(
        "`auto`: the `url` below when set, else the local all-MiniLM-L6-v2 model when "
        "its files are installed (`codekeep models install`), else lexical only; "
        "`endpoint`: only the `url`; `local`: only the local model.",
        default="auto", env=("CODEKEEP_EMBEDDINGS_PROVIDER",))


@dataclass(frozen=True, slots=True)
class DocsSettings:
    enabled: bool = setting("Index the project's documentation (Markdown, reST, AsciiDoc, "
                            "text) for `codekeep docs` and the agent.", default=True)
    docstrings: bool = setting("Python module and class docstrings are docs too.",
                               default=True)
    expand: Expansion = setting(
        "Rewrite each question with the agent's model first (multi-query, HyDE or both; "
        "recorded in the ledger).", default="off")
    chunk_tokens: int = setting("Tokens per chunk a document is cut into.", default=350,
                                minimum=32)
    overlap_tokens: int = setting(
        "Tokens a chunk repeats from the one before (smaller than `docs.chunkTokens`).",
        default=60, minimum=0)
    embeddings: DocsEmbeddingSettings = section(
        DocsEmbeddingSettings, "Embedding relevance for docs search (the local model by "
        "default once installed).")
    # BM25 column weights: document title, words of the path, heading path, body.
    weights: tuple[float, float, float, float] = (4.0, 2.0, 3.0, 1.0)
    rrf_k: int = 10
    # Candidates taken from each ranking before fusion, per result asked for.
    pool_multiplier: int = 4
    min_pool: int = 40
    per_page: int = 1  # chunks of one page before the other pages had their turn
    # Fused scores of release notes / changelogs (``formats.is_release_notes``) times this.
    release_notes_weight: float = 0.5

    def __post_init__(self) -> None:
        check_bounds(self)
        if self.overlap_tokens >= self.chunk_tokens:
            raise SettingsError("overlapTokens must be smaller than chunkTokens")


def expansion(value: Any) -> Expansion:
    """``value`` as an expansion mode (a request's or a flag's); ``ValueError`` otherwise."""
    for mode in EXPANSIONS:
        if value == mode:
            return mode
    raise ValueError(f"docs expand must be one of {', '.join(EXPANSIONS)}, got {value!r}")
