"""Recall: gather ranked candidate lists from both scopes, fuse them, score, count the access.

Lists consulted (each only when it has something to go on):

1. FTS5 BM25 over content and key (both databases, merged by BM25 value);
2. structured matches — memories linked to the given files/symbols, or to file names
   and identifiers written in the query (``http_client.py``, ``RetryPolicy``);
3. embedding cosine similarity, when an endpoint is configured and answers. The request
   is an :class:`~codekeep.embeddings.embedders.EmbeddingJob` from :meth:`Retriever.embedding_job`;
   a caller that must not wait for the network (the server's folder worker) sends it on
   another thread and passes the outcome to :meth:`Retriever.recall`, else recall sends it.

Only ``active`` and ``confirmed_resolved`` memories are ever returned; superseded,
observed, archived and disabled rows stay in the database for audit.

A recall does not write: the access counts of what it returns are queued in the store
(:mod:`codekeep.memory.store.access`) and ride on its next write transaction; only the
vectors of memories it embedded on the way (written before embeddings were configured)
are written at once, in one transaction per database that carries the queue too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from codekeep.embeddings.embedders import (
    BACKFILL_BATCH,
    Embedded,
    Embedder,
    EmbeddingJob,
    cosine,
    unpack,
)
from codekeep.memory.model import (
    RECALL_LIMIT,
    RECALLABLE_STATUSES,
    Memory,
    RecalledMemory,
    ScoreParts,
)
from codekeep.memory.scoring import combine, importance_norm, recency, rrf_relevance
from codekeep.memory.store import MemoryFilter, MemoryStore
from codekeep.memory.store.memories import ScoreFields
from codekeep.settings.memory import MemorySettings

_PATHLIKE = re.compile(r"[\w.-]*[/\\][\w./\\-]+|[\w-]+\.[A-Za-z]{1,5}\b")
_IDENTIFIER = re.compile(r"\b(?:[A-Za-z]+[a-z0-9]*[A-Z]\w*|[A-Za-z]\w*_\w+)\b")
_POOL = 30  # candidates per list
_MAX_QUERY_IDENTIFIERS = 3


@dataclass(frozen=True, slots=True)
class RecallQuery:
    text: str
    limit: int = RECALL_LIMIT
    kinds: Sequence[str] | None = None
    files: Sequence[str] = ()
    symbols: Sequence[str] = ()


class Retriever:
    def __init__(
        self,
        stores: Sequence[MemoryStore],
        settings: MemorySettings,
        embedder: Embedder | None,
    ) -> None:
        self.stores = stores
        self.settings = settings
        self.embedder = embedder

    def embedding_job(self, query: RecallQuery) -> EmbeddingJob | None:
        """The endpoint request this recall needs (None: no endpoint, or nothing to embed)."""
        if self.embedder is None or not query.text.strip():
            return None
        model = self.embedder.name
        pending = [
            store.vectors.missing(model, RECALLABLE_STATUSES, BACKFILL_BATCH)
            for store in self.stores
        ]
        return EmbeddingJob(self.embedder, query.text, pending)

    def recall(
        self, query: RecallQuery, embedded: Embedded | None = None
    ) -> list[RecalledMemory]:
        """Ranked memories; ``embedded`` is the outcome of this query's
        :meth:`embedding_job` when the caller sent it, else it is sent here."""
        if embedded is None:
            job = self.embedding_job(query)
            embedded = job.run() if job is not None else None
        lists: list[list[str]] = []
        if query.text.strip():
            lists.append(self._fts(query))
        structured = self._structured(query)
        if structured is not None:
            lists.append(structured)
        if embedded is not None and embedded.vector is not None:
            lists.append(self._by_similarity(embedded.vector, embedded.fresh))
        ranks: dict[str, list[int | None]] = {}
        for index, ranked in enumerate(lists):
            for rank, memory_id in enumerate(ranked, start=1):
                ranks.setdefault(memory_id, [None] * len(lists))[index] = rank
        if not lists:
            pool = self._recent(query)
            ranks = {memory_id: [] for memory_id in pool}
        now = self.settings.clock()
        scored: list[tuple[float, str, ScoreParts]] = []
        for row in self._score_rows(list(ranks)):
            if row.expires_at is not None and row.expires_at <= now:
                continue
            if query.kinds and row.kind not in query.kinds:
                continue
            seen = max(row.last_seen_at, row.last_accessed_at or 0.0)
            parts = ScoreParts(
                recency=recency(now - seen, self.settings.half_life_days),
                importance=importance_norm(row.importance),
                relevance=rrf_relevance(ranks[row.id], self.settings.rrf_k),
            )
            scored.append((combine(parts, self.settings, row.negative > 0), row.id, parts))
        scored.sort(key=lambda item: (-item[0], item[1]))
        top = scored[: max(0, query.limit)]
        # whole records (links, flags) only for what is returned
        memories = {m.id: m for m in self._load([memory_id for _, memory_id, _ in top])}
        chosen = [
            RecalledMemory(memories[i], score, parts) for score, i, parts in top if i in memories
        ]
        self._record(chosen, embedded.fresh if embedded else [], now)
        return chosen

    # ---- candidate lists ------------------------------------------------------------------

    def _fts(self, query: RecallQuery) -> list[str]:
        hits: list[tuple[float, str]] = []
        for store in self.stores:
            hits.extend(
                (rank, memory_id)
                for memory_id, rank in store.search.text(
                    query.text, RECALLABLE_STATUSES, query.kinds, _POOL
                )
            )
        hits.sort()
        return [memory_id for _, memory_id in hits[:_POOL]]

    def _structured(self, query: RecallQuery) -> list[str] | None:
        files = list(query.files) + [m.replace("\\", "/") for m in _PATHLIKE.findall(query.text)]
        symbols = list(query.symbols)
        names = _IDENTIFIER.findall(query.text)[:_MAX_QUERY_IDENTIFIERS]
        if not files and not symbols and not names:
            return None
        hits: list[tuple[int, str]] = []
        for store in self.stores:
            found = dict(store.links.linked(files, symbols, RECALLABLE_STATUSES, _POOL))
            for name in names:
                by_name = store.links.linked_by_name(name, RECALLABLE_STATUSES, _POOL)
                for memory_id, count in by_name:
                    found[memory_id] = found.get(memory_id, 0) + count
            hits.extend((-count, memory_id) for memory_id, count in found.items())
        hits.sort()
        return [memory_id for _, memory_id in hits[:_POOL]]

    def _by_similarity(
        self, vector: list[float], fresh: list[list[tuple[str, bytes]]]
    ) -> list[str]:
        """Cosine ranking over the recent vectors and those just embedded (``fresh``)."""
        assert self.embedder is not None  # an Embedded comes only from our embedder's job
        scored: list[tuple[float, str]] = []
        limit = self.settings.embeddings.candidates
        for index, store in enumerate(self.stores):
            new = fresh[index] if index < len(fresh) else []
            rows = store.vectors.recent(RECALLABLE_STATUSES, limit) + new
            scored.extend((-cosine(vector, unpack(blob)), memory_id) for memory_id, blob in rows)
        scored.sort()
        return [memory_id for negative, memory_id in scored[:_POOL] if negative < 0]

    def _recent(self, query: RecallQuery) -> list[str]:
        """No query at all: the most recently seen live memories compete on score alone."""
        where = MemoryFilter(statuses=RECALLABLE_STATUSES, kinds=query.kinds or None)
        return [i for store in self.stores for i in store.ids(where, limit=_POOL * 2)]

    def _load(self, ids: list[str]) -> list[Memory]:
        memories: list[Memory] = []
        for store in self.stores:
            memories.extend(store.load_many([i for i in ids if store.owns(i)]))
        return memories

    def _score_rows(self, ids: list[str]) -> list[ScoreFields]:
        rows: list[ScoreFields] = []
        for store in self.stores:
            rows.extend(store.score_fields([i for i in ids if store.owns(i)]))
        return rows

    def _record(
        self,
        chosen: list[RecalledMemory],
        fresh: list[list[tuple[str, bytes]]],
        now: float,
    ) -> None:
        """Access counts are queued (the store's next write carries them); vectors just
        embedded are written now, with the queued counts in the same transaction."""
        for index, store in enumerate(self.stores):
            ids = [r.memory.id for r in chosen if store.owns(r.memory.id)]
            store.touch(ids, now)
            vectors = fresh[index] if index < len(fresh) else []
            if vectors and self.embedder is not None:
                with store.transaction():
                    store.vectors.put(self.embedder.name, vectors)
