"""Optional embedding similarity: the local model or an OpenAI-compatible endpoint.

Chunks are embedded (heading path + text) in batches after indexing and stored
unit-length under the embedder's name, so similarity is a dot product and another
model's vectors are never compared. A search embeds the question once and scores every
chunk by cosine, one matrix product over a cached copy of all the vectors (numpy, about
1 ms for 8,000 chunks): a question with no word in common with the page still finds it.
Any embedder failure leaves the ranking lexical (logged), never fails a search.

Two rankings come out of that one product (:meth:`VectorIndex.rank`): the chunks, and
the pages by their centroid — the mean of a page's chunk vectors, what the page as a
whole is about. A question's best chunk is often a passing mention on a page about
something else (``LOGOUT_REDIRECT_URL`` for "a notice after a redirect"), while the
page that answers it is about the question throughout; and a big page (every setting,
every admin option) holds a near match for many questions, but its centroid is near
none of them. Each page of that ranking is represented by its best chunk, the section a
result shows.

The local model sees the first ``LOCAL_TOKENS`` word pieces of a chunk — the heading
path and the opening of the text, which say what the section is about: embedding whole
350-token chunks would cost ~10x more CPU at index time for little gain in finding the
page (docs/knowledge-base.md has the figures).

Embedding may be slow (a remote endpoint, the CPU-bound local model): no embedding is
done while holding the knowledge base's lock (``lock``), so searches and indexing go on
meanwhile. The local model's vectors are shared across checkouts through the machine's
vector cache (``codekeep/embeddings/vector_cache.py``): a chunk some checkout already
embedded is not embedded again.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from codekeep.common.numeric import numpy
from codekeep.docs.store import DocsStore
from codekeep.docs.text import embedding_text
from codekeep.embeddings.embedders import Embedder, EmbeddingError, pack
from codekeep.embeddings.vector_cache import VectorCache, cache_key

logger = logging.getLogger(__name__)

BATCH = 64
# 48, not 64: a quarter less CPU to embed a project's docs, and hit@1 unchanged or up on
# all seven question sets of docs/knowledge-base.md (hit@5 one question down on one, up
# on another); 32 lost 4-8 points of hit@1. The cap is part of the vector cache's key.
LOCAL_TOKENS = 48
# Nearest neighbours exist for any question, so when the embeddings answer alone (no
# word, expansion or symbol found a chunk) a chunk must be at least this similar to count.
# Measured for the local all-MiniLM-L6-v2: topics no page is about ("kubernetes",
# "docker compose", "zebra quagga okapi") scored 0.12-0.17 against the nearest page of the
# test projects, paraphrases sharing no word with their page 0.37-0.48. Another model's
# scale is unknown, so an endpoint's model has no floor.
ALONE_FLOORS = {"local/all-MiniLM-L6-v2": 0.25}


@dataclass(frozen=True, slots=True)
class Matrix:
    """Every stored vector of one model, rows grouped by page, as of ``changes``."""

    changes: int
    ids: list[int]  # chunk id of each row
    rows: Any  # (chunks, size) float32, unit rows
    starts: Any  # index of each page's first row
    centroids: Any  # (pages, size) float32, unit rows: the mean of each page's rows


class VectorIndex:
    def __init__(self, store: DocsStore, embedder: Embedder,
                 lock: threading.RLock, is_open: Callable[[], bool],
                 cache: VectorCache | None = None) -> None:
        self._store = store
        self._cache = cache
        self._embedder = embedder
        self._model = embedder.name
        self._lock = lock
        self._is_open = is_open
        self._matrix: Matrix | None = None

    def close(self) -> None:
        self._embedder.close()
        if self._cache is not None:
            self._cache.close()

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
            packed = self._vectors_for([embedding_text(heading, text)
                                        for _id, heading, text in batch])
            if packed is None:
                return done
            with self._lock:
                if not self._is_open():
                    return done
                self._store.put_vectors(self._model, [
                    (chunk_id, blob)
                    for (chunk_id, _heading, _text), blob in zip(batch, packed, strict=True)
                ])
            done += len(batch)

    def _vectors_for(self, texts: list[str]) -> list[bytes] | None:
        """Each text's packed unit vector: from the machine's cache where a checkout
        already embedded it, else from the embedder (then kept in the cache)."""
        keys = [cache_key(self._model, LOCAL_TOKENS, text) for text in texts]
        known = self._cache.get(keys) if self._cache is not None else {}
        wanted = [i for i, key in enumerate(keys) if key not in known]
        if wanted:
            vectors = self._embed([texts[i] for i in wanted])
            if vectors is None:
                return None
            fresh = {keys[i]: pack(unit(vector))
                     for i, vector in zip(wanted, vectors, strict=True)}
            if self._cache is not None:
                self._cache.put(fresh.items())
            known = {**known, **fresh}
        return [known[key] for key in keys]

    def questions(self, texts: Sequence[str]) -> list[list[float]]:
        """The unit vectors of a question and its HyDE passages, embedded in one call;
        none when there is nothing to compare them with or no answer."""
        with self._lock:
            if not self._is_open() or not self._store.has_vectors(self._model):
                return []
        vectors = self._embed(list(texts))
        return [unit(vector) for vector in vectors] if vectors else []

    def rank(self, direction: Sequence[float], limit: int,
             alone: bool = False) -> list[list[int]]:
        """The ``limit`` chunk ids most similar to ``direction``, and the ``limit`` pages
        whose centroid is, each as its most similar chunk; best first (call with the
        knowledge base's lock held). ``alone``: nothing else found a chunk, so those less
        similar than the model's floor (``ALONE_FLOORS``) are left out."""
        floor = ALONE_FLOORS.get(self._model, -1.0) if alone else -1.0
        np = numpy()
        matrix = self._vectors_matrix(len(direction))
        if not matrix.ids:
            return []
        query = np.asarray(direction, dtype=np.float32)
        scores = matrix.rows @ query
        bounds = [*matrix.starts.tolist(), len(matrix.ids)]
        by_page = []
        centroid_scores = matrix.centroids @ query
        for page in _top(np, centroid_scores, limit):
            if centroid_scores[page] < floor:
                continue
            start, end = bounds[page], bounds[page + 1]
            by_page.append(matrix.ids[start + int(np.argmax(scores[start:end]))])
        return [[matrix.ids[i] for i in _top(np, scores, limit) if scores[i] >= floor],
                by_page]

    def _vectors_matrix(self, size: int) -> Matrix:
        """Every stored vector of this model as one (n, size) array with its pages'
        centroids, rebuilt only after the store's vectors or chunks changed."""
        np = numpy()
        cached = self._matrix
        if (cached is None or cached.changes != self._store.changes
                or cached.rows.shape[1] != size):  # a question of another size: rebuild
            rows = [(chunk_id, page, blob) for chunk_id, page, blob
                    in self._store.vectors_by_page(self._model) if len(blob) == 4 * size]
            matrix = (np.frombuffer(b"".join(blob for _i, _p, blob in rows), dtype=np.float32)
                      .reshape(len(rows), size))
            pages = np.asarray([page for _i, page, _b in rows], dtype=np.int64)
            starts = (np.flatnonzero(np.r_[True, pages[1:] != pages[:-1]]) if len(rows)
                      else np.zeros(0, dtype=np.int64))
            centroids = (np.add.reduceat(matrix, starts, axis=0) if len(rows)
                         else np.zeros((0, size), dtype=np.float32))
            norms = np.linalg.norm(centroids, axis=1, keepdims=True)
            centroids = centroids / np.where(norms > 0, norms, 1.0)
            cached = self._matrix = Matrix(self._store.changes, [i for i, _p, _b in rows],
                                           matrix, starts, centroids.astype(np.float32))
        return cached

    def _embed(self, texts: list[str]) -> list[list[float]] | None:
        try:
            return self._embedder.embed(texts)
        except (EmbeddingError, RuntimeError) as error:  # RuntimeError: closed meanwhile
            logger.warning("docs embeddings unavailable, searching lexically: %s", error)
            return None


def _top(np: Any, scores: Any, limit: int) -> list[int]:
    """Indices of the ``limit`` highest scores, highest first."""
    top = np.argpartition(-scores, limit)[:limit] if limit < len(scores) else np.arange(
        len(scores))
    return [int(i) for i in top[np.argsort(-scores[top], kind="stable")]]


def unit(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(math.fsum(x * x for x in vector))
    return [x / norm for x in vector] if norm else list(vector)
