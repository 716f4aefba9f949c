"""The model writes what docs/memory.md says a model writes: template summaries (with a retry
and the rule fallback), level-2 distillation, the extraction's model stage — each call
in the task's ledger; and the task's answer never depends on them."""

from __future__ import annotations

import json
import sqlite3
from collections import deque
from collections.abc import Callable
from typing import Any

import pytest

from codekeep.agent.exploration import ExplorationBudget
from codekeep.agent.writer import DISTIL_INSTRUCTIONS
from codekeep.memory import MemorySettings
from codekeep.memory.events import SUMMARY_TEMPLATE
from codekeep.memory.extraction import MODEL_INSTRUCTIONS
from codekeep.memory.model import STATUSES
from codekeep.testing.scripted_server import Reply, call, http_error, say

PNPM = "We use pnpm in this repo, never npm, and the tests run with `pnpm test:unit`."
LOG = "\n".join(f"E   AssertionError: line {i} of the failing checkout log" for i in range(150))
GOOD_SUMMARY = json.dumps({"files": ["pkg/billing.py"], "operations": "read compute_total",
                           "result": "found where totals are computed"})
NO_MEMORIES = json.dumps({"memories": []})


def router(loop: list[Reply], *, summaries: list[Reply] | None = None,
           extraction: Reply | None = None, distil: Reply | None = None
           ) -> Callable[[dict[str, Any]], Reply]:
    """Answer the agent's loop calls from ``loop`` and its memory calls by their prompt."""
    turns, written = deque(loop), deque(summaries or [])

    def respond(body: dict[str, Any]) -> Reply:
        system = str(body["messages"][0].get("content") or "")
        if system == SUMMARY_TEMPLATE:
            return written.popleft() if written else say(GOOD_SUMMARY)
        if system.startswith(MODEL_INSTRUCTIONS[:40]):
            return extraction or say(NO_MEMORIES)
        if system == DISTIL_INSTRUCTIONS:
            return distil or say("distilled")
        return turns.popleft()

    return respond


def kinds_of(body_list: list[dict[str, Any]]) -> list[str]:
    names = []
    for body in body_list:
        system = str(body["messages"][0].get("content") or "")
        names.append("summary" if system == SUMMARY_TEMPLATE else "extraction"
                     if system.startswith(MODEL_INSTRUCTIONS[:40]) else "distil"
                     if system == DISTIL_INSTRUCTIONS else "loop")
    return names


@pytest.fixture
def memory_settings() -> MemorySettings:
    return MemorySettings(summary_threshold_tokens=500)


async def test_extraction_learns_from_what_the_user_said(harness):
    extraction = say(json.dumps({"memories": [
        {"kind": "soft_preference", "content": "explain the root cause before the fix",
         "confidence": 0.9, "evidence": {"source": "user", "quote": "root cause first"}}]}))
    harness.server.set_responder(router(
        [call("read_file", {"path": "pkg/billing.py"}), say("compute_total sums prices.")],
        extraction=extraction))
    result = await harness.run(PNPM + " Root cause first, please. What does compute_total do?")
    assert result.answer == "compute_total sums prices."
    assert kinds_of(harness.server.requests) == ["loop", "loop", "extraction"]
    written = {(w["stage"], w["content"], w["action"]) for w in result.extracted["written"]}
    assert written == {("model", "explain the root cause before the fix", "ADD"),
                       ("rule", "package_manager: pnpm", "ADD"),
                       ("rule", "test_command: pnpm test:unit", "ADD")}
    observed = {m.content: m.status for m in harness.memory.list(statuses=STATUSES)
                if m.source in ("automatic_rule", "automatic_llm")}
    assert set(observed.values()) == {"observed"}
    rows = harness.ledger_rows(result.task_id)
    assert [row["call_type"] for row in rows] == ["tool", "read_code.file", "other"]
    assert json.loads(rows[2]["files"]).keys() <= {"<system prompt>", "<conversation>"}
    assert result.ledger["total"]["calls"] == 3  # the extraction call is the task's too
    assert result.to_json()["memory"]["summaryId"] == result.summary_id


async def test_a_second_task_saying_it_again_makes_it_knowledge(harness):
    for _ in range(2):
        harness.server.set_responder(router([say("noted")]))
        await harness.run(PNPM)
    assert harness.memory.preferences()["package_manager"] == "pnpm"
    assert harness.memory.preferences()["test_command"] == "pnpm test:unit"


async def test_a_model_summary_missing_a_field_is_retried_once(harness):
    bad = say(json.dumps({"files": ["pkg/billing.py"], "operations": "read it"}))
    harness.server.set_responder(router(
        [call("read_file", {"path": "pkg/billing.py"}), say("done")], summaries=[bad]))
    result = await harness.run("Why does checkout fail? Log:\n" + LOG)
    # mid-task: rejected, retried; the short remainder at the end gets the rule summary
    assert kinds_of(harness.server.requests) == ["loop", "summary", "summary", "loop",
                                                 "extraction"]
    retry = harness.server.requests[2]["messages"]
    assert "missing the result field" in retry[-1]["content"]
    summaries = [m for m in harness.memory.list(kinds=["summary"]) if m.task_id == result.task_id]
    by_model = [m for m in summaries if "written by the model" in m.content]
    assert len(by_model) == 1 and "Result: found where totals are computed" in by_model[0].content
    rows = harness.ledger_rows(result.task_id)
    assert [row["call_type"] for row in rows].count("summarize") == 2


async def test_a_summary_inventing_a_file_falls_back_to_the_rule_one(harness):
    ghost = say(json.dumps({"files": ["pkg/ghost.py"], "operations": "x", "result": "y"}))
    harness.server.set_responder(router(
        [call("read_file", {"path": "pkg/billing.py"}), say("done")], summaries=[ghost, ghost]))
    result = await harness.run("Why does checkout fail? Log:\n" + LOG)
    assert result.answer == "done"
    summaries = [m for m in harness.memory.list(kinds=["summary"])
                 if m.task_id == result.task_id]
    assert not any("written by the model" in m.content for m in summaries)
    rejected = [h for m in summaries for h in harness.memory.history(m.id)
                if h["action"] == "MODEL_SUMMARY_REJECTED"]
    assert len(rejected) == 1 and rejected[0]["detail"]["reason"] == (
        "the model's summary names a file that does not exist: pkg/ghost.py")


async def test_an_endpoint_failing_for_memory_calls_leaves_the_answer_alone(harness):
    broken = http_error(400, "bad request")
    harness.server.set_responder(router(
        [call("read_file", {"path": "pkg/billing.py"}), say("still answered")],
        summaries=[broken], extraction=broken))
    result = await harness.run(PNPM + " Why does checkout fail? Log:\n" + LOG)
    assert result.answer == "still answered"
    rejected = result.extracted["rejected"]
    assert any("the model call failed" in r["reason"] for r in rejected)
    assert {w["content"] for w in result.extracted["written"]} >= {"package_manager: pnpm"}
    history = harness.memory.history(result.summary_id)
    assert any(h["action"] == "EXTRACT_REJECTED" for h in history)


async def test_level_two_distillation_is_a_model_call(harness):
    chunks = [call("read_file", {"path": "pkg/big.py", "start_line": 1 + 30 * i,
                                 "end_line": 30 * (i + 1)}) for i in range(14)]
    note = "read pkg/big.py lines 1-120: generated_function_0..39 defined; nothing decided yet"
    harness.server.set_responder(router([*chunks, say("read it all")], distil=say(note)))
    result = await harness.run("Read big.py in chunks", context_window=7000,
                               budget=ExplorationBudget(convergence_min_rounds=99))
    assert result.answer == "read it all"
    kinds = kinds_of(harness.server.requests)
    assert "distil" in kinds
    after = harness.server.requests[kinds.index("distil") + 1]["messages"]
    assert any(note in str(m.get("content") or "") and "rounds 1-" in str(m.get("content"))
               for m in after)
    rows = harness.ledger_rows(result.task_id)
    distils = [row for body, row in zip(harness.server.requests, rows, strict=False)
               if kinds_of([body]) == ["distil"]]
    assert distils and {row["call_type"] for row in distils} == {"summarize"}


async def test_model_summaries_off_means_no_memory_calls(harness):
    harness.memory.settings = MemorySettings(model_summaries=False,
                                             summary_threshold_tokens=500)
    harness.server.set_responder(router([call("read_file", {"path": "pkg/billing.py"}),
                                         say("done")]))
    result = await harness.run(PNPM + " Log:\n" + LOG)
    assert kinds_of(harness.server.requests) == ["loop", "loop"]
    assert {w["content"] for w in result.extracted["written"]} == {
        "package_manager: pnpm", "test_command: pnpm test:unit"}  # the rule stage still runs


async def test_an_endpoint_timing_out_on_extraction_loses_nothing(harness):
    slow = say(json.dumps({"memories": []}), delay=2.0)
    harness.server.set_responder(router([say("answered")], extraction=slow))
    result = await harness.run(PNPM, timeout=0.5, max_retries=0)
    assert result.answer == "answered"
    (failure,) = [r for r in result.extracted["rejected"] if r["stage"] == "model"]
    assert "the model call failed" in failure["reason"]
    assert {w["content"] for w in result.extracted["written"]} == {
        "package_manager: pnpm", "test_command: pnpm test:unit"}
    rows = harness.ledger_rows(result.task_id)
    assert all(row["call_type"] != "other" or row["input_tokens"] for row in rows)
    with sqlite3.connect(harness.root / ".codekeep" / "ledger.db") as conn:
        (failed,) = conn.execute("SELECT kind, detail FROM errors WHERE task_id = ?",
                                 (result.task_id,)).fetchall()
    assert "timed out" in failed[1]  # the failed extraction: an error event, not a call


SPENT = {"prompt_tokens": 400, "completion_tokens": 50}


async def test_a_budget_binds_the_memory_calls_after_the_answer(harness):
    harness.server.set_responder(router(
        [call("read_file", {"path": "pkg/billing.py"}, usage=SPENT),
         say("compute_total sums prices.", usage=SPENT)]))
    result = await harness.run(PNPM + " What does compute_total do?", token_budget=1000)
    assert kinds_of(harness.server.requests) == ["loop", "loop"]  # no summary, no extraction
    assert result.tokens == 900 and result.answer == "compute_total sums prices."
    reasons = [r["reason"] for r in result.extracted["rejected"]]
    assert any(r.startswith("not sent: the token budget has no room") for r in reasons)
    first = harness.server.requests[0]
    assert first["max_tokens"] <= 1000  # each reply's allowance is bounded by the budget


async def test_past_a_hard_budget_nothing_more_is_sent(harness):
    harness.ledger.set_budget(daily=500, hard_stop=True)
    harness.server.set_responder(router(
        [call("find_symbol", {"name": "compute_total"}, usage=SPENT),
         call("read_file", {"path": "pkg/billing.py"}, usage=SPENT),
         say("never asked", usage=SPENT)]))
    result = await harness.run("What does compute_total do?")
    assert kinds_of(harness.server.requests) == ["loop", "loop"]
    assert result.stop_reason == "token_budget"
    assert result.answer.startswith("Stopped: the token budget is spent (900 of 500 tokens)")


async def test_past_a_soft_budget_only_the_one_wrap_up_call_runs(harness):
    harness.server.set_responder(router(
        [call("find_symbol", {"name": "compute_total"}, usage=SPENT),
         call("read_file", {"path": "pkg/billing.py"}, usage=SPENT),
         call("read_file", {"path": "pkg/checkout.py"}, usage=SPENT),  # ignores "tools off"
         say("never asked", usage=SPENT)]))
    result = await harness.run("What does compute_total do?", token_budget=800)
    assert kinds_of(harness.server.requests) == ["loop", "loop", "loop"]
    assert harness.server.requests[2]["tool_choice"] == "none"  # the wrap-up
    assert result.stop_reason == "token_budget"
