"""Optional embedding similarity: the local model or an OpenAI-compatible endpoint.

Chunks are embedded (heading path + text) in batches after indexing and stored
unit-length under the embedder's name, so similarity is a dot product and another
model's vectors are never compared. A search embeds the question once and ranks every
chunk by cosine, one matrix product over a cached copy of all the vectors (about 1 ms
for 8,000 chunks). Scanning every chunk is the point: a question with no word in common
with the page still finds it. Any embedder failure leaves the ranking lexical (logged), never
fails a search.

The local model sees the first ``LOCAL_TOKENS`` word pieces of a chunk — the heading
path and the opening of the text, which say what the section is about: embedding whole
350-token chunks would cost ~10x more CPU at index time for little gain in finding the
page (docs/knowledge-base.md has the figures).

Embedding may be slow (a remote endpoint, the CPU-bound local model): no embedding is
done while holding the knowledge base's lock (``lock``), so searches and indexing go on
meanwhile.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

from codekeep.common.numeric import numpy
from codekeep.docs.store import DocsStore
from codekeep.docs.text import embedding_text
from codekeep.memory.embeddings import Embedder, EmbeddingError, pack

logger = logging.getLogger(__name__)

BATCH = 64
LOCAL_TOKENS = 64


class VectorIndex:
    def __init__(self, store: DocsStore, embedder: Embedder,
                 lock: threading.RLock, is_open: Callable[[], bool]) -> None:
        self._store = store
        self._embedder = embedder
        self._model = embedder.name
        self._lock = lock
        self._is_open = is_open
        self._matrix: tuple[int, list[int], Any] | None = None  # (store.changes, ids, rows)

    def close(self) -> None:
        self._embedder.close()

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
            vectors = self._embed([embedding_text(heading, text)
                                   for _id, heading, text in batch])
            if vectors is None:
                return done
            with self._lock:
                if not self._is_open():
                    return done
                self._store.put_vectors(self._model, [
                    (chunk_id, pack(unit(vector)))
                    for (chunk_id, _heading, _text), vector in zip(batch, vectors, strict=True)
                ])
            done += len(batch)

    def question(self, query: str) -> list[float] | None:
        """The query's unit vector; None when there is nothing to compare or no answer."""
        with self._lock:
            if not self._is_open() or not self._store.has_vectors(self._model):
                return None
        vectors = self._embed([query])
        return unit(vectors[0]) if vectors else None

    def rank(self, direction: Sequence[float], limit: int) -> list[int]:
        """The ``limit`` chunk ids most similar to ``direction``, best first (call with
        the knowledge base's lock held)."""
        np = numpy()
        ids, rows = self._vectors_matrix(len(direction))
        if not ids:
            return []
        scores = rows @ np.asarray(direction, dtype=np.float32)
        top = (np.argpartition(-scores, limit)[:limit] if limit < len(ids)
               else np.arange(len(ids)))
        order = top[np.argsort(-scores[top], kind="stable")]
        return [ids[i] for i in order.tolist()]

    def _vectors_matrix(self, size: int) -> tuple[list[int], Any]:
        """Every stored vector of this model as one (n, size) array, rebuilt only after
        the store's vectors or chunks changed."""
        np = numpy()
        cached = self._matrix
        if cached is None or cached[0] != self._store.changes:
            pairs = [(chunk_id, blob) for chunk_id, blob in self._store.vectors(self._model)
                     if len(blob) == 4 * size]
            rows = (np.frombuffer(b"".join(blob for _id, blob in pairs), dtype=np.float32)
                    .reshape(len(pairs), size))
            cached = self._matrix = (self._store.changes, [i for i, _b in pairs], rows)
        return cached[1], cached[2]

    def _embed(self, texts: list[str]) -> list[list[float]] | None:
        try:
            return self._embedder.embed(texts)
        except (EmbeddingError, RuntimeError) as error:  # RuntimeError: closed meanwhile
            logger.warning("docs embeddings unavailable, searching lexically: %s", error)
            return None


def unit(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(math.fsum(x * x for x in vector))
    return [x / norm for x in vector] if norm else list(vector)
