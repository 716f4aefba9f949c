"""Optional embedding similarity through memory's OpenAI-compatible embeddings client.

Chunks are embedded (heading + text) in batches after indexing and stored unit-length,
so similarity is a dot product. A search embeds the question once and ranks by cosine:
every chunk while that is at most ``SCAN_BUDGET`` multiply-adds (about 325 chunks of
1,536 dimensions, ~15 ms in Python: a question with no word in common with the page
still finds it), else the lexical candidates (no vector index and no numeric library).
Any endpoint failure leaves the ranking lexical (logged), never fails a search.

The endpoint may be slow: no HTTP call is made while holding the knowledge base's lock
(``lock``), so searches and indexing go on while chunks are being embedded.
"""

from __future__ import annotations

import logging
import math
import operator
import threading
from collections.abc import Callable, Sequence

from codekeep.docs.store import DocsStore
from codekeep.memory.embeddings import EmbeddingClient, EmbeddingError, pack, unpack
from codekeep.settings.memory import EmbeddingSettings

logger = logging.getLogger(__name__)

BATCH = 64
SCAN_BUDGET = 500_000


class VectorIndex:
    def __init__(self, store: DocsStore, settings: EmbeddingSettings,
                 lock: threading.RLock, is_open: Callable[[], bool]) -> None:
        self._store = store
        self._model = settings.model
        self._client = EmbeddingClient(settings)
        self._lock = lock
        self._is_open = is_open

    def close(self) -> None:
        self._client.close()

    def embed_missing(self) -> int:
        """Embed every chunk that has no vector for this model yet; stops at a failure
        or when the knowledge base closes."""
        done = 0
        while True:
            with self._lock:
                if not self._is_open():
                    return done
                batch = self._store.missing_vectors(self._model, BATCH)
            if not batch:
                return done
            vectors = self._embed([text for _id, text in batch])
            if vectors is None:
                return done
            with self._lock:
                if not self._is_open():
                    return done
                self._store.put_vectors(self._model, [
                    (chunk_id, pack(unit(vector)))
                    for (chunk_id, _text), vector in zip(batch, vectors, strict=True)
                ])
            done += len(batch)

    def question(self, query: str) -> list[float] | None:
        """The query's unit vector; None when there is nothing to compare or no answer."""
        with self._lock:
            if not self._is_open() or not self._store.vector_count(self._model):
                return None
        vectors = self._embed([query])
        return unit(vectors[0]) if vectors else None

    def rank(self, direction: Sequence[float], candidates: Sequence[int]) -> list[int]:
        """Chunk ids by similarity to ``direction``: all chunks within the scan budget,
        else ``candidates`` (call with the knowledge base's lock held)."""
        scan_all = self._store.vector_count(self._model) * len(direction) <= SCAN_BUDGET
        scored = []
        for chunk_id, blob in self._store.vectors(self._model, None if scan_all else candidates):
            vector = unpack(blob)
            if len(vector) == len(direction):  # another model's size: not comparable
                scored.append((sum(map(operator.mul, direction, vector)), chunk_id))
        scored.sort(key=lambda item: -item[0])
        return [chunk_id for _score, chunk_id in scored]

    def _embed(self, texts: list[str]) -> list[list[float]] | None:
        try:
            return self._client.embed(texts)
        except (EmbeddingError, RuntimeError) as error:  # RuntimeError: closed meanwhile
            logger.warning("docs embeddings unavailable, searching lexically: %s", error)
            return None


def unit(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(math.fsum(x * x for x in vector))
    return [x / norm for x in vector] if norm else list(vector)
