"""Phase transitions driven by metrics, tool_choice, and nudge priorities."""

from __future__ import annotations

import pytest

from codekeep.agent.exploration import (
    ExplorationBudget,
    ExplorationTracker,
    Phase,
    RoundSignal,
)
from codekeep.agent.nudges import NudgeGenerator, NudgeType

NEW = RoundSignal(("find_symbol",), new_information=True)
IDLE = RoundSignal(("search_code",), new_information=False)
SUBMIT = RoundSignal(("write_file",), submits=1)


def test_analyst_chain_scan_explore_verify_summarize_by_metrics():
    tracker = ExplorationTracker("analyst")
    assert tracker.phase is Phase.SCAN and tracker.tool_choice == "auto"
    first = tracker.record_round(NEW)
    assert first is not None and (first.target, first.reason) == (Phase.EXPLORE, "overview")
    for _ in range(8):
        assert tracker.record_round(NEW) is None  # new information keeps it exploring
    transitions = [tracker.record_round(IDLE) for _ in range(3)]
    assert transitions[:2] == [None, None]
    assert transitions[2] is not None
    assert (transitions[2].target, transitions[2].reason) == (Phase.VERIFY, "converged")
    tracker.record_round(NEW)
    done = tracker.record_round(NEW)
    assert done is not None and done.target is Phase.SUMMARIZE
    assert tracker.tool_choice == "none"


def test_convergence_needs_ten_rounds_not_just_three_idle_ones():
    tracker = ExplorationTracker("analyst")
    tracker.record_round(NEW)
    assert [tracker.record_round(IDLE) for _ in range(4)] == [None] * 4
    assert tracker.phase is Phase.EXPLORE


def test_bootstrap_text_response_moves_explore_to_produce_once():
    tracker = ExplorationTracker("bootstrap")
    moved = tracker.record_text_response()
    assert moved is not None and (moved.target, moved.reason) == (Phase.PRODUCE, "text_response")
    assert tracker.record_text_response() is None  # second text answer ends the task


def test_produce_exits_after_three_rounds_without_a_new_submit():
    tracker = ExplorationTracker("producer")
    tracker.record_round(SUBMIT)
    assert [tracker.record_round(IDLE) for _ in range(2)] == [None, None]
    exit_ = tracker.record_round(IDLE)
    assert exit_ is not None and exit_.reason == "idle_after_submit"


def test_search_budget_ends_exploring_even_with_new_information():
    tracker = ExplorationTracker("bootstrap", ExplorationBudget(search_budget=3))
    assert [tracker.record_round(NEW) for _ in range(2)] == [None, None]
    moved = tracker.record_round(NEW)
    assert moved is not None and moved.reason == "search_budget"


def test_last_iteration_forces_summarize():
    tracker = ExplorationTracker("analyst", ExplorationBudget(max_iterations=4))
    tracker.record_round(NEW)
    tracker.record_round(NEW)
    last = tracker.record_round(NEW)
    assert last is not None and (last.target, last.reason) == (Phase.SUMMARIZE, "iterations")


def test_unknown_strategy_is_a_clear_error():
    with pytest.raises(ValueError, match="choose one of"):
        ExplorationTracker("wander")


def test_nudge_priority_force_exit_beats_budget_warning_which_comes_next_round():
    tracker = ExplorationTracker("analyst", ExplorationBudget(max_iterations=4))
    nudges = NudgeGenerator(tracker)
    tracker.record_round(NEW)
    tracker.record_round(NEW)
    transition = tracker.record_round(NEW)  # 3 of 4: 75 % used and the last call is next
    first = nudges.next(transition)
    assert first is not None and first.type is NudgeType.FORCE_EXIT
    assert "no more tool calls" in first.text
    second = nudges.next(None)
    assert second is not None and second.type is NudgeType.BUDGET_WARNING
    assert nudges.next(None) is None  # each fires once


def test_convergence_beats_planning_on_the_same_transition():
    tracker = ExplorationTracker("analyst")
    nudges = NudgeGenerator(tracker)
    tracker.record_round(NEW)
    for _ in range(8):
        tracker.record_round(NEW)
    tracker.record_round(IDLE)
    tracker.record_round(IDLE)
    transition = tracker.record_round(IDLE)
    nudge = nudges.next(transition, findings="- Foo is in a.py")
    assert nudge is not None and nudge.type is NudgeType.CONVERGENCE
    assert "saturated" in nudge.text and "Foo is in a.py" in nudge.text
    assert "VERIFY" not in nudge.text and "Check your conclusions" in nudge.text


def test_token_budget_warning_and_reflection_and_planning():
    tracker = ExplorationTracker("analyst")
    nudges = NudgeGenerator(tracker)
    planning = nudges.next(tracker.record_round(NEW))
    assert planning is not None and planning.type is NudgeType.PLANNING
    assert "now EXPLORE" in planning.text
    warning = nudges.next(None, token_ratio=0.8)
    assert warning is not None and warning.type is NudgeType.BUDGET_WARNING
    assert "80% of the token budget" in warning.text
    for _ in range(4):
        tracker.record_round(NEW)
    reflection = nudges.next(None)
    assert reflection is not None and reflection.type is NudgeType.REFLECTION


def test_soft_submit_limit_guides_towards_wrapping_up_once():
    tracker = ExplorationTracker("producer")
    nudges = NudgeGenerator(tracker)
    for _ in range(7):
        assert tracker.record_round(SUBMIT) is None
        nudge = nudges.next(None)
        assert nudge is None or nudge.type is not NudgeType.CONVERGENCE
    tracker.record_round(SUBMIT)
    wrap_up = nudges.next(None)
    assert wrap_up is not None and wrap_up.type is NudgeType.CONVERGENCE
    assert "8 results" in wrap_up.text and "hard limit 10" in wrap_up.text
    tracker.record_round(SUBMIT)
    assert tracker.phase is Phase.PRODUCE  # soft: no cut-off yet
    last = tracker.record_round(SUBMIT)
    assert last is not None and last.reason == "max_submits"
