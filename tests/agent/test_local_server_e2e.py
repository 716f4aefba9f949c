"""The agent against a local server that answers one request at a time and goes on
working on a request its client gave up on (llama.cpp, llama-cpp-python, Ollama): after
a timeout nothing more is sent to it in that task, so no request queues behind the
abandoned one, and the connection is closed so a server that watches it stops."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from codekeep.memory import MemorySettings
from codekeep.testing.scripted_server import Reply, ScriptedModelServer, call, say

pytestmark = pytest.mark.parametrize("stream", [True, False], ids=["streamed", "plain"])


@pytest.fixture
def memory_settings() -> MemorySettings:
    """The model writes the task's summary and its extraction answer: two calls after
    the answer (the summary of any backlog is worth a call here)."""
    return MemorySettings(summary_min_ratio=0.01)


@pytest.fixture
def local_server() -> Iterator[ScriptedModelServer]:
    def slow(body: dict[str, Any]) -> Reply:  # every memory call outlasts the timeout
        return say("a summary", delay=30.0)

    with ScriptedModelServer(responder=slow, one_at_a_time=True) as server:
        yield server


async def until(condition: Any) -> None:
    """Wait (up to 20 s) for what the server saw; not a speed target."""
    for _ in range(400):
        if condition():
            return
        await asyncio.sleep(0.05)


async def test_after_a_timeout_nothing_more_queues_on_a_local_server(
        harness, local_server, stream):
    local_server.push(call("read_file", {"path": "pkg/big.py"}),
                      say("generated_function_7 is in pkg/big.py."))
    result = await harness.run("Where is generated_function_7?", stream=stream,
                               base_url=local_server.base_url, timeout=1.0)
    assert result.answer == "generated_function_7 is in pkg/big.py." and result.finished
    # the answer, then the summary call that timed out; the extraction was never sent
    assert len(local_server.requests) == 3
    assert local_server.most_at_once == 1
    await until(lambda: local_server.abandoned == 1)
    assert local_server.abandoned == 1  # the connection was closed: the server stopped
    reasons = [r["reason"] for r in result.extracted["rejected"] if r.get("stage") == "model"]
    assert any(reason.startswith("not sent: the local model server") for reason in reasons), \
        result.extracted
