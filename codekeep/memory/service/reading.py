"""Reading memories: recall (the ranked search), lookups by id, file and symbol, listings,
history and the effective preferences. Every read sees ``MEMORY.md`` as it is now."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from codekeep.embeddings.embedders import Embedded, EmbeddingJob
from codekeep.memory.model import (
    KINDS,
    LIST_LIMIT,
    RECALL_LIMIT,
    RECALLABLE_STATUSES,
    STATUSES,
    Memory,
    MemoryInputError,
    RecalledMemory,
)
from codekeep.memory.retrieval import RecallQuery
from codekeep.memory.service.core import ServiceCore
from codekeep.memory.store import MemoryFilter
from codekeep.memory.team_scope import TeamUnavailable

_LINKED_LIMIT = 100


class Reading(ServiceCore):
    def recall(
        self,
        query: str,
        *,
        limit: int = RECALL_LIMIT,
        kinds: Sequence[str] | None = None,
        files: Sequence[str] = (),
        symbols: Sequence[str] = (),
        embedded: Embedded | None = None,
    ) -> builtins.list[RecalledMemory]:
        """Ranked memories. ``embedded``: the outcome of :meth:`recall_embedding`'s job for
        this query, sent by a caller that must not wait for the network; else sent here."""
        if limit < 0:
            raise MemoryInputError("limit must not be negative")
        unknown = [k for k in kinds or () if k not in KINDS]
        if unknown:
            raise MemoryInputError(f"unknown kind {unknown[0]!r}")
        self.refresh_notes()
        wanted = RecallQuery(
            query, limit, tuple(kinds) if kinds else None, tuple(files), tuple(symbols)
        )
        found = self._retriever.recall(wanted, embedded)
        return self._with_team(found, query, limit, kinds, files, symbols)

    def recall_embedding(self, query: str) -> EmbeddingJob | None:
        """The embeddings request a recall of ``query`` needs (None: lexical only); its
        ``run()`` may go on any thread, its outcome back to :meth:`recall`."""
        return self._retriever.embedding_job(RecallQuery(query))
    def _with_team(
        self,
        local: builtins.list[RecalledMemory],
        query: str,
        limit: int,
        kinds: Sequence[str] | None,
        files: Sequence[str],
        symbols: Sequence[str],
    ) -> builtins.list[RecalledMemory]:
        """Local results merged by score with the team's (same scoring); a team database
        that cannot answer leaves the local results and its reason in ``team_warning``."""
        self.team_warning = self.team_refused
        if self.team is None:
            return local
        try:
            shared = self.team.recall(query, limit, kinds, files, symbols)
        except TeamUnavailable as exc:
            self.team_warning = str(exc)
            return local
        merged = sorted(local + shared, key=lambda r: (-r.score, r.memory.id))
        return merged[: max(0, limit)]

    def get(self, memory_id: str) -> Memory | None:
        store = self._store_for_id(memory_id)
        return store.get(memory_id) if store else None

    def list(
        self,
        *,
        kinds: Sequence[str] | None = None,
        statuses: Sequence[str] | None = None,
        scope: str | None = None,
        limit: int = LIST_LIMIT,
    ) -> builtins.list[Memory]:
        """Memories newest first; default statuses are the recallable ones."""
        statuses = tuple(statuses or RECALLABLE_STATUSES)
        bad = [s for s in statuses if s not in STATUSES]
        if bad:
            raise MemoryInputError(f"unknown status {bad[0]!r} (use one of {', '.join(STATUSES)})")
        if scope == "team":
            return self._team().list(statuses, kinds, limit)
        where = MemoryFilter(statuses=statuses, kinds=kinds or None, scope=scope or None)
        found: builtins.list[Memory] = []
        for store in self.stores:
            found += store.load_many(store.ids(where, limit=limit))
        found.sort(key=lambda m: (-m.last_seen_at, m.id))
        return found[:limit]

    def history(self, memory_id: str) -> builtins.list[dict[str, Any]]:
        store = self._store_for_id(memory_id)
        return store.history(memory_id) if store else []

    def memories_for_file(self, path: str) -> builtins.list[Memory]:
        """Live memories linked to a file (or to symbols defined in it), most important first."""
        return self._linked_memories([path], [])

    def memories_for_symbol(self, symbol_id: str) -> builtins.list[Memory]:
        """Live memories linked to a symbol, most important first."""
        return self._linked_memories([], [symbol_id])

    def _linked_memories(
        self, files: Sequence[str], symbols: Sequence[str]
    ) -> builtins.list[Memory]:
        found: builtins.list[Memory] = []
        for store in self.stores:
            links = store.links.linked(files, symbols, RECALLABLE_STATUSES, _LINKED_LIMIT)
            found += store.load_many([memory_id for memory_id, _ in links])
        found.sort(key=lambda m: (-m.importance, -m.last_seen_at, m.id))
        return found

    def counts_for_symbols(self, symbol_ids: Sequence[str]) -> dict[str, int]:
        """How many recallable memories are linked to each symbol (for code lens / hover)."""
        counts: dict[str, int] = {}
        for store in self.stores:
            for symbol_id, count in store.links.counts_for_symbols(
                symbol_ids, RECALLABLE_STATUSES
            ).items():
                counts[symbol_id] = counts.get(symbol_id, 0) + count
        return counts

    def preferences(self) -> dict[str, str]:
        """Effective preferences: defaults ← inferred ← user-stated (project over user scope)."""
        self.refresh_notes()
        return self._effective_preferences()
