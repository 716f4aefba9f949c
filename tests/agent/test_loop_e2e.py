"""The agent loop end to end: real services, real tools, a scripted model over HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest

from codekeep.agent.exploration import ExplorationBudget
from codekeep.settings.agent import ModelNotConfigured
from codekeep.testing.scripted_server import ScriptedCall, call, calls, http_error, say

USAGE = {"prompt_tokens": 400, "completion_tokens": 25}


async def test_find_symbol_then_read_file_then_answer(harness):
    harness.server.push(
        call("find_symbol", {"name": "compute_total"}, usage=USAGE),
        call("read_file", {"path": "pkg/billing.py", "start_line": 4, "end_line": 6},
             usage=USAGE),
        say("compute_total is defined in pkg/billing.py:4 and called by checkout in "
            "pkg/checkout.py:5.", usage=USAGE),
    )
    result = await harness.run("Where is compute_total defined and who calls it?")

    assert result.answer.startswith("compute_total is defined in pkg/billing.py:4")
    assert (result.iterations, result.stop_reason) == (3, "answered")
    calls = [(c.name, c.outcome, c.files) for c in result.tool_calls]
    assert calls == [("find_symbol", "ok", ("pkg/billing.py",)),
                     ("read_file", "ok", ("pkg/billing.py",))]
    assert all(c.duration_ms > 0 for c in result.tool_calls)
    assert result.to_json()["toolCalls"][1]["name"] == "read_file"
    first = harness.server.requests[0]
    offered = {tool["function"]["name"] for tool in first["tools"]}
    assert "find_symbol" in offered and "write_file" not in offered  # chat capability only
    assert first["tool_choice"] == "auto"
    assert first["messages"][1] == {"role": "user", "content":
                                    "Where is compute_total defined and who calls it?"}
    found = harness.server.tool_messages(1)
    assert len(found) == 1 and "pkg/billing.py" in found[0]["content"]
    read = harness.server.tool_messages(2)
    assert "return sum(item.price for item in items)" in read[-1]["content"]

    rows = harness.ledger_rows(result.task_id)
    assert [row["token_source"] for row in rows] == ["provider"] * 3
    assert [(row["input_tokens"], row["output_tokens"]) for row in rows] == [(400, 25)] * 3
    # lookup -> asking for a read -> the answer whose prompt carries the code read
    assert [row["call_type"] for row in rows] == ["plan", "tool", "read_code.file"]
    assert result.tokens == 3 * 425
    assert result.ledger is not None and result.ledger["total"]["calls"] == 3
    files = harness.ledger.report(task_id=result.task_id)["byFile"]
    assert "pkg/billing.py" in {row["path"] for row in files}

    summaries = [m for m in harness.memory.list(kinds=["summary"]) if m.task_id == result.task_id]
    assert summaries, "the task summary was written to memory"
    assert "compute_total" in summaries[0].content
    progress = harness.kinds("progress")
    assert [p["step"] for p in progress if not p.get("done")] == [1, 2, 3]
    assert progress[-1]["done"] is True


async def test_hallucinated_tool_is_refused_and_the_model_is_told(harness):
    harness.server.push(call("delete_repository", {"really": True}), say("I cannot do that."))
    result = await harness.run("Clean up the repository")
    refusal = harness.server.tool_messages(1)[0]["content"]
    assert refusal.startswith("REFUSED") and "delete_repository" in refusal
    assert result.answer == "I cannot do that."
    assert harness.kinds("tool")[0]["outcome"] == "refused"


async def test_path_escape_is_refused_by_the_safety_pipeline(harness, tmp_path):
    (tmp_path / "secret.txt").write_text("TOP SECRET")
    harness.server.push(call("read_file", {"path": "../secret.txt"}), say("Not allowed."))
    await harness.run("Read ../secret.txt")
    refusal = harness.server.tool_messages(1)[0]["content"]
    assert refusal.startswith("REFUSED") and "TOP SECRET" not in refusal


async def test_malformed_tool_arguments_are_repaired_or_sent_back(harness):
    harness.server.push(
        calls(ScriptedCall("read_file", "```json\n{'path': 'pkg/billing.py', 'end_line': 2,}\n```",
                           id="c1"),
              ScriptedCall("read_file", "read the billing file please", id="c2")),
        say("done"),
    )
    result = await harness.run("Show the top of billing.py")
    repaired, unreadable = harness.server.tool_messages(1)
    assert repaired["tool_call_id"] == "c1" and "Prices and totals" in repaired["content"]
    assert unreadable["tool_call_id"] == "c2"
    assert unreadable["content"].startswith("ERROR [arguments]")
    assert "Resend the call" in unreadable["content"]
    assert result.answer == "done"


async def test_429_then_success_records_the_retry_in_the_ledger(harness):
    harness.server.push(http_error(429, "rate limited", retry_after=0.05), say("ok", usage=USAGE))
    result = await harness.run("Say ok")
    assert result.answer == "ok"
    rows = harness.ledger_rows(result.task_id)
    assert [(row["retry"], row["input_tokens"]) for row in rows] == [(1, 400)]
    # the refused attempt is an error event, not a call of 0 tokens
    assert harness.ledger.report(task_id=result.task_id)["errors"]["byKind"] == {"api": 1}


async def test_cancelling_a_slow_model_call_closes_the_task_cleanly(harness):
    harness.server.push(call("read_file", {"path": "pkg/billing.py"}, usage=USAGE),
                        say("too late", delay=5.0))
    loop = harness.loop()
    task = asyncio.create_task(loop.run("Explain billing"))
    for _ in range(100):
        if len(harness.server.requests) == 2:
            break
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    task_id = harness.kinds("progress")[0]["taskId"]
    assert len(harness.ledger_rows(task_id)) == 1  # the first call, flushed on the way out
    assert harness.kinds("progress")[-1] == {"taskId": task_id, "phase": "EXPLORE",
                                             "step": 1, "done": True,
                                             "stopReason": "cancelled"}
    events = harness.memory.events.unsummarised(task_id)
    assert [e.event_type for e in events][-1] == "cancelled"


async def test_context_overflow_goes_through_every_compression_level(harness):
    chunks = [call("read_file", {"path": "pkg/big.py", "start_line": 1 + 30 * i,
                                 "end_line": 30 * (i + 1)}) for i in range(14)]
    harness.server.push(*chunks, say("read it all"))
    result = await harness.run("Read big.py in chunks", context_window=7000,
                               budget=ExplorationBudget(convergence_min_rounds=99))
    levels = [event["level"] for event in harness.kinds("context")]
    assert levels[:3] == [1, 2, 3]
    last = harness.server.requests[-1]["messages"]
    assert last[1]["content"] == "Read big.py in chunks"  # the first user message stays
    assert "earlier rounds were removed" in last[0]["content"]  # in the one system message
    joined = [m.get("content") or "" for r in harness.server.requests for m in r["messages"]]
    assert any("were dropped to save context" in text for text in joined)  # level 1
    assert any("Earlier rounds, distilled" in text for text in joined)  # level 2
    assert result.answer == "read it all"


async def test_convergence_nudge_after_idle_rounds(harness):
    same = {"path": "pkg/billing.py", "start_line": 1, "end_line": 3}
    harness.server.push(*[call("read_file", same) for _ in range(11)], say("converged"))
    result = await harness.run("Look at billing")
    nudges = harness.kinds("nudge")
    assert "convergence" in [n["type"] for n in nudges]
    index = next(i for i, r in enumerate(harness.server.requests)
                 if any("Information has saturated" in (m.get("content") or "")
                        for m in r["messages"] if m["role"] == "system"))
    assert index == 10  # after 10 rounds, the last 3+ of them without anything new
    assert result.answer == "converged"


async def test_budget_notification_at_75_percent_and_warning_nudge(harness):
    harness.server.push(call("read_file", {"path": "pkg/billing.py"}, usage=USAGE),
                        call("read_file", {"path": "pkg/checkout.py"}, usage=USAGE),
                        say("within budget", usage=USAGE))
    result = await harness.run("Read both files", token_budget=1100)
    budget = harness.kinds("budget")
    assert budget and budget[0]["threshold"] == 0.75 and budget[0]["limit"] == 1100
    assert budget[0]["used"] == 850
    warning = [n for n in harness.kinds("nudge") if n["type"] == "budget_warning"]
    assert warning and "of the token budget" in warning[0]["text"]
    order = [kind for kind, _ in harness.events if kind in ("budget", "nudge")]
    assert order.index("budget") < order.index("nudge", order.index("budget"))
    assert result.answer == "within budget"


async def test_tool_choice_none_in_summarize_after_the_iteration_limit(harness):
    harness.server.push(*[call("read_file", {"path": "pkg/big.py", "start_line": i * 5 + 1,
                                             "end_line": i * 5 + 5}) for i in range(3)],
                        say("final summary"))
    result = await harness.run("Keep reading", budget=ExplorationBudget(max_iterations=4))
    assert harness.server.requests[-1]["tool_choice"] == "none"
    assert result.answer == "final summary" and result.iterations == 4
    assert result.stop_reason == "iterations"
    assert result.nudges[-1]["type"] == "force_exit"


async def test_no_model_configured_is_a_clear_error(harness):
    loop = harness.loop(model=None)
    with pytest.raises(ModelNotConfigured, match="CODEKEEP_MODEL"):
        await loop.run("anything")
    assert harness.server.requests == []


async def test_a_model_that_ignores_tool_choice_none_still_stops(harness):
    read = call("read_file", {"path": "pkg/billing.py", "start_line": 1, "end_line": 2})
    harness.server.push(read, read, call("read_file", {"path": "pkg/checkout.py"}))
    result = await harness.run("Keep going", budget=ExplorationBudget(max_iterations=3))
    assert harness.server.requests[-1]["tool_choice"] == "none"
    assert len(harness.server.requests) == 3  # never a 4th call
    assert result.stop_reason == "iterations"
    assert result.answer.startswith("Stopped after the iteration limit")
    assert "read_file" in result.answer  # what was found is still reported
    assert harness.kinds("tool")[-1]["outcome"] == "refused"


async def test_without_provider_usage_the_ledger_counts_the_text(harness):
    harness.server.push(call("read_file", {"path": "pkg/billing.py"}, report_usage=False),
                        say("counted locally", report_usage=False))
    result = await harness.run("Count without usage")
    rows = harness.ledger_rows(result.task_id)
    assert [row["token_source"] for row in rows] == ["tiktoken", "tiktoken"]
    assert all(row["input_tokens"] > 100 for row in rows)  # the prompt was counted
    assert [row["call_type"] for row in rows] == ["tool", "read_code.file"]
    files = json.loads(rows[1]["files"])  # the counted prompt is still split by what it carried
    assert sum(entry[1] for entry in files.values()) == rows[1]["input_tokens"]
    assert files["pkg/billing.py"][1] > 0

async def test_noted_findings_are_offered_to_long_term_memory(harness):
    finding = "compute_total in pkg/billing.py sums item.price over the cart items"
    harness.server.push(
        call("read_file", {"path": "pkg/billing.py"}),
        call("note_finding", {"finding": finding, "evidence": "pkg/billing.py:4"}),
        say("compute_total sums the prices."),
    )
    result = await harness.run("What does compute_total do?")
    assert [p["content"] for p in result.proposed_facts] == [finding]
    assert result.proposed_facts[0]["action"] != "REJECT"
    working = [m for m in harness.server.requests[2]["messages"]
               if m["role"] == "system" and "[Working memory]" in (m.get("content") or "")]
    assert working and finding in working[0]["content"]  # dynamic memory, each round
    # the model's own finding, with no quote behind it, is observed, not knowledge ...
    assert "observed, not knowledge" in result.proposed_facts[0]["reason"]
    assert not any(finding in r.memory.content
                   for r in harness.memory.recall("compute_total item price"))
    harness.server.push(say("not known"))
    await harness.run("Remind me what compute_total does")
    assert finding not in harness.server.requests[3]["messages"][0]["content"]
    # ... until the user confirms it: the next task starts with it in its memory context
    assert harness.memory.confirm(result.proposed_facts[0]["id"])
    harness.server.push(say("known already"))
    await harness.run("Remind me what compute_total does")
    assert finding in harness.server.requests[4]["messages"][0]["content"]


async def test_a_fact_the_model_asserts_alone_is_no_knowledge_the_users_words_are(harness):
    invented = "The project deploys to production on Fridays"
    said = "Releases are tagged from the main branch"
    harness.server.push(call("remember", {"content": invented}),
                        call("remember", {"content": said}), say("Noted."))
    await harness.run("FYI: releases are tagged from the main branch. Anything else?")
    told = [m["content"] for m in harness.server.tool_messages(2)]
    assert "observed, not knowledge" in told[0] and "observed" not in told[1]
    harness.server.push(say("ok"))
    await harness.run("How do we release and deploy?")
    context = harness.server.requests[3]["messages"][0]["content"]
    assert said in context and invented not in context


async def test_an_unreachable_endpoint_books_failed_connections_not_calls(harness):
    import socket

    from codekeep.ledger.reports import render_text

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with contextlib.suppress(Exception):
        await harness.run("Say ok", base_url=f"http://127.0.0.1:{port}/v1")
    report = harness.ledger.report()
    assert report["total"]["calls"] == 0
    failed = report["errors"]["byKind"]["connection"]
    assert failed >= 1 and report["errors"]["text"].endswith("failed connection" +
                                                            ("s" if failed > 1 else ""))
    assert "failed connection" in render_text(report)
