"""Optional embedding similarity through memory's OpenAI-compatible embeddings client.

Chunks are embedded (heading + text) in batches after indexing; a search embeds the
question once and re-ranks the lexical candidates by cosine similarity. Any endpoint
failure leaves the ranking lexical (logged once per failure), never fails a search.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from codekeep.docs.store import DocsStore
from codekeep.memory.embeddings import EmbeddingClient, EmbeddingError, cosine, pack, unpack
from codekeep.memory.settings import EmbeddingSettings

logger = logging.getLogger(__name__)

BATCH = 64


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
            self._store.put_vectors(
                self._model, [(chunk_id, pack(v)) for (chunk_id, _t), v in zip(batch, vectors,
                                                                               strict=True)])
            done += len(batch)
        return done

    def rank(self, query: str, candidates: Sequence[int]) -> list[int]:
        stored = self._store.vectors(self._model, candidates)
        if not stored:
            return []
        try:
            [question] = self._client.embed([query])
        except EmbeddingError as error:
            logger.warning("docs embeddings unavailable, searching lexically: %s", error)
            return []
        scored = [(cosine(question, unpack(blob)), chunk_id) for chunk_id, blob in stored]
        return [chunk_id for _score, chunk_id in sorted(scored, key=lambda item: -item[0])]
