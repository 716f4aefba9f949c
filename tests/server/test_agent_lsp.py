"""The agent through the language server: a real ``codekeep serve`` subprocess, a real
scripted OpenAI-compatible endpoint on 127.0.0.1, pytest-lsp as the editor."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from codekeep.testing.scripted_server import ScriptedModelServer, call, cut_off, say
from tests.agent.projects import write_shop
from tests.server.lsp_harness import make_client, request, session, session_fixture, wait_until

USAGE = {"prompt_tokens": 400, "completion_tokens": 25}


def recording_client() -> LanguageClient:
    """The harness client, also recording $/progress, nudges and budgets in arrival order."""
    client = make_client()
    client.timeline = []  # type: ignore[attr-defined]
    features = client.protocol.fm.features
    original_progress = features[types.PROGRESS]

    def on_progress(params: Any) -> Any:
        token = params.token if hasattr(params, "token") else params["token"]
        value = params.value if hasattr(params, "value") else params["value"]
        kind = value.kind if hasattr(value, "kind") else value["kind"]
        if str(token).startswith("codekeep-agent-"):
            client.timeline.append(("progress", kind, value))  # type: ignore[attr-defined]
            client.agent_token = token  # type: ignore[attr-defined]
        return original_progress(params)

    features[types.PROGRESS] = on_progress

    @client.feature("codekeep/nudge")
    def on_nudge(params: Any) -> None:
        client.timeline.append(("nudge", params["type"], params))  # type: ignore[attr-defined]

    @client.feature("codekeep/budget")
    def on_budget(params: Any) -> None:
        client.timeline.append(("budget", params["threshold"], params))  # type: ignore[attr-defined]

    return client


def _label(detail: Any, value: Any) -> Any:
    """A progress report by its message; anything else by the detail recorded with it."""
    if detail != "report":
        return detail
    return value.message if hasattr(value, "message") else value["message"]


@pytest.fixture
def model_server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        yield server


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_shop(tmp_path / "shop")


@pytest.fixture
async def client(project: Path, model_server: ScriptedModelServer) -> AsyncIterator[Any]:
    options = {
        "agent": {"model": "scripted-model", "baseUrl": model_server.base_url, "apiKey": "test"},
        "memory": {"modelSummaries": False},  # the scripts end with the answer
    }
    async with session(project, options=options, client_factory=recording_client) as lsp:
        yield lsp


async def start_slow_task(
    client: LanguageClient,
    model_server: ScriptedModelServer,
    task: str,
    delay: float = 10.0,
    **send: Any,
) -> Future[Any]:
    """Send a task whose model answers after ``delay`` s; return once the model was asked."""
    model_server.push(say(f"answered after {delay} s", delay=delay, usage=USAGE))
    future = client.protocol.send_request("codekeep/agent/run", {"task": task}, **send)
    for _ in range(100):
        if model_server.requests:
            break
        await asyncio.sleep(0.05)
    return future


@pytest.mark.slow
async def test_agent_run_streams_progress_nudges_and_budget_in_order(
    client: LanguageClient, model_server: ScriptedModelServer
) -> None:
    model_server.push(
        call("find_symbol", {"name": "compute_total"}, usage=USAGE),
        call("read_file", {"path": "pkg/billing.py"}, usage=USAGE),
        say("compute_total is in pkg/billing.py:1; checkout calls it.", usage=USAGE),
    )
    result = await request(
        client,
        "codekeep/agent/run",
        {
            "task": "Where is compute_total defined and who calls it?",
            "capability": "explore",
            "budget": 1100,
        },
    )
    assert result["answer"].startswith("compute_total is in pkg/billing.py:1")
    assert result["iterations"] == 3
    calls = [(c["name"], c["outcome"], c["files"]) for c in result["toolCalls"]]
    assert calls == [
        ("find_symbol", "ok", ["pkg/billing.py"]),
        ("read_file", "ok", ["pkg/billing.py"]),
    ]
    assert result["tokens"] == 3 * 425
    assert "pkg/billing.py" in model_server.tool_messages(1)[0]["content"]

    timeline = client.timeline  # type: ignore[attr-defined]
    events = [(kind, _label(detail, value)) for kind, detail, value in timeline]
    assert events[0] == ("progress", "begin") and events[-1] == ("progress", "end")
    assert [label for kind, label in events if kind == "progress"][1:-1] == [
        "SCAN · step 1/24",
        "SCAN · step 1/24 · find_symbol",  # each tool call as it happens
        "EXPLORE · step 2/24",
        "EXPLORE · step 2/24 · read_file",
        "EXPLORE · step 3/24",
    ]
    # round 1 found new information: the SCAN -> EXPLORE planning nudge precedes step 2;
    # the 75 % budget crossing (850 of 1100 tokens after call 2) precedes step 3.
    at = events.index
    assert at(("nudge", "planning")) < at(("progress", "EXPLORE · step 2/24"))
    budget_at = at(("budget", 0.75))
    assert at(("progress", "EXPLORE · step 2/24 · read_file")) < budget_at
    assert budget_at < at(("progress", "EXPLORE · step 3/24"))
    kinds = [(kind, detail) for kind, detail, _ in timeline]
    budget = timeline[budget_at][2]
    assert (budget["used"], budget["limit"], budget["taskId"]) == (850, 1100, result["taskId"])
    # one ledger per folder: each crossing is announced once, with one window message
    assert [detail for kind, detail in kinds if kind == "budget"] == [0.75, 1.0]
    shown = [m.message for m in client.messages if "Token budget" in m.message]
    assert len(shown) == 2 and "used 850 of 1,100" in shown[0]
    assert "used 1,275 of 1,100" in shown[1]
    warning = [value for kind, detail, value in timeline if detail == "budget_warning"]
    assert warning and warning[0]["taskId"] == result["taskId"]
    command = types.ExecuteCommandParams(
        command="codekeep.agent.run", arguments=[{"task": "Say hi"}]
    )
    model_server.push(say("hi"))
    via_command = await request(client, "workspace/executeCommand", command)
    assert via_command["answer"] == "hi"


@pytest.mark.slow
async def test_cancel_request_stops_a_slow_model_call(
    client: LanguageClient, model_server: ScriptedModelServer
) -> None:
    future = await start_slow_task(client, model_server, "Think hard", msg_id="agent-slow")
    started = time.monotonic()
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="agent-slow"))
    with pytest.raises(JsonRpcException, match=r"(?i)cancel"):
        await asyncio.wait_for(asyncio.wrap_future(future), 5)
    assert time.monotonic() - started < 3  # not the 10 s the model would have taken
    model_server.push(say("still alive"))
    result = await request(client, "codekeep/agent/run", {"task": "Are you there?"})
    assert result["answer"] == "still alive"


@pytest.mark.slow
async def test_cancel_button_on_the_progress_stops_the_task(
    client: LanguageClient, model_server: ScriptedModelServer
) -> None:
    future = await start_slow_task(client, model_server, "Think long")
    started = time.monotonic()
    client.protocol.notify(
        types.WINDOW_WORK_DONE_PROGRESS_CANCEL,
        types.WorkDoneProgressCancelParams(token=client.agent_token),
    )  # type: ignore[attr-defined]
    with pytest.raises(JsonRpcException, match=r"(?i)cancel"):
        await asyncio.wait_for(asyncio.wrap_future(future), 5)
    assert time.monotonic() - started < 3


@pytest.mark.slow
async def test_a_settings_change_during_a_task_waits_for_it(
    client: LanguageClient, model_server: ScriptedModelServer
) -> None:
    """The ledger the task records into is not closed under it; the change applies after."""
    future = await start_slow_task(client, model_server, "Take a second", delay=1.0)
    agent = {"model": "scripted-model", "baseUrl": model_server.base_url, "apiKey": "test"}
    client.set_configuration({"codekeep": {"agent": agent, "ledger": {"warnRatios": [0.5]},
                                           "memory": {"modelSummaries": False}}})
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    result = await asyncio.wait_for(asyncio.wrap_future(future), 10)
    assert result["answer"] == "answered after 1.0 s" and result["tokens"] == 425
    report = await request(client, "codekeep/ledger/report", {"taskId": result["taskId"]})
    assert report["total"]["calls"] == 1
    # the reopened ledger has the new warn ratio: half of a 1,000-token daily budget warns
    await request(client, "codekeep/ledger/budget", {"daily": 1000})
    await request(client, "codekeep/ledger/record",
                  {"callType": "plan", "model": "gpt-4o", "inputTokens": 100})

    async def budgets() -> list[float]:
        return [detail for kind, detail, _ in client.timeline if kind == "budget"]  # type: ignore[attr-defined]

    assert await wait_until(budgets) == [0.5]


async def test_bad_params_are_json_rpc_errors(client: LanguageClient) -> None:
    with pytest.raises(JsonRpcException, match="capability must be one of"):
        await request(client, "codekeep/agent/run", {"task": "x", "capability": "root"})
    with pytest.raises(JsonRpcException, match="task"):
        await request(client, "codekeep/agent/run", {})


unconfigured = session_fixture(client_factory=recording_client)


async def test_without_a_model_the_agent_explains_and_the_rest_works(
    unconfigured: LanguageClient,
) -> None:
    with pytest.raises(JsonRpcException, match="CODEKEEP_MODEL") as error:
        await request(unconfigured, "codekeep/agent/run", {"task": "Where is compute_total?"})
    assert "codekeep.agent.model" in str(error.value)
    found = await request(unconfigured, "codekeep/findSymbol", {"name": "compute_total"})
    assert [symbol["name"] for symbol in found["symbols"]] == ["compute_total"]
    model = await request(unconfigured, "codekeep/agent/model", {})
    assert model == {"configured": False, "model": None, "baseUrl": "https://api.openai.com/v1"}


async def test_model_request_names_the_configured_model_without_the_key(
    client: LanguageClient, model_server: ScriptedModelServer
) -> None:
    model = await request(client, "codekeep/agent/model", {})
    base_url = model_server.base_url
    assert model == {"configured": True, "model": "scripted-model", "baseUrl": base_url}


@pytest.mark.slow
async def test_a_run_is_charged_to_the_editors_task(
    client: LanguageClient, model_server: ScriptedModelServer
) -> None:
    """``taskId`` charges the run to the editor's task: its budget counts the run. The run
    closes the task; calls without a task id continue the adopted task as ``T#2``, and so
    does the next run."""
    adopted = await request(client, "codekeep/ledger/task", {"taskId": "nvim-task"})
    assert adopted["taskId"] == "nvim-task"
    await request(client, "codekeep/ledger/budget", {"taskId": "nvim-task", "limit": 1000})
    model_server.push(say("first", usage=USAGE))
    first = await request(client, "codekeep/agent/run", {"task": "One", "taskId": "nvim-task"})
    assert first["taskId"] == "nvim-task"
    recorded = await request(
        client, "codekeep/ledger/record", {"callType": "tool", "model": "m", "inputTokens": 75}
    )
    assert recorded["taskId"] == "nvim-task#2"
    model_server.push(say("second", usage=USAGE))
    await request(client, "codekeep/agent/run", {"task": "Two", "taskId": "nvim-task"})
    current = await request(client, "codekeep/ledger/task", {"taskId": "nvim-task"})
    assert (current["taskId"], current["name"]) == ("nvim-task#3", "nvim-task")
    assert current["budget"]["task"]["used"] == 2 * 425 + 75
    report = await request(client, "codekeep/ledger/report", {"taskId": "nvim-task"})
    assert report["total"]["calls"] == 3


@pytest.mark.slow
async def test_the_ledger_report_over_lsp_names_a_re_read_file_and_the_cheaper_read(
    client: LanguageClient, model_server: ScriptedModelServer
) -> None:
    read = {"path": "pkg/billing.py", "force": True}  # usage counted from what was sent
    model_server.push(call("read_file", read), call("read_file", read), say("read twice"))
    result = await request(client, "codekeep/agent/run", {"task": "Read billing twice"})
    report = await request(client, "codekeep/ledger/report", {"taskId": result["taskId"]})
    (entry,) = report["rereads"]["files"]
    assert (entry["path"], entry["reads"]) == ("pkg/billing.py", 2)
    assert entry["suggestion"]["query"] == "compute_total"
    assert entry["text"] in report["text"]
    assert {row["bucket"] for row in report["overhead"]} == {"system", "tools", "conversation"}
    assert sum(r["tokens"] for r in report["byFile"] + report["overhead"]) == \
        report["total"]["inputTokens"]


@pytest.mark.slow
async def test_a_write_cut_off_at_the_output_limit_is_not_run_through_the_editor(
    client: LanguageClient, model_server: ScriptedModelServer, project: Path
) -> None:
    before = (project / "pkg" / "billing.py").read_bytes()
    new = before.decode().replace("Sum the price", "Add up the price")
    model_server.push(
        cut_off("write_file", {"path": "pkg/billing.py", "content": new}),
        call("write_file", {"path": "pkg/billing.py", "content": new}),
        say("Reworded the docstring."),
    )
    result = await request(
        client, "codekeep/agent/run", {"task": "Reword the docstring.", "capability": "edit"}
    )
    assert [(c["name"], c["outcome"]) for c in result["toolCalls"]] == [
        ("write_file", "cut_off"),
        ("write_file", "ok"),
    ]
    assert (project / "pkg" / "billing.py").read_bytes() == new.encode()
    assert result["finished"] is True and result["answer"] == "Reworded the docstring."
    assert model_server.tool_messages(1)[0]["content"].startswith("NOT RUN [cut_off]")


@pytest.mark.slow
async def test_an_empty_reply_is_no_answer_through_the_editor(
    client: LanguageClient, model_server: ScriptedModelServer
) -> None:
    model_server.push(say("", ends_early=True), say(""), say("  "))
    result = await request(client, "codekeep/agent/run", {"task": "What is checkout?"})
    assert (result["stopReason"], result["finished"]) == ("no_answer", False)
    assert result["answer"] == "The model gave no answer (its replies were empty)."
    assert len(model_server.requests) == 3  # the cut stream retried, then one nudge


@pytest.mark.slow
async def test_calls_counted_without_reported_usage_are_estimated_in_the_editors_report(
    client: LanguageClient, model_server: ScriptedModelServer
) -> None:
    # a llama.cpp-like stream without usage, then an answer that reports it
    model_server.push(call("find_symbol", {"name": "checkout"}, report_usage=False),
                      say("checkout is in pkg/checkout.py."))
    result = await request(client, "codekeep/agent/run", {"task": "Where is checkout?"})
    report = await request(client, "codekeep/ledger/report", {"taskId": result["taskId"]})
    assert (report["total"]["calls"], report["total"]["estimatedCalls"]) == (2, 1)
    assert "1 of 2 calls estimated (~)" in report["text"]
    assert any(w["kind"] == "estimated" for w in report["warnings"])
