"""The ``team`` memory scope: the local write path on the team's rows, and recall scored
like SQLite's.

Writes are not handled here: the memory service runs its one write path
(:meth:`WritePath.remember`: safety filter — secrets redacted *before* the text leaves
the machine — eligibility gate, canonical form, the ADD / REINFORCE / SUPERSEDE /
UPDATE / MERGE / SKIP state machine, history) with :class:`TeamStore` as the target,
and its feedback methods (forget, confirm, "not this") the same way. This module is the
:class:`~codekeep.memory.team_scope.TeamScope` that memory declares and the services hand
it: recall over PostgreSQL, and the store a promoted memory is written to.

Recall ranks the team's candidates with the score local recall uses
(``0.2·recency + 0.3·importance + 0.5·relevance``, relevance the reciprocal-rank fusion
of PostgreSQL's ``ts_rank`` list and the file/symbol matches, "not this" halving it),
so local and team results can be merged by score.
"""

from __future__ import annotations

import builtins
import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codekeep.memory.model import RECALLABLE_STATUSES, Memory, RecalledMemory, ScoreParts
from codekeep.memory.scoring import combine, importance_norm, recency, rrf_relevance
from codekeep.memory.store.access import AccessLog
from codekeep.settings.memory import MemorySettings
from codekeep.settings.team import TeamSettings
from codekeep.team.config import TeamConfig, team_config
from codekeep.team.errors import TeamError
from codekeep.team.store import TeamDatabase
from codekeep.team.store import memories as rows
from codekeep.team.store.memories import TeamStore, memory_of, query_terms

_POOL = 30
_PATHLIKE = re.compile(r"[\w.-]*[/\\][\w./\\-]+|[\w-]+\.[A-Za-z]{1,5}\b")


log = logging.getLogger(__name__)


def open_team_memory(team: TeamSettings, settings: MemorySettings,
                     root: Path) -> tuple[TeamMemory | None, str | None]:
    """The team scope for folder ``root`` and, when a configured DSN cannot be used at all
    (not PostgreSQL ...), the one-line reason instead; (None, None) without a DSN."""
    config = team_config(team, root)
    if config is None:
        return None, None
    try:
        return TeamMemory(config, settings, config.database(root)), None
    except TeamError as exc:  # said on first team use, not at open
        return None, str(exc)


class TeamMemory:
    """The team scope of one member, on one team database."""

    def __init__(self, config: TeamConfig, settings: MemorySettings,
                 db: TeamDatabase | None = None) -> None:
        self.store = TeamStore(db or config.database(), config.member)
        self.member = config.member
        self.settings = settings
        # recalls counted here and written with a later recall's read (when due) or on
        # close: a recall is one round trip to the team database, not two
        self._access = AccessLog()

    def close(self) -> None:
        """Write the queued recalls (a database that cannot take them loses only those
        counts), then let the connection go."""
        counted = self._access.take()
        try:
            if counted:
                self.store.read(lambda conn: rows.add_accesses(conn, counted), implicit=True)
        except TeamError as error:
            log.warning("team recall counts not written: %s", error)
        finally:
            self.store.close()

    def list(
        self, statuses: Sequence[str], kinds: Sequence[str] | None, limit: int
    ) -> builtins.list[Memory]:
        found = self.store.read(lambda conn: rows.recent(conn, statuses, kinds, limit))
        return [memory_of(row) for row in found]

    def recall(
        self,
        text: str,
        limit: int,
        kinds: Sequence[str] | None = None,
        files: Sequence[str] = (),
        symbols: Sequence[str] = (),
    ) -> builtins.list[RecalledMemory]:
        """The team's best ``limit`` memories for a query, scored like local recall.

        Implicit (every recall asks): a database that failed a moment ago is not tried
        again until its backoff ends."""
        words = query_terms(text)
        linked_files = list(files) + [m.replace("\\", "/") for m in _PATHLIKE.findall(text)]
        now = self.settings.clock()

        def gather(conn: Any) -> tuple[builtins.list[list[str]], builtins.list[dict[str, Any]]]:
            lists: builtins.list[builtins.list[str]] = []
            if words:
                lists.append([i for i, _ in rows.search(conn, words, RECALLABLE_STATUSES,
                                                        kinds, _POOL)])
            if linked_files or symbols:
                lists.append(rows.linked(conn, linked_files, symbols, RECALLABLE_STATUSES, _POOL))
            if not lists:
                return lists, rows.recent(conn, RECALLABLE_STATUSES, kinds, _POOL)
            wanted = sorted({i for ranked in lists for i in ranked})
            return lists, rows.load(conn, wanted)

        # Carried by this read's own transaction (recall never runs inside a team write
        # transaction, where the counts would be taken for written before it commits).
        counted = self._access.take() if self._access.due() else []

        def carry_and_gather(conn: Any) -> tuple[builtins.list[list[str]],
                                                 builtins.list[dict[str, Any]]]:
            rows.add_accesses(conn, counted)
            return gather(conn)

        try:
            lists, found = self.store.read(carry_and_gather, implicit=True)
        except BaseException:  # not written: queued again, older first
            self._access.rolled_back()
            raise
        self._access.committed()
        ranks: dict[str, builtins.list[int | None]] = {}
        for index, ranked in enumerate(lists):
            for rank, memory_id in enumerate(ranked, start=1):
                ranks.setdefault(memory_id, [None] * len(lists))[index] = rank
        scored: builtins.list[tuple[float, str, RecalledMemory]] = []
        for row in found:
            if kinds and row["kind"] not in kinds:
                continue
            if row["expires_at"] is not None and row["expires_at"] <= now:
                continue
            _count, accessed = self._access.seen(row["id"], row["access_count"],
                                                 row["last_accessed_at"])
            seen = max(row["last_seen_at"], accessed or 0.0)
            parts = ScoreParts(
                recency=recency(now - seen, self.settings.half_life_days),
                importance=importance_norm(row["importance"]),
                relevance=rrf_relevance(ranks.get(row["id"], []), self.settings.rrf_k),
            )
            score = combine(parts, self.settings, bool(row["negative"]))
            scored.append((score, row["id"], RecalledMemory(memory_of(row), score, parts)))
        scored.sort(key=lambda item: (-item[0], item[1]))
        chosen = [recalled for _, _, recalled in scored[: max(0, limit)]]
        self._access.add([r.memory.id for r in chosen], now)
        return chosen

    def count(self) -> int:
        return self.store.read(lambda conn: rows.count(conn, RECALLABLE_STATUSES))
