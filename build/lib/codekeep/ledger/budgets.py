"""Budgets per task and per day, and noticing when a call crosses a threshold.

Usage is counted in tokens (input + output; cached input is part of input). A budget set
on a task name covers every incarnation of it (``X``, ``X#2`` …: a long job with pauses
cannot slip past its budget); one set on a continuation ``X#2`` covers only that. Each
threshold (default 75 % and 100 %) of each limit is announced exactly once, even across
processes: a crossing becomes a :class:`Claim` that the database accepts only once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from codekeep.ledger.records import BudgetEvent, BudgetScope
from codekeep.ledger.store import Budget, Claim, LedgerStore

TASK: BudgetScope = "task"
DAILY: BudgetScope = "daily"
DAILY_KEY = ""  # budgets table key of the daily limit
DAY = "day"


@dataclass(frozen=True, slots=True)
class HardStop:
    scope: BudgetScope
    used: int
    limit: int


@dataclass(frozen=True, slots=True)
class Crossings:
    claims: list[Claim]
    hard_stop: HardStop | None


def event_for(claim: Claim) -> BudgetEvent:
    scope: BudgetScope = TASK if claim.scope == TASK else DAILY
    return BudgetEvent(claim.task_id, claim.used, claim.limit, claim.used / claim.limit,
                       claim.threshold, scope)


UsageKey = tuple[str, str]  # ("task", task id) or ("day", YYYY-MM-DD)


class BudgetTracker:
    """Running usage per task and per day, without the recording thread waiting on I/O.

    Usage of a key = a database snapshot + what this process recorded since. The
    snapshot remembers how many of this process's tokens it already contained, so the
    flusher can refresh it (picking up other processes' calls) without any lock:
    ``used = snapshot_db + local - snapshot_written``.
    """

    def __init__(self, store: LedgerStore, ratios: Sequence[float]) -> None:
        self._store = store
        self._ratios = tuple(sorted(ratios))
        self._budgets: dict[tuple[str, str], Budget] = store.budgets()
        self._local: dict[UsageKey, int] = {}       # recorded here (recording thread)
        self._written: dict[UsageKey, int] = {}     # of those, committed (flusher)
        self._snapshots: dict[UsageKey, tuple[int, int]] = {}
        self._announced: set[tuple[str, str, int, float]] = set()

    def reload_budgets(self) -> None:
        """Pick up limits set by another process (``codekeep ledger budget``)."""
        self._budgets = self._store.budgets()

    def set(self, scope: BudgetScope, key: str, budget: Budget | None) -> None:
        self._store.set_budget(scope, key, budget)
        self.reload_budgets()

    def daily_budget(self) -> Budget | None:
        return self._budgets.get((DAILY, DAILY_KEY))

    def add(self, task_id: str, root: str, day: str, tokens: int, now: float) -> Crossings | None:
        """Count a call; return the thresholds it crossed (``None`` when nothing to do)."""
        usage = [(TASK, task_id, self._bump((TASK, task_id), tokens))]
        if root != task_id:  # the task's name: all its incarnations
            usage.append((TASK, root, self._bump((TASK, root), tokens)))
        usage.append((DAILY, day, self._bump((DAY, day), tokens)))
        if not self._budgets:
            return None
        claims: list[Claim] = []
        hard: HardStop | None = None
        for scope, key, used in usage:
            budget = self._budgets.get((scope, DAILY_KEY if scope == DAILY else key))
            if budget is None:
                continue
            claims.extend(self._new_claims(scope, key, used, budget, now, task_id))
            if budget.hard_stop and used >= budget.limit and hard is None:
                hard = HardStop(scope, used, budget.limit)
        return Crossings(claims, hard) if claims or hard else None

    def committed(self, tokens: Mapping[UsageKey, int]) -> None:
        """After a flush wrote ``tokens`` per key: refresh those keys' snapshots."""
        for key, amount in tokens.items():
            written = self._written[key] = self._written.get(key, 0) + amount
            self._snapshots[key] = (self._load(key), written)

    def forget(self, task_ids: Iterable[str]) -> None:
        """Drop snapshots of tasks written behind our back (imports); reloaded on use."""
        for task_id in task_ids:
            self._snapshots.pop((TASK, task_id), None)
        for key in [key for key in list(self._snapshots) if key[0] == DAY]:
            self._snapshots.pop(key, None)

    def state(self, task_id: str | None, root: str | None, day: str) -> dict[str, Any]:
        """``{task, daily}`` budget states for reports (``None`` where no limit is set).

        The task state is that of the budget governing ``task_id``: its own, else its
        name's (``root``), with the usage that budget counts.
        """
        task_state = None
        for key in dict.fromkeys(k for k in (task_id, root) if k is not None):
            budget = self._budgets.get((TASK, key))
            if budget is not None:
                task_state = _state_json({"taskId": key}, self._store.task_usage(key), budget)
                break
        daily = self.daily_budget()
        daily_state = None
        if daily is not None:
            daily_state = _state_json({"day": day}, self._store.day_usage(day), daily)
        return {"task": task_state, "daily": daily_state}

    def _bump(self, key: UsageKey, tokens: int) -> int:
        snapshot = self._snapshots.get(key)
        if snapshot is None:
            snapshot = self._snapshots[key] = (self._load(key), self._written.get(key, 0))
        local = self._local[key] = self._local.get(key, 0) + tokens
        return snapshot[0] + local - snapshot[1]

    def _load(self, key: UsageKey) -> int:
        kind, name = key
        return self._store.task_usage(name) if kind == TASK else self._store.day_usage(name)

    def _new_claims(self, scope: BudgetScope, key: str, used: int, budget: Budget, now: float,
                    task_id: str) -> list[Claim]:
        claims = []
        for ratio in self._ratios:
            mark = (scope, key, budget.limit, ratio)
            if used >= ratio * budget.limit and mark not in self._announced:
                self._announced.add(mark)
                claims.append(Claim(scope, key, budget.limit, ratio, now, used, task_id))
        return claims


def _state_json(base: dict[str, Any], used: int, budget: Budget) -> dict[str, Any]:
    return {**base, "used": used, "limit": budget.limit,
            "ratio": round(used / budget.limit, 4), "hardStop": budget.hard_stop}
