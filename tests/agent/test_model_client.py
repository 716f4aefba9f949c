"""The model client against a real scripted HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

import pytest

from codekeep.agent.model_client import ModelClient, ModelError, is_local
from codekeep.settings import load_settings
from codekeep.settings.agent import ModelNotConfigured, ModelSettings
from codekeep.testing.scripted_server import Reply, ScriptedModelServer, call, http_error, say

TOOLS = [{"type": "function", "function": {
    "name": "find_symbol", "description": "Find a symbol",
    "parameters": {"type": "object", "properties": {"name": {"type": "string"}}}}}]
MESSAGES = [{"role": "user", "content": "where is Foo defined?"}]


async def test_streaming_tool_call_with_usage_in_final_chunk(model_server, model_settings):
    model_server.push(call("find_symbol", {"name": "Foo"}, usage={"prompt_tokens": 120,
                                                                  "completion_tokens": 9}))
    async with ModelClient(model_settings) as client:
        response = await client.complete(MESSAGES, TOOLS, "auto")
    assert response.stream is True
    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        ("find_symbol", '{"name": "Foo"}')]
    assert response.usage is not None
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (120, 9)
    sent = model_server.requests[0]
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    assert sent["tools"] == TOOLS and sent["tool_choice"] == "auto"
    assert model_server.request_headers[0]["Authorization"] == "Bearer test-key"


async def test_non_streaming_fallback_when_server_answers_json(model_server, model_settings):
    model_server.push(Reply(content="Foo is in a.py", stream=False))
    async with ModelClient(model_settings) as client:
        response = await client.complete(MESSAGES)
    assert response.stream is False
    assert response.content == "Foo is in a.py"
    assert response.usage is not None and response.usage.prompt_tokens > 0
    assert "tools" not in model_server.requests[0]


async def test_streaming_refused_switches_to_plain_json(model_server, model_settings):
    model_server.push(http_error(400, "stream is not supported"), say("plain answer"), say("again"))
    async with ModelClient(model_settings) as client:
        response = await client.complete(MESSAGES)
        again = await client.complete(MESSAGES)
    assert response.content == "plain answer" and response.stream is False
    assert again.stream is False
    assert "stream" not in model_server.requests[1]
    assert [a.status for a in response.attempts] == [400, 200]


async def test_429_with_retry_after_is_retried_and_every_attempt_reported(model_server,
                                                                          model_settings):
    model_server.push(http_error(429, "slow down", retry_after=0.3), say("done"))
    started = time.perf_counter()
    async with ModelClient(model_settings) as client:
        response = await client.complete(MESSAGES)
    assert response.content == "done"
    assert time.perf_counter() - started >= 0.3  # Retry-After honoured over the tiny backoff
    assert [(a.retry, a.status) for a in response.attempts] == [(0, 429), (1, 200)]
    assert "slow down" in (response.attempts[0].error or "")
    assert response.attempts[1].waited_s >= 0.3


async def test_5xx_exhausting_retries_raises_model_error_with_attempts(model_server,
                                                                      model_settings):
    settings = replace(model_settings, max_retries=2)
    model_server.push(*[http_error(503, "overloaded")] * 3)
    async with ModelClient(settings) as client:
        with pytest.raises(ModelError, match="after 3 attempts") as info:
            await client.complete(MESSAGES)
    assert [a.status for a in info.value.attempts] == [503, 503, 503]


async def test_401_is_not_retried_and_names_the_key_variables(model_server, model_settings):
    model_server.push(http_error(401, "bad key"))
    async with ModelClient(model_settings) as client:
        with pytest.raises(ModelError, match="CODEKEEP_API_KEY"):
            await client.complete(MESSAGES)
    assert len(model_server.requests) == 1


async def test_connection_refused_is_retried_then_reported(model_settings):
    with ScriptedModelServer() as dead:
        url = dead.base_url
    settings = replace(model_settings, base_url=url, max_retries=1)
    async with ModelClient(settings) as client:
        with pytest.raises(ModelError, match="connection failed") as info:
            await client.complete(MESSAGES)
    assert len(info.value.attempts) == 2


async def test_a_local_server_that_times_out_is_not_sent_a_pile_of_retries(
        model_server, model_settings):
    settings = replace(model_settings, timeout=0.3)
    model_server.push(say("late", delay=1.0), say("on time"))
    async with ModelClient(settings) as client:
        with pytest.raises(ModelError, match="not retried: a local server") as raised:
            await client.complete(MESSAGES)
        assert len(model_server.requests) == 1 and len(raised.value.attempts) == 1
        assert "timed out" in (raised.value.attempts[0].error or "")
        # the server may still be busy with it: the next call is not sent at all
        with pytest.raises(ModelError, match="not sent: the local model server") as unsent:
            await client.complete(MESSAGES)
    assert len(model_server.requests) == 1 and unsent.value.attempts == []


@pytest.mark.parametrize(("url", "local"), [
    ("http://127.0.0.1:8080/v1", True), ("http://localhost:11434/v1", True),
    ("http://[::1]:1234/v1", True), ("http://127.0.1.1/v1", True),
    ("https://api.openai.com/v1", False), ("https://openrouter.ai/api/v1", False),
])
def test_local_endpoints_are_recognised(url, local):
    assert is_local(url) is local


async def test_cancelling_a_slow_response_propagates_promptly(model_server, model_settings):
    model_server.push(say("never seen", delay=5.0))
    async with ModelClient(model_settings) as client:
        task = asyncio.create_task(client.complete(MESSAGES))
        await asyncio.sleep(0.2)
        started = time.perf_counter()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert time.perf_counter() - started < 1.0


def test_no_model_configured_explains_how_to_configure():
    with pytest.raises(ModelNotConfigured, match="CODEKEEP_MODEL"):
        ModelClient(ModelSettings())


def test_environment_configuration_and_api_key_fallback():
    env = {"CODEKEEP_MODEL": "qwen2.5-coder", "CODEKEEP_BASE_URL": "http://localhost:11434/v1",
           "OPENAI_API_KEY": "sk-fallback"}
    settings = load_settings(None, env=env).settings.agent
    assert (settings.model, settings.api_key) == ("qwen2.5-coder", "sk-fallback")
    assert settings.chat_url == "http://localhost:11434/v1/chat/completions"
    own = {**env, "CODEKEEP_API_KEY": "own"}
    assert load_settings(None, env=own).settings.agent.api_key == "own"
    flags = {"agent": {"model": "other"}}
    assert load_settings(None, env=env, flags=flags).settings.agent.model == "other"


async def test_error_object_with_status_200_is_retried_and_named(model_server, model_settings):
    model_server.push(Reply(body='{"error": {"message": "upstream overloaded"}}', status=200,
                            stream=False),
                      say("recovered"))
    async with ModelClient(replace(model_settings, stream=False)) as client:
        response = await client.complete(MESSAGES)
    assert response.content == "recovered"
    assert "upstream overloaded" in (response.attempts[0].error or "")


async def test_a_one_at_a_time_server_queues_what_it_is_sent_and_sees_a_client_leave(
        model_settings):
    with ScriptedModelServer(one_at_a_time=True) as server:
        settings = replace(model_settings, base_url=server.base_url)
        server.push(say("first", delay=1.0), say("second"))
        async with ModelClient(settings) as one, ModelClient(settings) as two:
            answers = await asyncio.gather(one.complete(MESSAGES), two.complete(MESSAGES))
        assert sorted(a.content for a in answers) == ["first", "second"]
        assert (server.most_at_once, server.abandoned) == (2, 0)
        server.push(say("never read", delay=30.0))
        async with ModelClient(replace(settings, timeout=0.3)) as client:
            with pytest.raises(ModelError, match="timed out"):
                await client.complete(MESSAGES)
        for _ in range(400):  # the server notices the closed connection (not a speed test)
            if server.abandoned:
                break
            await asyncio.sleep(0.05)
        assert server.abandoned == 1
