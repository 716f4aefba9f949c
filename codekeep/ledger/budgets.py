"""Budgets per task and per day, and noticing when a call crosses a threshold.

Usage is counted in tokens (input + output; cached input is part of input). Each
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


class BudgetTracker:
    """Running usage per task and for the current day. Called under the ledger's lock."""

    def __init__(self, store: LedgerStore, ratios: Sequence[float]) -> None:
        self._store = store
        self._ratios = tuple(sorted(ratios))
        self._budgets: dict[tuple[str, str], Budget] = store.budgets()
        self._task_used: dict[str, int] = {}
        self._day = ""
        self._day_used = 0
        self._announced: set[tuple[str, str, int, float]] = set()

    def reload_budgets(self) -> None:
        """Pick up limits set by another process (``codekeep ledger budget``)."""
        self._budgets = self._store.budgets()

    def set(self, scope: BudgetScope, key: str, budget: Budget | None) -> None:
        self._store.set_budget(scope, key, budget)
        self.reload_budgets()

    def task_budget(self, task_id: str, root: str) -> Budget | None:
        return self._budgets.get((TASK, task_id)) or self._budgets.get((TASK, root))

    def daily_budget(self) -> Budget | None:
        return self._budgets.get((DAILY, DAILY_KEY))

    def add(self, task_id: str, root: str, day: str, tokens: int, now: float) -> Crossings | None:
        """Count a call; return the thresholds it crossed (``None`` when nothing to do)."""
        task_used = self._task_used.get(task_id)
        if task_used is None:
            task_used = self._store.task_usage(task_id)
        task_used += tokens
        self._task_used[task_id] = task_used
        if day != self._day:
            self._day, self._day_used = day, self._store.day_usage(day)
        self._day_used += tokens
        if not self._budgets:
            return None
        claims: list[Claim] = []
        hard: HardStop | None = None
        for scope, key, used, budget in (
            (TASK, task_id, task_used, self.task_budget(task_id, root)),
            (DAILY, day, self._day_used, self.daily_budget()),
        ):
            if budget is None:
                continue
            claims.extend(self._new_claims(scope, key, used, budget, now, task_id))
            if budget.hard_stop and used >= budget.limit and hard is None:
                hard = HardStop(scope, used, budget.limit)
        return Crossings(claims, hard) if claims or hard else None

    def refresh(self, task_ids: Iterable[str], pending: Mapping[str, int]) -> None:
        """After a flush: usage = what the database holds (all processes) + unflushed."""
        for task_id in task_ids:
            self._task_used[task_id] = self._store.task_usage(task_id) + pending.get(task_id, 0)
        if self._day:
            self._day_used = self._store.day_usage(self._day) + sum(pending.values())

    def forget(self, task_ids: Iterable[str]) -> None:
        for task_id in task_ids:
            self._task_used.pop(task_id, None)

    def state(self, task_id: str | None, root: str | None, day: str) -> dict[str, Any]:
        """``{task, daily}`` budget states for reports (``None`` where no limit is set)."""
        task_state = None
        if task_id is not None:
            budget = self.task_budget(task_id, root or task_id)
            if budget is not None:
                used = self._store.task_usage(task_id)
                task_state = _state_json({"taskId": task_id}, used, budget)
        daily = self.daily_budget()
        daily_state = None
        if daily is not None:
            daily_state = _state_json({"day": day}, self._store.day_usage(day), daily)
        return {"task": task_state, "daily": daily_state}

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
