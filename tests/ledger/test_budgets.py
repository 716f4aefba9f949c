from __future__ import annotations

import pytest

from codekeep.ledger import BudgetEvent, BudgetExceeded, Ledger
from tests.ledger.support import FakeClock, LedgerFactory


def spend(ledger: Ledger, tokens: int, task: str = "t") -> None:
    ledger.record(task_id=task, call_type="generate_code", model="gpt-4o",
                  input_tokens=tokens, output_tokens=0)


def test_each_threshold_is_announced_exactly_once(ledger: Ledger) -> None:
    events: list[BudgetEvent] = []
    ledger.subscribe(events.append)
    ledger.set_budget("t", limit=1000)
    spend(ledger, 700)
    assert events == []
    spend(ledger, 100)   # 800: crosses 75 %
    spend(ledger, 100)   # 900: nothing new
    spend(ledger, 200)   # 1100: crosses 100 %
    spend(ledger, 500)
    assert [(e.threshold, e.used, e.limit, e.task_id, e.scope) for e in events] == [
        (0.75, 800, 1000, "t", "task"), (1.0, 1100, 1000, "t", "task")]
    assert events[1].ratio == pytest.approx(1.1)
    assert "exceeded" in events[1].message()


def test_one_call_crossing_both_thresholds_announces_both(ledger: Ledger) -> None:
    events: list[BudgetEvent] = []
    ledger.subscribe(events.append)
    ledger.set_budget("t", limit=100)
    spend(ledger, 150)
    assert [e.threshold for e in events] == [0.75, 1.0]


def test_crossing_is_flushed_immediately_and_not_repeated_by_a_second_writer(
        open_ledger: LedgerFactory) -> None:
    first, second = open_ledger(), open_ledger()
    first_events: list[BudgetEvent] = []
    second_events: list[BudgetEvent] = []
    first.subscribe(first_events.append)
    second.subscribe(second_events.append)
    first.set_budget("t", limit=100)
    spend(first, 80)                 # crossing: written at once, no explicit flush
    assert second.report(task_id="t")["total"]["inputTokens"] == 80
    spend(second, 5)                 # second writer sees 85 %: 75 % was already announced
    assert [e.threshold for e in first_events] == [0.75]
    assert second_events == []


def test_hard_stop_raises_after_storing_the_call(ledger: Ledger) -> None:
    ledger.set_budget("t", limit=100, hard_stop=True)
    spend(ledger, 60)
    with pytest.raises(BudgetExceeded) as caught:
        spend(ledger, 60)
    assert (caught.value.used, caught.value.limit, caught.value.scope) == (120, 100, "task")
    with pytest.raises(BudgetExceeded):
        spend(ledger, 1)             # every further call is stopped too
    assert ledger.report(task_id="t")["total"]["calls"] == 3   # nothing was lost
    spend(ledger, 1000, task="other")                          # other tasks are free


def test_soft_budget_never_raises(ledger: Ledger) -> None:
    ledger.set_budget("t", limit=10)
    spend(ledger, 1000)
    assert ledger.budget_state("t")["task"]["ratio"] == pytest.approx(100.0)


def test_daily_budget_counts_every_task_and_resets_the_next_day(
        ledger: Ledger, clock: FakeClock) -> None:
    events: list[BudgetEvent] = []
    ledger.subscribe(events.append)
    ledger.set_budget(daily=1000)
    spend(ledger, 400, task="a")
    spend(ledger, 400, task="b")
    assert [(e.scope, e.threshold, e.task_id) for e in events] == [("daily", 0.75, "b")]
    clock.advance(24 * 3600)
    spend(ledger, 700, task="c")
    assert len(events) == 1
    assert ledger.budget_state()["daily"]["used"] == 700


def test_limit_zero_removes_a_budget_and_bad_limits_are_rejected(ledger: Ledger) -> None:
    ledger.set_budget("t", limit=50)
    assert ledger.budget_state("t")["task"]["limit"] == 50
    ledger.set_budget("t", limit=0)
    assert ledger.budget_state("t")["task"] is None
    with pytest.raises(ValueError, match="non-negative"):
        ledger.set_budget("t", limit=-5)
    with pytest.raises(ValueError, match="needs task_id"):
        ledger.set_budget(limit=5)
    with pytest.raises(ValueError, match="give a task limit"):
        ledger.set_budget("t")


def test_raising_the_limit_arms_the_thresholds_again(ledger: Ledger) -> None:
    events: list[BudgetEvent] = []
    ledger.subscribe(events.append)
    ledger.set_budget("t", limit=100)
    spend(ledger, 80)
    ledger.set_budget("t", limit=1000)
    spend(ledger, 700)
    assert [(e.limit, e.threshold) for e in events] == [(100, 0.75), (1000, 0.75)]


def test_a_failing_listener_does_not_stop_recording(ledger: Ledger) -> None:
    seen: list[BudgetEvent] = []

    def broken(event: BudgetEvent) -> None:
        raise RuntimeError("boom")

    ledger.subscribe(broken)
    ledger.subscribe(seen.append)
    ledger.set_budget("t", limit=10)
    spend(ledger, 20)
    assert len(seen) == 2
