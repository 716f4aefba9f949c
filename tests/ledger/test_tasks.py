from __future__ import annotations

from codekeep.ledger import Ledger
from tests.ledger.support import FakeClock, LedgerFactory

IDLE = 300.0


def call(ledger: Ledger, task: str | None, tokens: int = 10) -> str:
    return ledger.record(task_id=task, call_type="tool", model="m", input_tokens=tokens).task_id


def test_calls_without_a_task_share_the_current_task_until_it_goes_idle(
        ledger: Ledger, clock: FakeClock) -> None:
    first = call(ledger, None)
    clock.advance(IDLE - 1)
    assert call(ledger, None) == first       # activity keeps it open
    clock.advance(IDLE)
    later = call(ledger, None)
    assert later != first                    # no activity for 5 min: a new task
    assert later.startswith("task-")


def test_a_closed_named_task_gets_a_continuation_instead_of_old_records(
        ledger: Ledger, clock: FakeClock) -> None:
    assert call(ledger, "fix-login") == "fix-login"      # unknown: opened under its name
    clock.advance(IDLE + 1)
    assert call(ledger, "fix-login") == "fix-login#2"    # idle-closed: continuation
    assert call(ledger, "fix-login") == "fix-login#2"    # which stays current while open
    rows = ledger.report(task_id="fix-login", group_by="task")["rows"]
    assert {row["key"]: row["calls"] for row in rows} == {"fix-login": 1, "fix-login#2": 2}
    assert ledger.report(task_id="fix-login#2")["total"]["calls"] == 2


def test_an_adopted_task_is_continued_by_calls_without_a_task_id(
        ledger: Ledger, clock: FakeClock) -> None:
    """An editor's task: calls without a task id keep landing on it after it closed."""
    assert ledger.adopt_task("nvim") == "nvim"
    assert call(ledger, None) == "nvim"
    with ledger.task("nvim") as session:                 # an agent run on it closes it
        assert session.id == "nvim"
    assert call(ledger, None) == "nvim#2"                # continued, not a new task
    clock.advance(IDLE + 1)
    assert call(ledger, None) == "nvim#3"                # idle-closed: continued again
    assert call(ledger, "other") == "other"              # named calls go where they say
    assert call(ledger, None) == "nvim#3"
    assert ledger.report(task_id="nvim")["total"]["calls"] == 4
    assert ledger.adopt_task() == "nvim#3"               # none given: the current one


def test_session_exit_closes_the_task(ledger: Ledger) -> None:
    with ledger.task("review") as session:
        assert session.record(call_type="plan", model="m", input_tokens=5).task_id == "review"
        assert call(ledger, None) == "review"            # current task inside the session
    assert call(ledger, "review") == "review#2"
    assert call(ledger, None) != "review"                # no longer current


def test_session_without_id_generates_one_and_follows_a_timeout(
        ledger: Ledger, clock: FakeClock) -> None:
    with ledger.task() as session:
        opened = session.id
        clock.advance(IDLE * 2)
        record = session.record(call_type="plan", model="m", input_tokens=5)
        assert record.task_id == session.id == f"{opened}#2"


def test_task_state_survives_a_restart(open_ledger: LedgerFactory, clock: FakeClock) -> None:
    first = open_ledger()
    call(first, "build")
    first.close()
    clock.advance(60)
    second = open_ledger()
    assert call(second, "build") == "build"              # still open: same task
    second.end_task("build")
    second.close()
    third = open_ledger()
    assert call(third, "build") == "build#2"             # ended in another process


def test_task_kept_busy_by_another_writer_stays_open(
        open_ledger: LedgerFactory, clock: FakeClock) -> None:
    first, second = open_ledger(), open_ledger()
    call(first, "shared")
    for _ in range(3):
        clock.advance(IDLE - 10)
        call(second, "shared")
        second.flush()
    assert call(first, "shared") == "shared"


def test_a_budget_on_a_task_name_covers_its_continuations(
        ledger: Ledger, clock: FakeClock) -> None:
    thresholds: list[tuple[str, float, int]] = []
    ledger.subscribe(lambda e: thresholds.append((e.task_id, e.threshold, e.used)))
    ledger.set_budget("job", limit=100)
    call(ledger, "job", 80)
    clock.advance(IDLE + 1)                  # a pause does not reset the budget
    assert call(ledger, "job", 30) == "job#2"
    assert thresholds == [("job", 0.75, 80), ("job#2", 1.0, 110)]
    for asked in ("job", "job#2"):
        state = ledger.budget_state(asked)["task"]
        assert (state["taskId"], state["used"], state["limit"]) == ("job", 110, 100)


def test_a_budget_on_a_continuation_covers_only_it(ledger: Ledger, clock: FakeClock) -> None:
    call(ledger, "job", 500)
    clock.advance(IDLE + 1)
    call(ledger, "job", 1)
    ledger.set_budget("job#2", limit=100)
    call(ledger, "job", 10)
    state = ledger.budget_state("job#2")["task"]
    assert (state["taskId"], state["used"]) == ("job#2", 11)


def test_continuation_usage_survives_a_restart(open_ledger: LedgerFactory,
                                               clock: FakeClock) -> None:
    first = open_ledger()
    first.set_budget("job", limit=1000)
    call(first, "job", 300)
    clock.advance(IDLE + 1)
    call(first, "job", 300)
    first.close()
    second = open_ledger()
    events: list[float] = []
    second.subscribe(lambda e: events.append(e.threshold))
    assert call(second, "job", 200) == "job#2"      # 800 of 1000 for the whole job
    assert events == [0.75]
