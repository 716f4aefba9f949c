"""An async client for OpenAI-compatible chat completions with tools.

One :meth:`ModelClient.complete` call is one model round: it streams when the endpoint
allows (usage arrives in the final chunk through ``stream_options.include_usage``),
falls back to a plain JSON response when the endpoint does not stream, and retries
429/5xx/connection failures with exponential backoff and jitter, honouring
``Retry-After``. Every attempt, failed or not, is returned in :attr:`ChatResponse.attempts`
so the caller can put each one in the ledger with the call type it only learns after
the round's tools ran.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from codekeep.agent.overflow import context_overflow
from codekeep.settings.agent import ModelSettings

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
# finish_reason values saying the answer stopped before the model finished it: at the
# output allowance (OpenAI ``length``, Anthropic-style ``max_tokens``) or by a filter.
CUT_OFF_REASONS = frozenset({"length", "max_tokens", "content_filter"})
_RETRY_AFTER_CAP = 120.0


class ModelError(RuntimeError):
    """The endpoint refused the request or kept failing after every retry."""

    def __init__(self, message: str, *, status: int | None = None,
                 attempts: Sequence[Attempt] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.attempts = list(attempts)


class ContextOverflow(ModelError):
    """The endpoint said the prompt does not fit its window (never retried as is: a
    smaller prompt may fit); ``window`` is the size it named, if it named one."""

    def __init__(self, message: str, *, status: int | None, window: int | None,
                 attempts: Sequence[Attempt] = ()) -> None:
        super().__init__(message, status=status, attempts=attempts)
        self.window = window


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call as the model wrote it; ``arguments`` is the raw JSON string."""

    id: str
    name: str
    arguments: str

    def to_message(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage as reported by the provider."""

    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0
    reasoning_tokens: int = 0

    @classmethod
    def from_json(cls, payload: Any) -> Usage | None:
        if not isinstance(payload, dict) or "prompt_tokens" not in payload:
            return None
        prompt_details = payload.get("prompt_tokens_details") or {}
        completion_details = payload.get("completion_tokens_details") or {}
        return cls(
            prompt_tokens=int(payload.get("prompt_tokens") or 0),
            completion_tokens=int(payload.get("completion_tokens") or 0),
            cached_tokens=int(prompt_details.get("cached_tokens") or 0),
            reasoning_tokens=int(completion_details.get("reasoning_tokens") or 0),
        )


@dataclass(frozen=True, slots=True)
class Attempt:
    """One HTTP attempt: ``error`` is ``None`` for the one that succeeded."""

    retry: int
    latency_ms: float
    status: int | None = None
    error: str | None = None
    waited_s: float = 0.0


@dataclass(slots=True)
class ChatResponse:
    content: str
    tool_calls: list[ToolCall]
    finish_reason: str | None
    usage: Usage | None
    stream: bool
    model: str
    attempts: list[Attempt] = field(default_factory=list)
    refusal: str | None = None  # OpenAI's ``message.refusal``: the model declined

    @property
    def latency_ms(self) -> float:
        return self.attempts[-1].latency_ms if self.attempts else 0.0

    @property
    def cut_off(self) -> bool:
        """The answer stopped before the model finished it: its text is partial and its
        tool calls' arguments may be unterminated, so none of them may run."""
        return self.finish_reason in CUT_OFF_REASONS

    def assistant_message(self) -> dict[str, Any]:
        """The message to append to the conversation for this response.

        ``content`` is ``""``, never ``null``, beside tool calls: llama.cpp's server
        answers HTTP 500 to a null content, and every endpoint accepts an empty string.
        """
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [call.to_message() for call in self.tool_calls]
        return message


class _Retryable(Exception):
    def __init__(self, message: str, status: int | None = None,
                 retry_after: float | None = None, timed_out: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        self.timed_out = timed_out


LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0"})


def is_local(url: str) -> bool:
    """The endpoint runs on this machine (llama.cpp, Ollama, LM Studio, vLLM at home):
    typically one request at a time, and still working on one its client gave up on."""
    host = (httpx.URL(url).host or "").strip("[]").lower()
    return host in LOCAL_HOSTS or host.startswith("127.")


class ModelClient:
    """Chat completions against ``settings.base_url``; create one per task or server."""

    def __init__(self, settings: ModelSettings, *,
                 transport: httpx.AsyncBaseTransport | None = None,
                 rng: random.Random | None = None) -> None:
        self.settings = settings
        self.model = settings.require_model()
        self._stream = settings.stream
        self._allowance_key = "max_tokens"  # OpenAI's reasoning models want another name
        self._required_ok = True  # some servers refuse tool_choice "required"
        self._local = is_local(settings.base_url)
        # why nothing more is sent: a local server still works on a request we gave up on
        self._abandoned: str | None = None
        self._rng = rng or random.Random()
        headers = {"Content-Type": "application/json"}
        if settings.api_key:
            headers["Authorization"] = f"Bearer {settings.api_key}"
        self._http = httpx.AsyncClient(
            headers=headers,
            timeout=httpx.Timeout(settings.timeout, connect=settings.connect_timeout),
            transport=transport,
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> ModelClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def request_body(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]],
                     tool_choice: str | None, stream: bool,
                     max_tokens: int | None = None) -> dict[str, Any]:
        """The JSON body; ``max_tokens`` (else the setting) bounds the reply's length."""
        body: dict[str, Any] = {"model": self.model, "messages": list(messages)}
        if tools:
            body["tools"] = list(tools)
            if tool_choice == "required" and not self._required_ok:
                tool_choice = "auto"
            if tool_choice:
                body["tool_choice"] = tool_choice
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        allowance = max_tokens if max_tokens is not None else self.settings.max_output_tokens
        if allowance is not None:
            body[self._allowance_key] = allowance
        return body

    async def complete(self, messages: Sequence[dict[str, Any]],
                       tools: Sequence[dict[str, Any]] = (),
                       tool_choice: str | None = "auto", *,
                       max_tokens: int | None = None) -> ChatResponse:
        """One model round, retried on transient failures. Cancellation propagates.

        ``max_tokens`` is this reply's output allowance (unset: the setting's, if any).
        After a reply from a local endpoint timed out, its connection is closed, but the
        server may go on generating (llama-cpp-python's does, streamed or not), so this
        client sends nothing more: each later call fails at once, unsent, instead of
        queueing behind the abandoned request on a server that answers one at a time.
        """
        if self._abandoned is not None:
            raise ModelError(self._abandoned)  # not sent, so nothing to book
        attempts: list[Attempt] = []
        waited = 0.0
        for retry in range(self.settings.max_retries + 1):
            started = time.perf_counter()
            try:
                response = await self._attempt(messages, tools, tool_choice, max_tokens)
            except _Retryable as exc:
                attempts.append(Attempt(retry, _ms(started), exc.status, str(exc), waited))
                if exc.timed_out and self._local:
                    self._abandoned = (
                        f"not sent: the local model server at {self.settings.chat_url} may "
                        f"still be working on the request given up on after "
                        f"{self.settings.timeout:g} s (it would queue behind it)")
                    raise ModelError(
                        f"model endpoint {self.settings.chat_url} {exc} after "
                        f"{self.settings.timeout:g} s; not retried: a local server goes on "
                        "working on the abandoned request, so a retry would only queue "
                        "behind it (raise codekeep.agent.timeout for slow local models)",
                        status=None, attempts=attempts) from None
                if retry == self.settings.max_retries:
                    raise ModelError(
                        f"model endpoint {self.settings.chat_url} failed after "
                        f"{retry + 1} attempts: {exc}", status=exc.status, attempts=attempts,
                    ) from None
                waited = self._delay(retry, exc.retry_after)
                await asyncio.sleep(waited)
                continue
            except ModelError as exc:
                attempts.append(Attempt(retry, _ms(started), exc.status, str(exc), waited))
                exc.attempts = attempts
                raise
            attempts.append(Attempt(retry, _ms(started), 200, None, waited))
            response.attempts = attempts
            return response
        raise AssertionError("unreachable: the retry loop returns or raises")

    def _delay(self, retry: int, retry_after: float | None) -> float:
        """Exponential backoff with jitter; the server's ``Retry-After`` is a floor."""
        backoff = min(self.settings.backoff_max, self.settings.backoff_base * (2**retry))
        jittered = backoff * (0.5 + self._rng.random() / 2)
        if retry_after is not None:
            return min(_RETRY_AFTER_CAP, max(retry_after, jittered))
        return jittered

    async def _attempt(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]],
                       tool_choice: str | None, max_tokens: int | None) -> ChatResponse:
        stream = self._stream
        body = self.request_body(messages, tools, tool_choice, stream, max_tokens)
        try:
            async with self._http.stream("POST", self.settings.chat_url, json=body) as reply:
                if reply.status_code >= 400:
                    text = (await reply.aread()).decode("utf-8", "replace")
                    if stream and reply.status_code in (400, 422) and "stream" in text.lower():
                        self._stream = False  # endpoint rejects streaming: use plain JSON
                        raise _Retryable(f"streaming refused ({reply.status_code}); retrying "
                                         "without streaming", reply.status_code, 0.0)
                    if (reply.status_code in (400, 422) and body.get("tool_choice") == "required"
                            and "tool_choice" in text):
                        self._required_ok = False
                        raise _Retryable("tool_choice \"required\" refused; retrying with "
                                         "\"auto\"", reply.status_code, 0.0)
                    if (reply.status_code == 400 and self._allowance_key in body
                            and "max_completion_tokens" in text):
                        self._allowance_key = "max_completion_tokens"
                        raise _Retryable("max_tokens refused (400); retrying with "
                                         "max_completion_tokens", reply.status_code, 0.0)
                    self._raise_for_status(reply, text)
                content_type = reply.headers.get("content-type", "")
                if stream and "text/event-stream" in content_type:
                    return await _read_stream(reply, self.model)
                raw = await reply.aread()
                return _parse_json_response(raw, self.model)
        except httpx.TimeoutException as exc:
            raise _Retryable(f"timed out ({type(exc).__name__})",
                             timed_out=not isinstance(exc, httpx.ConnectTimeout)) from None
        except httpx.TransportError as exc:
            raise _Retryable(f"connection failed: {exc or type(exc).__name__}") from None

    def _raise_for_status(self, reply: httpx.Response, text: str) -> None:
        status = reply.status_code
        overflow = context_overflow(status, text)
        if overflow is not None:  # before the retry decision: llama.cpp sends it as a 500
            raise ContextOverflow(f"the prompt does not fit the model's context window "
                                  f"(HTTP {status}: {overflow.message})", status=status,
                                  window=overflow.window)
        detail = _error_detail(text)
        if status in RETRYABLE_STATUS or status >= 500:
            raise _Retryable(f"HTTP {status}: {detail}", status,
                             _retry_after(reply.headers.get("retry-after")))
        hint = {401: " (check CODEKEEP_API_KEY / OPENAI_API_KEY)",
                404: " (check CODEKEEP_BASE_URL and CODEKEEP_MODEL)"}.get(status, "")
        raise ModelError(f"model endpoint answered HTTP {status}: {detail}{hint}", status=status)


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_detail(text: str) -> str:
    try:
        payload = json.loads(text)
    except ValueError:
        return text.strip()[:300] or "(empty body)"
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])[:300]
    return text.strip()[:300]


def _parse_json_response(raw: bytes, model: str) -> ChatResponse:
    try:
        payload = json.loads(raw)
        message = payload["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        # some gateways answer 200 with an error object instead of an HTTP error
        detail = _error_detail(raw.decode("utf-8", "replace"))
        raise _Retryable(f"unreadable response ({type(exc).__name__}): {detail}") from None
    calls = [
        ToolCall(str(call.get("id") or f"call_{index}"),
                 str((call.get("function") or {}).get("name") or ""),
                 _arguments_text((call.get("function") or {}).get("arguments")))
        for index, call in enumerate(message.get("tool_calls") or [])
    ]
    return ChatResponse(
        content=message.get("content") or "",
        tool_calls=calls,
        finish_reason=payload["choices"][0].get("finish_reason"),
        usage=Usage.from_json(payload.get("usage")),
        stream=False,
        model=str(payload.get("model") or model),
        refusal=message.get("refusal") or None,
    )


def _arguments_text(arguments: Any) -> str:
    """Some servers send arguments as an object instead of a JSON string."""
    if isinstance(arguments, str):
        return arguments
    return "" if arguments is None else json.dumps(arguments)


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


async def _read_stream(reply: httpx.Response, model: str) -> ChatResponse:
    """Accumulate SSE deltas: content, tool calls by index, finish reason, final usage."""
    content: list[str] = []
    refusal: list[str] = []
    calls: dict[int, _PartialCall] = {}
    finish_reason: str | None = None
    usage: Usage | None = None
    reported_model = model
    done = False
    async for line in reply.aiter_lines():
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            done = True
            break
        try:
            chunk = json.loads(data)
        except ValueError:
            raise _Retryable("unreadable stream chunk") from None
        if isinstance(chunk.get("error"), dict):
            overflow = context_overflow(400, data)
            if overflow is not None:
                raise ContextOverflow(f"the prompt does not fit the model's context window "
                                      f"({overflow.message})", status=None,
                                      window=overflow.window)
            raise _Retryable(f"stream error: {chunk['error'].get('message', chunk['error'])}")
        reported_model = str(chunk.get("model") or reported_model)
        usage = Usage.from_json(chunk.get("usage")) or usage
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("content"):
                content.append(delta["content"])
            if delta.get("refusal"):
                refusal.append(delta["refusal"])
            for part in delta.get("tool_calls") or []:
                partial = calls.setdefault(int(part.get("index", len(calls))), _PartialCall())
                partial.id = part.get("id") or partial.id
                function = part.get("function") or {}
                partial.name = partial.name or function.get("name") or ""
                if function.get("arguments"):
                    partial.arguments.append(_arguments_text(function["arguments"]))
            finish_reason = choice.get("finish_reason") or finish_reason
    if not done and finish_reason is None:
        # the connection closed mid-answer (or the body was empty): what came is no answer
        raise _Retryable("the stream ended before the answer was complete (no finish_reason, "
                         f"no [DONE]; {sum(map(len, content))} characters and {len(calls)} "
                         "tool calls so far)")
    tool_calls = [
        ToolCall(partial.id or f"call_{index}", partial.name, "".join(partial.arguments))
        for index, partial in sorted(calls.items())
    ]
    return ChatResponse("".join(content), tool_calls, finish_reason, usage, True, reported_model,
                        refusal="".join(refusal) or None)
