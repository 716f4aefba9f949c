"""The ``team`` memory scope: the same write path, recall scored like SQLite's.

A write goes through :meth:`WritePath.screen` — validation, the safety filter (secrets
redacted *before* the text leaves the machine), the eligibility gate, canonical form
and fingerprint — then one transaction on the team database inserts the row or, when a
live row already holds that meaning (the unique fingerprint index decides, also between
members writing at once), reinforces it. Every row records who wrote or promoted it;
its history records every member's action.

Recall ranks the team's candidates with the score local recall uses
(``0.2·recency + 0.3·importance + 0.5·relevance``, relevance the reciprocal-rank fusion
of PostgreSQL's ``ts_rank`` list and the file/symbol matches), so local and team
results can be merged by score.
"""

from __future__ import annotations

import builtins
import re
import secrets
from collections.abc import Sequence
from typing import Any

from codekeep.memory.model import (
    RECALLABLE_STATUSES,
    Memory,
    MemoryInputError,
    RecalledMemory,
    ScoreParts,
    WriteResult,
)
from codekeep.memory.scoring import combine, importance_norm, recency, rrf_relevance
from codekeep.memory.text import STOP_WORDS, raw_tokens
from codekeep.memory.write import WritePath, WriteRequest
from codekeep.settings.memory import MemorySettings
from codekeep.team.config import TeamConfig
from codekeep.team.store import TeamDatabase
from codekeep.team.store import memories as rows

TEAM_SCOPE = "team"
ID_PREFIX = "g"  # "t" is taken by the task scope; g as in the seed's group scope
PROMOTABLE_SCOPES = ("project", "user")
_POOL = 30
_MAX_TERMS = 24
_TERM = re.compile(r"^\w+$")
_PATHLIKE = re.compile(r"[\w.-]*[/\\][\w./\\-]+|[\w-]+\.[A-Za-z]{1,5}\b")


def owns(memory_id: str) -> bool:
    return memory_id.startswith(ID_PREFIX)


def _terms(text: str) -> list[str]:
    """Distinct query words safe to OR together in ``to_tsquery``."""
    words: list[str] = []
    for word in raw_tokens(text):
        if word not in STOP_WORDS and word not in words and _TERM.match(word):
            words.append(word)
    return words[:_MAX_TERMS]


def _memory(row: dict[str, Any]) -> Memory:
    author = row["promoted_by"] or row["created_by"]
    return Memory(
        id=row["id"],
        kind=row["kind"],
        status=row["status"],
        scope=TEAM_SCOPE,
        key=row["key"],
        value=row["value"],
        content=row["content"],
        importance=row["importance"],
        confidence=row["confidence"],
        source=row["source"],
        evidence={"promotedFrom": row["promoted_from"]} if row["promoted_from"] else None,
        files=list(row["files"]),
        symbols=list(row["symbols"]),
        support_count=row["support_count"],
        access_count=row["access_count"],
        created_at=row["created_at"],
        last_seen_at=row["last_seen_at"],
        last_accessed_at=row["last_accessed_at"],
        expires_at=None,
        superseded_by=None,
        author=author,
    )


class TeamMemory:
    """The team scope of one member, on one team database."""

    def __init__(self, config: TeamConfig, write: WritePath, settings: MemorySettings) -> None:
        self.db = TeamDatabase(config.dsn)
        self.member = config.member
        self._write = write
        self.settings = settings

    def close(self) -> None:
        self.db.close()

    # ---- writing ------------------------------------------------------------------------

    def remember(self, req: WriteRequest, promoted_from: str | None = None) -> WriteResult:
        screened = self._write.screen(req)
        if isinstance(screened, WriteResult):
            return screened
        req = screened.request
        row = rows.NewMemory(
            id=f"{ID_PREFIX}{secrets.token_hex(6)}",
            kind=req.kind,
            status=screened.status,
            key=req.key,
            value=req.value,
            content=req.content,
            fingerprint=screened.fingerprint,
            importance=req.importance,
            confidence=req.confidence,
            source=req.source,
            files=tuple(req.files),
            symbols=tuple(req.symbols),
            member=self.member,
            promoted_from=promoted_from,
            at=self.settings.clock(),
        )
        memory_id, new = self.db.run(lambda conn: rows.upsert(conn, row))
        action = ("PROMOTE" if promoted_from else "ADD") if new else "REINFORCE"
        reason = "; ".join(req.notes) or (None if new else "same content seen again")
        return WriteResult(action, memory_id, reason, req.redactions)

    def promote(self, memory: Memory) -> WriteResult:
        """Share a project or user memory with the team (re-screened, redacted again)."""
        if memory.scope not in PROMOTABLE_SCOPES:
            raise MemoryInputError(
                f"only project or user memories can be promoted to the team ({memory.id} is "
                f"{memory.scope})"
            )
        if memory.status not in RECALLABLE_STATUSES:
            raise MemoryInputError(
                f"memory {memory.id} is {memory.status}: only active or confirmed memories "
                "can be promoted"
            )
        request = WriteRequest(
            memory.content,
            memory.kind,
            memory.key,
            memory.value,
            memory.importance,
            tuple(memory.files),
            tuple(memory.symbols),
            memory.evidence,
            memory.source,
            memory.confidence,
        )
        return self.remember(request, promoted_from=memory.id)

    def forget(self, memory_id: str, reason: str | None) -> bool:
        now = self.settings.clock()
        return self.db.run(lambda conn: rows.disable(conn, memory_id, now, self.member, reason))

    # ---- reading ------------------------------------------------------------------------

    def get(self, memory_id: str) -> Memory | None:
        found = self.db.run(lambda conn: rows.load(conn, [memory_id]))
        return _memory(found[0]) if found else None

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        return self.db.run(lambda conn: rows.history(conn, memory_id))

    def list(
        self, statuses: Sequence[str], kinds: Sequence[str] | None, limit: int
    ) -> builtins.list[Memory]:
        found = self.db.run(lambda conn: rows.recent(conn, statuses, kinds, limit))
        return [_memory(row) for row in found]

    def recall(
        self,
        text: str,
        limit: int,
        kinds: Sequence[str] | None = None,
        files: Sequence[str] = (),
        symbols: Sequence[str] = (),
    ) -> builtins.list[RecalledMemory]:
        """The team's best ``limit`` memories for a query, scored like local recall."""
        words = _terms(text)
        linked_files = list(files) + [m.replace("\\", "/") for m in _PATHLIKE.findall(text)]
        now = self.settings.clock()

        def gather(conn: Any) -> tuple[builtins.list[list[str]], builtins.list[dict[str, Any]]]:
            lists: builtins.list[builtins.list[str]] = []
            if words:
                lists.append([i for i, _ in rows.search(conn, words, RECALLABLE_STATUSES, _POOL)])
            if linked_files or symbols:
                lists.append(rows.linked(conn, linked_files, symbols, RECALLABLE_STATUSES, _POOL))
            if not lists:
                return lists, rows.recent(conn, RECALLABLE_STATUSES, kinds, _POOL)
            wanted = sorted({i for ranked in lists for i in ranked})
            return lists, rows.load(conn, wanted)

        lists, found = self.db.run(gather)
        ranks: dict[str, builtins.list[int | None]] = {}
        for index, ranked in enumerate(lists):
            for rank, memory_id in enumerate(ranked, start=1):
                ranks.setdefault(memory_id, [None] * len(lists))[index] = rank
        scored: builtins.list[tuple[float, str, RecalledMemory]] = []
        for row in found:
            if kinds and row["kind"] not in kinds:
                continue
            seen = max(row["last_seen_at"], row["last_accessed_at"] or 0.0)
            parts = ScoreParts(
                recency=recency(now - seen, self.settings.half_life_days),
                importance=importance_norm(row["importance"]),
                relevance=rrf_relevance(ranks.get(row["id"], []), self.settings.rrf_k),
            )
            score = combine(parts, self.settings, False)
            scored.append((score, row["id"], RecalledMemory(_memory(row), score, parts)))
        scored.sort(key=lambda item: (-item[0], item[1]))
        chosen = [recalled for _, _, recalled in scored[: max(0, limit)]]
        if chosen:
            ids = [r.memory.id for r in chosen]
            self.db.run(lambda conn: rows.touch(conn, ids, now))
        return chosen

    def count(self) -> int:
        return self.db.run(lambda conn: rows.count(conn, RECALLABLE_STATUSES))
