"""The agent against an endpoint that misbehaves the way real ones do: replies cut off at
the output limit, streams that end early. Each case streamed and not; every write
scenario checks the file on disk byte for byte."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from typing import Any

import pytest

from codekeep.agent.model_client import ModelError
from codekeep.testing.scripted_server import (
    OVERFLOW_STYLES,
    Reply,
    ScriptedCall,
    ScriptedModelServer,
    call,
    calls,
    cut_off,
    http_error,
    prompt_tokens,
    say,
)
from tests.agent.projects import BILLING

NEW_BILLING = BILLING.replace('"""Sum the price of every item."""',
                              '"""Sum the price of every item (no tax)."""')

pytestmark = pytest.mark.parametrize("stream", [True, False], ids=["streamed", "plain"])


def on_disk(harness, path: str = "pkg/billing.py") -> bytes:
    return (harness.root / path).read_bytes()


async def test_a_write_cut_off_at_the_output_limit_is_never_run(harness, stream):
    seen: list[bytes] = []

    def complete_write(body: dict[str, Any]) -> Reply:
        seen.append(on_disk(harness))  # what the file was when the model was asked again
        return call("write_file", {"path": "pkg/billing.py", "content": NEW_BILLING})

    harness.server.push(cut_off("write_file", {"path": "pkg/billing.py", "content": NEW_BILLING}),
                        complete_write, say("Documented that totals have no tax."))
    result = await harness.run("Say in compute_total's docstring that there is no tax.",
                               "edit", stream=stream)

    assert seen == [BILLING.encode()]  # the cut-off write changed nothing
    assert on_disk(harness) == NEW_BILLING.encode()  # the complete one did, exactly
    assert [(c.name, c.outcome) for c in result.tool_calls] == [
        ("write_file", "cut_off"), ("write_file", "ok")]
    assert result.stop_reason == "answered"
    first, again = harness.server.requests[0], harness.server.requests[1]
    (told,) = harness.server.tool_messages(1)
    assert told["content"].startswith("NOT RUN [cut_off]") and "finish_reason: length" in \
        told["content"] and "no file was changed" in told["content"]
    assert again["max_tokens"] > first["max_tokens"]  # a larger allowance the second time
    sent_call = next(m for m in again["messages"] if m.get("tool_calls"))
    assert sent_call["tool_calls"][0]["function"]["arguments"] == "{}"


async def test_a_model_cut_off_every_time_stops_marked_and_writes_nothing(harness, stream):
    write = {"path": "pkg/billing.py", "content": NEW_BILLING}
    harness.server.push(*(cut_off("write_file", write, keep=0.3 + i / 10) for i in range(3)))
    result = await harness.run("Say in compute_total's docstring that there is no tax.",
                               "edit", stream=stream)

    assert on_disk(harness) == BILLING.encode()
    assert result.stop_reason == "cut_off"
    assert "[cut off:" in result.answer and "no file was changed" in result.answer
    assert [c.outcome for c in result.tool_calls] == ["cut_off"] * 3
    assert len(harness.server.requests) == 3  # asked again twice, then stopped


@pytest.mark.parametrize("reason", ["max_tokens", "content_filter"])
async def test_every_cut_off_reason_is_read(harness, stream, reason):
    harness.server.push(cut_off("write_file", {"path": "pkg/new.py", "content": "x = 1\n"},
                                reason=reason), say("Gave up."), say("Gave up."))
    result = await harness.run("Create pkg/new.py.", "edit", stream=stream)
    assert not (harness.root / "pkg" / "new.py").exists()
    assert result.tool_calls[0].outcome == "cut_off"
    assert f"finish_reason: {reason}" in harness.server.tool_messages(1)[0]["content"]


async def test_a_cut_off_text_answer_is_asked_again_then_marked(harness, stream):
    harness.server.push(say("compute_total sums the pri", finish_reason="length"),
                        say("compute_total sums", finish_reason="length"),
                        say("compute_total", finish_reason="length"))
    result = await harness.run("What does compute_total do?", stream=stream)
    assert result.stop_reason == "cut_off"
    assert result.answer.startswith("compute_total\n\n[cut off:")
    again = harness.server.requests[1]["messages"]
    assert any("was cut off (finish_reason: length)" in str(m.get("content")) for m in again)


async def test_a_stream_that_ends_early_is_not_the_answer(harness, stream):
    harness.server.push(say("compute_total sums the prices of the items in a cart.",
                            ends_early=True),
                        say("compute_total sums prices."))
    result = await harness.run("What does compute_total do?", stream=stream)
    assert result.answer == "compute_total sums prices."
    assert len(harness.server.requests) == 2  # the broken reply was retried


@pytest.mark.parametrize("style", sorted(OVERFLOW_STYLES))
async def test_a_prompt_over_the_real_window_is_compressed_and_sent_again(
        harness, stream, style):
    # the model table says 8,192 tokens; the server holds 4,096 and says so its own way
    with ScriptedModelServer(window=4096, overflow_style=style) as server:
        server.push(call("read_file", {"path": "pkg/big.py"}),
                    say("generated_function_7 is in pkg/big.py."))
        result = await harness.run("Where is generated_function_7?", stream=stream,
                                   base_url=server.base_url)
        assert result.answer == "generated_function_7 is in pkg/big.py."
        assert result.stop_reason == "answered"
        refused = [b for b in server.requests if prompt_tokens(b) + b["max_tokens"] > 4096]
        assert 1 <= len(refused) <= 2  # compressed and sent again, at most twice
        if style not in ("ollama", "413"):  # it named its window: used from then on
            assert server.requests[-1]["max_tokens"] == 512
            server.push(say("again"))
            await harness.run("And generated_function_8?", stream=stream,
                              base_url=server.base_url)
            assert prompt_tokens(server.requests[-1]) + server.requests[-1]["max_tokens"] \
                <= 4096


async def test_a_prompt_that_never_fits_fails_after_two_smaller_tries(harness, stream):
    with ScriptedModelServer(window=200) as server:
        with pytest.raises(ModelError, match="does not fit the model's context window"):
            await harness.run("Where is generated_function_7?", stream=stream,
                              base_url=server.base_url)
        assert len(server.requests) == 3


async def test_a_strict_chat_template_gets_one_system_message_and_no_null_content(
        harness, stream):
    with ScriptedModelServer(strict_messages=True) as server:
        server.push(call("find_symbol", {"name": "compute_total"}),
                    call("read_file", {"path": "pkg/billing.py"}),
                    say("compute_total is in pkg/billing.py."))
        result = await harness.run("Where is compute_total?", stream=stream,
                                   base_url=server.base_url)
    assert result.answer == "compute_total is in pkg/billing.py."
    assert len(server.requests) == 3  # no refused request, no retry
    for body in server.requests:
        roles = [m["role"] for m in body["messages"]]
        assert roles.count("system") == 1 and roles[0] == "system"
        assert all(m.get("content") is not None for m in body["messages"])


async def test_an_empty_reply_is_asked_again_once_then_said_to_be_no_answer(harness, stream):
    harness.server.push(say(""), say("compute_total sums prices."))
    result = await harness.run("What does compute_total do?", stream=stream)
    assert result.answer == "compute_total sums prices." and result.finished
    nudged = harness.server.requests[1]["messages"][0]["content"]
    assert "Your previous reply was empty" in nudged
    harness.server.push(say(""), say("  "))
    result = await harness.run("What does compute_total do?", stream=stream)
    assert result.answer == "The model gave no answer (its replies were empty)."
    assert (result.stop_reason, result.finished) == ("no_answer", False)


@pytest.mark.parametrize("reply", [
    say("I'm sorry, but I can't help with that."),
    Reply(refusal_text="I can't assist with that request."),
], ids=["worded", "refusal-field"])
async def test_a_refusal_is_asked_again_once_then_reported(harness, stream, reply):
    harness.server.push(reply, reply)
    result = await harness.run("What does compute_total do?", stream=stream)
    assert (result.stop_reason, result.finished) == ("refused", False)
    assert result.answer.startswith("The model refused the task: I")
    assert "declined the task" in harness.server.requests[1]["messages"][0]["content"]
    assert [n["type"] for n in result.nudges][-1] == "refusal"


async def test_what_a_task_leaves_in_memory_is_history_not_knowledge(harness, stream):
    harness.server.push(say(""), say(""))
    empty = await harness.run("What does compute_total do?", stream=stream)
    harness.server.push(http_error(401, "invalid api key"))
    with pytest.raises(ModelError):
        await harness.run("Rename compute_total to total_of.", stream=stream)
    summaries = {m.content: m for m in harness.memory.list(kinds=["summary"])}
    (of_empty,) = [m for m in summaries.values() if m.task_id == empty.task_id]
    assert "Answer: none complete (no_answer)" in of_empty.content
    assert all(m.confidence < 1.0 for m in summaries.values())
    assert any("Rename compute_total to total_of." in text for text in summaries)  # kept


async def test_loose_arguments_the_schema_allows_cost_no_round_trip(harness, stream):
    harness.server.push(
        calls(ScriptedCall("read_file", {"path": "pkg/billing.py", "start_line": "4",
                                         "end_line": "6"}),
              ScriptedCall("recall", {"query": "totals", "limit": "5", "kinds": "fact"}),
              ScriptedCall("recall", {"query": "prices", "limit": "lots"})),
        say("compute_total sums prices."))
    result = await harness.run("What does compute_total do?", stream=stream)
    assert [c.outcome for c in result.tool_calls] == ["ok", "ok", "error"]
    read, recalled, wrong = harness.server.tool_messages(1)
    assert "return sum(item.price for item in items)" in read["content"]
    assert recalled["content"].startswith("0 memories for 'totals'")
    assert "Expected: recall(query: string" in wrong["content"]


async def test_an_edit_task_asks_for_an_action_until_a_change_is_made(harness, stream):
    harness.server.push(say("I would add a docstring line saying there is no tax."),
                        call("write_file", {"path": "pkg/billing.py", "content": NEW_BILLING}),
                        say("Done."))
    result = await harness.run("Say in compute_total's docstring that there is no tax.",
                               "edit", stream=stream)
    choices = [b["tool_choice"] for b in harness.server.requests]
    assert choices == ["auto", "required", "auto"]  # described only: then an action is due
    assert on_disk(harness) == NEW_BILLING.encode() and result.answer == "Done."


async def test_a_server_refusing_required_is_asked_with_auto(harness, stream):
    harness.server.push(say("I would add it."),
                        http_error(400, "tool_choice 'required' is not supported"),
                        call("write_file", {"path": "pkg/billing.py", "content": NEW_BILLING}),
                        say("Done."))
    result = await harness.run("Say in compute_total's docstring that there is no tax.",
                               "edit", stream=stream)
    assert [b["tool_choice"] for b in harness.server.requests][1:3] == ["required", "auto"]
    assert result.answer == "Done."


async def test_the_model_is_shown_only_what_it_can_use(harness, stream):
    harness.server.push(say("compute_total sums prices."))
    await harness.run("What does compute_total do?", stream=stream)
    body = harness.server.requests[0]
    assert "$schema" not in json.dumps(body["tools"])
    shown = {t["function"]["name"] for t in body["tools"]}
    prompt = body["messages"][0]["content"]
    named = set(re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", prompt))
    tool_like = named & {"repo_map", "list_files", "find_references", "find_related",
                         "search_docs", "find_symbol", "read_file", "write_file"}
    assert tool_like <= shown, tool_like - shown


async def test_without_usage_the_whole_request_as_sent_is_counted(harness, stream):
    harness.server.push(call("read_file", {"path": "pkg/billing.py"}, report_usage=False),
                        say("counted locally", report_usage=False))
    result = await harness.run("Count without usage", stream=stream)
    booked = [row["input_tokens"] for row in harness.ledger_rows(result.task_id)]
    sent = [prompt_tokens(body) for body in harness.server.requests]  # messages and tools
    assert all(abs(b - s) <= 0.1 * s for b, s in zip(booked, sent, strict=True)), (booked, sent)
    assert result.ledger is not None and result.ledger["total"]["estimatedCalls"] == len(sent)


class Worker:
    """A door's services thread, as the server's folder worker: one job at a time, in a
    thread; records how many calls were waiting on it at once."""

    def __init__(self) -> None:
        self.waiting = 0
        self.most = 0
        self.one_at_a_time = threading.Lock()

    def _run(self, fn: Any) -> Any:
        with self.one_at_a_time:
            return fn()

    async def __call__(self, fn: Any) -> Any:
        self.waiting += 1
        self.most = max(self.most, self.waiting)
        try:
            await asyncio.sleep(0.05)  # the worker is busy with a keystroke meanwhile
            return await asyncio.to_thread(self._run, fn)
        finally:
            self.waiting -= 1


async def test_read_only_calls_of_a_round_run_together_writes_alone(harness, stream):
    worker = Worker()
    reads = [ScriptedCall("read_file", {"path": p}) for p in
             ("pkg/billing.py", "pkg/checkout.py", "pkg/__init__.py")]
    write = ScriptedCall("write_file", {"path": "pkg/billing.py", "content": NEW_BILLING})
    harness.server.push(calls(*reads), calls(write, *reads[:1]), say("Done."))
    loop = harness.loop(stream=stream)
    loop.services_runner = worker
    result = await loop.run("Document compute_total.", "edit")
    assert [c.name for c in result.tool_calls] == ["read_file"] * 3 + ["write_file", "read_file"]
    assert [c.outcome for c in result.tool_calls] == ["ok"] * 5
    assert worker.most > 1  # the reads overlapped
    assert on_disk(harness) == NEW_BILLING.encode()
    results = harness.server.tool_messages(2)[-1]["content"]  # the read after the write
    assert "(no tax)" in results
