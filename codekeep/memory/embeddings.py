"""Optional embedding relevance through an OpenAI-compatible ``/embeddings`` endpoint.

Only used when :class:`EmbeddingSettings` is configured; any failure (network, bad
reply) makes the caller fall back to lexical relevance, never fail the recall.
Vectors are stored as float32 blobs; cosine similarity is computed in Python over a
bounded candidate set (the most recently seen memories), so no numeric library is needed.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence

import httpx

from codekeep.memory.store import MemoryStore
from codekeep.settings.memory import EmbeddingSettings

BACKFILL_BATCH = 64


class EmbeddingError(RuntimeError):
    """The endpoint could not give us vectors; relevance falls back to lexical."""


class EmbeddingClient:
    def __init__(self, settings: EmbeddingSettings) -> None:
        if settings.endpoint is None:
            raise ValueError("embeddings need a url (memory.embeddings.url)")
        self.settings = settings
        self._endpoint = settings.endpoint
        headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
        self._http = httpx.Client(timeout=settings.timeout, headers=headers)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
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

    def close(self) -> None:
        self._http.close()


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


def store_vectors(store: MemoryStore, client: EmbeddingClient, ids: Sequence[str]) -> int:
    """Embed the content of ``ids`` and keep the vectors; 0 when the endpoint fails."""
    rows = [(m.id, m.content) for m in store.load_many(ids)]
    if not rows:
        return 0
    try:
        vectors = client.embed([content for _, content in rows])
    except EmbeddingError:
        return 0  # lexical relevance still works; the vectors are retried on the next recall
    with store.transaction():
        store.vectors.put(
            client.settings.model,
            [(memory_id, pack(v)) for (memory_id, _), v in zip(rows, vectors, strict=True)],
        )
    return len(rows)
