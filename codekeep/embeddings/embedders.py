"""Optional embedding relevance through an OpenAI-compatible ``/embeddings`` endpoint.

Only used when :class:`EmbeddingSettings` is configured; any failure (network, bad
reply) makes the caller fall back to lexical relevance, never fail the recall.
Vectors are stored as float32 blobs; cosine similarity is computed in Python over a
bounded candidate set (the most recently seen memories), so no numeric library is needed.

The network request is an :class:`EmbeddingJob`: prepared from the store (on the thread
that owns it), sent from any thread (the server sends it off the folder's worker, so a
keystroke never waits for the endpoint), its :class:`Embedded` outcome handed back to
recall. Writes never call the endpoint: a memory without a vector is embedded by the next
recall, in the same request as the query.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from codekeep.embeddings.local_model import (
    MAX_TOKENS,
    MODEL_NAME,
    LocalModelUnavailable,
    chosen_by_default,
    shared_model,
)
from codekeep.settings.memory import EmbeddingSettings

BACKFILL_BATCH = 64


class EmbeddingError(RuntimeError):
    """The endpoint could not give us vectors; relevance falls back to lexical."""


class Embedder(Protocol):
    """What gives vectors: the endpoint client or the local model. ``name`` keys stored
    vectors, so vectors of another model are never compared with these."""

    @property
    def name(self) -> str: ...

    @property
    def timeout(self) -> float:
        """Seconds a caller waits for ``embed`` before it goes on lexically."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...

    def close(self) -> None: ...


class EmbeddingClient:
    def __init__(self, settings: EmbeddingSettings) -> None:
        if settings.endpoint is None:
            raise ValueError("embeddings need a url (memory.embeddings.url)")
        self.settings = settings
        self._endpoint = settings.endpoint
        import httpx  # only a configured endpoint pays for it (a hook starts in ~100 ms)

        headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
        self._http = httpx.Client(timeout=settings.timeout, headers=headers)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        import httpx

        try:
            response = self._http.post(
                self._endpoint,
                json={"model": self.settings.model, "input": list(texts)},
            )
            response.raise_for_status()
            data = sorted(response.json()["data"], key=lambda item: item.get("index", 0))
            vectors = [[float(x) for x in item["embedding"]] for item in data]
        except (httpx.HTTPError, KeyError, TypeError, ValueError) as exc:
            raise EmbeddingError(f"embedding endpoint failed: {exc}") from exc
        if len(vectors) != len(texts):
            raise EmbeddingError("embedding endpoint returned the wrong number of vectors")
        return vectors

    @property
    def name(self) -> str:
        return self.settings.model

    @property
    def timeout(self) -> float:
        return self.settings.timeout

    def close(self) -> None:
        self._http.close()


class LocalEmbedder:
    """The in-process model (``codekeep.embeddings.local_model``) behind the client's face.
    The model loads on the first ``embed`` (not when settings are read), once per process;
    a missing install is an :class:`EmbeddingError` like an endpoint that is down."""

    def __init__(self, timeout: float, max_tokens: int = MAX_TOKENS) -> None:
        self._timeout = timeout
        self._max_tokens = max_tokens

    @property
    def name(self) -> str:
        return f"local/{MODEL_NAME}"

    @property
    def timeout(self) -> float:
        return self._timeout

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        try:
            model = shared_model()
        except LocalModelUnavailable as error:
            raise EmbeddingError(str(error)) from error
        return model.embed(texts, self._max_tokens)

    def close(self) -> None:
        """Nothing to release: the weights are shared by every user in the process."""


def resolved(settings: EmbeddingSettings) -> EmbeddingSettings:
    """``settings`` with ``auto`` made concrete: the endpoint when a ``url`` is set, else
    the local model when its files are installed, else the endpoint (which, without a
    url, means lexical only)."""
    if settings.provider != "auto":
        return settings
    local = not (settings.url or "").strip() and chosen_by_default()
    return replace(settings, provider="local" if local else "endpoint")


def embedder_for(settings: EmbeddingSettings, max_tokens: int = MAX_TOKENS) -> Embedder | None:
    """The configured source of vectors, or None (relevance is lexical)."""
    settings = resolved(settings)
    if settings.provider == "local":
        return LocalEmbedder(settings.timeout, max_tokens)
    return EmbeddingClient(settings) if settings.endpoint is not None else None


def pack(vector: Sequence[float]) -> bytes:
    return array("f", vector).tobytes()


def unpack(blob: bytes) -> array[float]:
    values = array("f")
    values.frombytes(blob)
    return values


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    if len(a) != len(b):
        return 0.0
    dot = math.fsum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    return dot / norm if norm else 0.0


@dataclass(frozen=True, slots=True)
class Embedded:
    """What the endpoint gave a recall: the query's vector and, per database, the vectors of
    memories embedded with it; ``vector`` None (with ``reason``) when it gave nothing."""

    vector: list[float] | None
    fresh: list[list[tuple[str, bytes]]] = field(default_factory=list)
    reason: str | None = None

    @classmethod
    def unavailable(cls, reason: str) -> Embedded:
        return cls(None, [], reason)


@dataclass(frozen=True, slots=True)
class EmbeddingJob:
    """One recall's request: the query plus, per database, memories still without a vector.

    Holds only plain data and the (thread-safe) HTTP client, so :meth:`run` may be called
    from any thread while the store stays with its own.
    """

    client: Embedder
    query: str
    pending: list[list[tuple[str, str]]]  # per database: (memory id, content)

    def run(self) -> Embedded:
        """Ask the endpoint (bounded by the client's timeout); never raises."""
        texts = [content for rows in self.pending for _, content in rows]
        try:
            (vector, *fresh) = self.client.embed([self.query, *texts])
        except EmbeddingError as error:
            return Embedded.unavailable(str(error))
        per_store: list[list[tuple[str, bytes]]] = []
        for rows in self.pending:
            per_store.append([(memory_id, pack(fresh.pop(0))) for memory_id, _ in rows])
        return Embedded(vector, per_store)

    async def run_off_thread(self) -> Embedded:
        """:meth:`run` on a thread of its own, given up after the endpoint's timeout: how a
        caller whose services live on one thread (the server's folder worker, which applies
        keystrokes) sends it without that thread ever waiting for the network."""
        import asyncio  # only the server's callers await it

        timeout = self.client.timeout
        try:
            return await asyncio.wait_for(asyncio.to_thread(self.run), timeout)
        except TimeoutError:
            return Embedded.unavailable(f"embeddings endpoint gave no answer within {timeout:g} s")
