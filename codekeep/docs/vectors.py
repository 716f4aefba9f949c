"""Optional embedding similarity through memory's OpenAI-compatible embeddings client.

Chunks are embedded (heading + text) in batches after indexing and stored unit-length,
so similarity is a dot product. A search embeds the question once and ranks by cosine:
every chunk while that is at most ``SCAN_BUDGET`` multiply-adds (about 325 chunks of
1,536 dimensions, ~15 ms in Python: a question with no word in common with the page
still finds it), else the lexical candidates (no vector index and no numeric library).
Any endpoint failure leaves the ranking lexical (logged), never fails a search.
"""

from __future__ import annotations

import logging
import math
import operator
from collections.abc import Sequence

from codekeep.docs.store import DocsStore
from codekeep.memory.embeddings import EmbeddingClient, EmbeddingError, pack, unpack
from codekeep.memory.settings import EmbeddingSettings

logger = logging.getLogger(__name__)

BATCH = 64
SCAN_BUDGET = 500_000


class VectorIndex:
    def __init__(self, store: DocsStore, settings: EmbeddingSettings) -> None:
        self._store = store
        self._model = settings.model
        self._client = EmbeddingClient(settings)

    def close(self) -> None:
        self._client.close()

    def embed_missing(self) -> int:
        """Embed every chunk that has no vector for this model yet; stops at a failure."""
        done = 0
        while batch := self._store.missing_vectors(self._model, BATCH):
            try:
                vectors = self._client.embed([text for _id, text in batch])
            except EmbeddingError as error:
                logger.warning("docs embeddings unavailable, searching lexically: %s", error)
                return done
            self._store.put_vectors(self._model, [
                (chunk_id, pack(unit(vector)))
                for (chunk_id, _text), vector in zip(batch, vectors, strict=True)
            ])
            done += len(batch)
        return done

    def rank(self, query: str, candidates: Sequence[int]) -> list[int]:
        """Chunk ids by similarity to ``query`` (all chunks, or ``candidates`` in a large
        knowledge base); empty when there are no vectors or the endpoint fails."""
        count = self._store.vector_count(self._model)
        if not count:
            return []
        try:
            [question] = self._client.embed([query])
        except EmbeddingError as error:
            logger.warning("docs embeddings unavailable, searching lexically: %s", error)
            return []
        direction = unit(question)
        scan_all = count * len(direction) <= SCAN_BUDGET
        stored = self._store.vectors(self._model, None if scan_all else candidates)
        scored = []
        for chunk_id, blob in stored:
            vector = unpack(blob)
            if len(vector) == len(direction):  # another model's size: not comparable
                scored.append((sum(map(operator.mul, direction, vector)), chunk_id))
        scored.sort(key=lambda item: -item[0])
        return [chunk_id for _score, chunk_id in scored]


def unit(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(math.fsum(x * x for x in vector))
    return [x / norm for x in vector] if norm else list(vector)
