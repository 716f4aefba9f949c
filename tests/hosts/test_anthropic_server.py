"""The scripted Anthropic Messages server speaks the wire protocol a real client parses:
SSE events in the documented order, tool_use input streamed as JSON deltas, usage with
the two cache-write lifetimes, the API's error body."""

from __future__ import annotations

import json
from typing import Any

import httpx

from codekeep.testing.anthropic_server import (
    ScriptedAnthropicServer,
    Usage,
    error,
    request_text,
    say,
    use,
)

USAGE = Usage(input_tokens=12, output_tokens=7, cache_read_input_tokens=300,
              cache_write_5m_tokens=40, cache_write_1h_tokens=2000)


def _events(response: httpx.Response) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for chunk in response.text.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines() if ": " in line)
        if lines:
            events.append((lines["event"], json.loads(lines["data"])))
    return events


def test_a_streamed_tool_call_reassembles_into_the_scripted_message() -> None:
    with ScriptedAnthropicServer([use("Read", {"file_path": "/src/app.py"}, text="Reading it.",
                                      usage=USAGE)]) as server:
        body = {"model": "claude-sonnet-4-5", "stream": True, "max_tokens": 100,
                "system": [{"type": "text", "text": "You are terse."}],
                "messages": [{"role": "user", "content": "open app.py"}]}
        response = httpx.post(f"{server.url}/v1/messages?beta=true", json=body, timeout=10)
    events = _events(response)
    names = [name for name, _ in events]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    start = events[0][1]["message"]
    assert start["usage"]["cache_creation"] == {"ephemeral_5m_input_tokens": 40,
                                                "ephemeral_1h_input_tokens": 2000}
    assert start["usage"]["cache_creation_input_tokens"] == 2040
    text = "".join(d["delta"]["text"] for n, d in events
                   if n == "content_block_delta" and d["delta"]["type"] == "text_delta")
    arguments = "".join(d["delta"]["partial_json"] for n, d in events
                        if n == "content_block_delta"
                        and d["delta"]["type"] == "input_json_delta")
    tool = next(d["content_block"] for n, d in events
                if n == "content_block_start" and d["content_block"]["type"] == "tool_use")
    assert text == "Reading it."
    assert tool["name"] == "Read" and json.loads(arguments) == {"file_path": "/src/app.py"}
    assert events[-2][1]["delta"]["stop_reason"] == "tool_use"
    assert events[-2][1]["usage"]["output_tokens"] == 7
    assert "You are terse." in request_text(server.requests[0])
    assert "open app.py" in request_text(server.requests[0])


def test_plain_json_replies_errors_and_the_responder_after_the_script() -> None:
    with ScriptedAnthropicServer([error(529, "overloaded", "overloaded_error")],
                                 responder=lambda body: say("later")) as server:
        body = {"model": "claude-haiku-4-5", "max_tokens": 10,
                "messages": [{"role": "user", "content": "hi"}]}
        failed = httpx.post(f"{server.url}/v1/messages", json=body, timeout=10)
        answered = httpx.post(f"{server.url}/v1/messages", json=body, timeout=10)
    assert failed.status_code == 529
    assert failed.json()["error"] == {"type": "overloaded_error", "message": "overloaded"}
    message = answered.json()
    assert message["content"] == [{"type": "text", "text": "later"}]
    assert message["model"] == "claude-haiku-4-5" and message["stop_reason"] == "end_turn"
    assert len(server.requests) == 2


def test_a_dropped_stream_ends_before_the_message_stops() -> None:
    with ScriptedAnthropicServer([say("a long answer " * 10, drops_connection=True)]) as server:
        response = httpx.post(f"{server.url}/v1/messages",
                              json={"model": "m", "stream": True, "messages": []}, timeout=10)
    names = [name for name, _ in _events(response)]
    assert "message_stop" not in names and names[0] == "message_start"
