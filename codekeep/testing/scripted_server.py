"""A real OpenAI-compatible HTTP endpoint on 127.0.0.1 that replays a script.

Tests, benchmarks and the language-server end-to-end tests need a model that answers
deterministically over the actual wire protocol (SSE streaming, usage chunks, 429 with
``Retry-After``, slow replies, broken tool-call JSON) — and misbehaves the way real
endpoints do when a test asks it to: replies cut off at the output limit
(``finish_reason: length`` with unterminated arguments), streams that end early, empty
bodies. This server is that model: each
request to ``/v1/chat/completions`` takes the next :class:`Reply` of the script (or asks a
responder callable, for strategies that react to tool results) and records the request
body, so a test can assert exactly what the agent sent — tool schemas, ``tool_choice``,
tool results, nudges.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from codekeep.common.tokens import function_tokens, token_len

Responder = Callable[[dict[str, Any]], "Reply"]


@dataclass(frozen=True, slots=True)
class ScriptedCall:
    """A tool call to send; ``arguments`` as a dict is JSON-encoded, a str is sent raw."""

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def arguments_text(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(dict(self.arguments))


@dataclass(frozen=True, slots=True)
class Reply:
    """One scripted answer.

    ``usage=None`` reports usage computed from the request (tiktoken over the messages);
    ``report_usage=False`` omits it like servers that do not report usage. ``stream``
    ``None`` follows the request. ``status`` >= 400 sends ``body`` (or an empty object)
    with ``headers``; a ``body`` is sent as-is with any status (broken gateways).
    ``finish_reason`` overrides the natural one (``tool_calls`` / ``stop``);
    ``ends_early`` closes a stream before its finish chunk and ``[DONE]`` (a plain JSON
    reply: an empty 200 body), as a server does that dies or drops the connection.
    """

    content: str = ""
    tool_calls: Sequence[ScriptedCall] = ()
    usage: Mapping[str, int] | None = None
    report_usage: bool = True
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    body: str | None = None
    delay: float = 0.0
    stream: bool | None = None
    finish_reason: str | None = None
    ends_early: bool = False
    refusal_text: str | None = None  # OpenAI's ``refusal`` field instead of content

    @property
    def natural_finish(self) -> str:
        return self.finish_reason or ("tool_calls" if self.tool_calls else "stop")


def say(text: str, **options: Any) -> Reply:
    """A plain text answer."""
    return Reply(content=text, **options)


def call(name: str, arguments: Mapping[str, Any] | str | None = None, **options: Any) -> Reply:
    """A reply with one tool call."""
    return Reply(tool_calls=(ScriptedCall(name, {} if arguments is None else arguments),),
                 **options)


def calls(*scripted: ScriptedCall, content: str = "", **options: Any) -> Reply:
    """A reply with several tool calls in one round."""
    return Reply(content=content, tool_calls=scripted, **options)


def cut_off(name: str, arguments: Mapping[str, Any], keep: float = 0.5,
            reason: str = "length", **options: Any) -> Reply:
    """A reply stopped at the output limit inside the arguments of one tool call: the
    first ``keep`` of their JSON text, unterminated mid-string, as real endpoints send."""
    text = json.dumps(dict(arguments))
    return Reply(tool_calls=(ScriptedCall(name, text[:max(1, int(len(text) * keep))]),),
                 finish_reason=reason, **options)


def http_error(status: int, message: str = "scripted error", retry_after: float | None = None,
               **options: Any) -> Reply:
    headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
    body = json.dumps({"error": {"message": message, "type": "scripted", "code": status}})
    return Reply(status=status, headers=headers, body=body, **options)


# How each server says a prompt does not fit (status, body), ``{window}``/``{asked}`` filled.
OVERFLOW_STYLES: dict[str, tuple[int, str]] = {
    "openai": (400, json.dumps({"error": {
        "message": "This model's maximum context length is {window} tokens. However, your "
                   "messages resulted in {asked} tokens. Please reduce the length of the "
                   "messages.", "type": "invalid_request_error", "param": "messages",
        "code": "context_length_exceeded"}})),
    "vllm": (400, json.dumps({"object": "error", "message": "This model's maximum context "
              "length is {window} tokens. However, you requested {asked} tokens. Please "
              "reduce the length of the messages or completion.", "type": "BadRequestError",
              "code": 400})),
    "llamacpp": (500, json.dumps({"error": {
        "code": 500, "message": "the request exceeds the available context size. try "
        "increasing the context size or enable context shift",
        "type": "exceed_context_size_error", "n_prompt_tokens": "{asked}",
        "n_ctx": "{window}"}})),
    "ollama": (500, json.dumps({"error": {"message": "the input length exceeds the context "
                                                     "length", "type": "api_error"}})),
    "lmstudio": (400, json.dumps({"error": "Trying to keep the first {asked} tokens when "
              "context the overflows. However, the model is loaded with context length of "
              "only {window} tokens, which is not enough. Try to load the model with a larger "
              "context length, or provide a shorter input"})),
    "openrouter": (400, json.dumps({"error": {"message": "This endpoint's maximum context "
              "length is {window} tokens. However, you requested about {asked} tokens. "
              "Please reduce the length of either one, or use the \"middle-out\" transform "
              "to compress your prompt automatically.", "code": 400}})),
    "413": (413, json.dumps({"error": {"message": "Request Entity Too Large"}})),
}


def overflow_error(style: str, window: int, asked: int) -> Reply:
    """The answer of a server of ``style`` to a prompt of ``asked`` tokens that does not
    fit its ``window``."""
    status, template = OVERFLOW_STYLES[style]
    body = template.replace('"{asked}"', str(asked)).replace('"{window}"', str(window))
    return Reply(status=status, body=body.replace("{asked}", str(asked))
                 .replace("{window}", str(window)))


def prompt_tokens(body: Mapping[str, Any]) -> int:
    """Tokens of everything the model was sent: messages and tool definitions."""
    total = 0
    for message in body.get("messages") or []:
        total += 4 + token_len(str(message.get("content") or ""))
        for tool_call in message.get("tool_calls") or []:
            function = tool_call.get("function") or {}
            total += token_len(str(function.get("name", ""))) + token_len(
                str(function.get("arguments", "")))
    return total + function_tokens(body.get("tools") or [])


class ScriptedModelServer:
    """Serve ``script`` on ``http://127.0.0.1:<random port>/v1``; use as a context manager."""

    def __init__(self, script: Iterable[Reply | Responder] = (), *,
                 responder: Responder | None = None, model: str = "scripted-model",
                 window: int | None = None, overflow_style: str = "openai",
                 strict_messages: bool = False, one_at_a_time: bool = False) -> None:
        """``window``: refuse, as a server of ``overflow_style`` does, every request
        whose prompt plus ``max_tokens`` exceeds it (the script is not consumed).
        ``strict_messages``: answer HTTP 500, as llama-cpp-python's server does, to an
        assistant message whose content is null; and to a system message anywhere but
        first, or a second one (chat templates that keep one drop the others).
        ``one_at_a_time``: answer one request at a time, as a local server with one slot
        does (the others wait their turn), and stop "generating" a delayed reply when its
        client closes the connection (a server that watches it; llama-cpp-python's does not);
        :attr:`most_at_once`
        and :attr:`abandoned` count what it saw."""
        self.model = model
        self.strict_messages = strict_messages
        self.window = window
        self.overflow_style = overflow_style
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self.one_at_a_time = one_at_a_time
        self._slot = threading.Lock()  # the one slot of a one_at_a_time server
        self.in_flight = 0  # requests received and not yet answered (waiting ones too)
        self.most_at_once = 0  # the most requests in flight at once
        self.abandoned = 0  # replies whose client went away before they were sent
        self._script: deque[Reply | Responder] = deque(script)
        self._responder = responder
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,),
                                        daemon=True, name="scripted-model-server")

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> ScriptedModelServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def push(self, *replies: Reply | Responder) -> None:
        with self._lock:
            self._script.extend(replies)

    def set_responder(self, responder: Responder | None) -> None:
        """Answer with ``responder(request_body)`` whenever the script is empty."""
        with self._lock:
            self._responder = responder

    @property
    def remaining(self) -> int:
        return len(self._script)

    def tool_messages(self, request_index: int) -> list[dict[str, Any]]:
        """The ``role: tool`` messages the agent sent in request ``request_index``."""
        return [m for m in self.requests[request_index]["messages"] if m.get("role") == "tool"]

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        problem = _message_problem(body) if self.strict_messages else None
        if problem is not None:
            with self._lock:
                self.requests.append(body)
            return http_error(500, problem)
        asked = prompt_tokens(body) + int(body.get("max_tokens") or 0)
        if self.window is not None and asked > self.window:
            with self._lock:
                self.requests.append(body)
            return overflow_error(self.overflow_style, self.window, asked)
        with self._lock:
            self.requests.append(body)
            entry = self._script.popleft() if self._script else self._responder
        if entry is None:
            return http_error(500, "scripted model: the script is exhausted")
        return entry(body) if callable(entry) else entry

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless the server stops first; ``False`` when it stopped."""
        return not self._stopping.wait(seconds)

    def _generate(self, seconds: float, client: socket.socket) -> bool:
        """Take ``seconds`` to "generate" a reply, stopping early when the client closes
        its connection (counted as abandoned) or the server stops; ``False`` then."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if self._stopping.wait(min(left, 0.01)):
                return False
            if _closed_by_peer(client):
                with self._lock:
                    self.abandoned += 1
                return False
        return True

    def _arrived(self, change: int) -> None:
        with self._lock:
            self.in_flight += change
            self.most_at_once = max(self.most_at_once, self.in_flight)


def _closed_by_peer(client: socket.socket) -> bool:
    """The client closed its end: readable with nothing to read (it sends no more)."""
    readable, _, _ = select.select([client], [], [], 0)
    if not readable:
        return False
    try:
        return client.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def _message_problem(body: Mapping[str, Any]) -> str | None:
    """What a strict server refuses in the messages, or None."""
    messages = body.get("messages") or []
    roles = [m.get("role") for m in messages]
    if roles.count("system") > 1 or ("system" in roles and roles[0] != "system"):
        return "validation error: one system message, first"
    for index, message in enumerate(messages):
        if message.get("role") == "assistant" and message.get("content") is None:
            return (f"validation error: messages.{index}.content: Input should be a valid "
                    "string")
    return None


def _handler_for(server: ScriptedModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send_json(200, {"object": "list", "data": [
                    {"id": server.model, "object": "model", "owned_by": "codekeep"}]})
            else:
                self._send_json(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send_json(404, {"error": {"message": f"no route {self.path}"}})
                return
            try:
                body = json.loads(raw)
            except ValueError:
                self._send_json(400, {"error": {"message": "request body is not JSON"}})
                return
            server.request_headers.append(dict(self.headers.items()))
            server._arrived(+1)
            try:
                if server.one_at_a_time:
                    with server._slot:
                        self._answer(body)
                else:
                    self._answer(body)
            finally:
                server._arrived(-1)

        def _answer(self, body: dict[str, Any]) -> None:
            reply = server._next_reply(body)
            if reply.delay and not (server._generate(reply.delay, self.connection)
                                    if server.one_at_a_time else server._sleep(reply.delay)):
                return
            try:
                if reply.ends_early and not (reply.stream if reply.stream is not None
                                             else body.get("stream")):
                    self._send_raw(200, "", "application/json", reply.headers)
                elif reply.status >= 400 or reply.body is not None:
                    self._send_raw(reply.status, reply.body or "{}", "application/json",
                                   reply.headers)
                elif reply.stream if reply.stream is not None else body.get("stream"):
                    self._send_stream(body, reply)
                else:
                    self._send_json(200, _completion(server.model, body, reply), reply.headers)
            except (BrokenPipeError, ConnectionResetError):
                return  # the client went away (cancelled): nothing to answer

        def _send_json(self, status: int, payload: Any,
                       headers: Mapping[str, str] | None = None) -> None:
            self._send_raw(status, json.dumps(payload), "application/json", headers or {})

        def _send_raw(self, status: int, text: str, content_type: str,
                      headers: Mapping[str, str]) -> None:
            data = text.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _send_stream(self, body: dict[str, Any], reply: Reply) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            chunks = _stream_chunks(server.model, body, reply, include_usage)
            if reply.ends_early:  # the connection drops before the finish chunk
                chunks = chunks[:max(1, len(chunks) // 2)]
            for chunk in chunks:
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
            if reply.ends_early:
                return
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

    return Handler


def _usage(body: Mapping[str, Any], reply: Reply) -> dict[str, int]:
    if reply.usage is not None:
        usage = dict(reply.usage)
    else:
        completion = token_len(reply.content) + sum(
            token_len(c.name) + token_len(c.arguments_text()) for c in reply.tool_calls)
        usage = {"prompt_tokens": prompt_tokens(body), "completion_tokens": completion}
    usage.setdefault("total_tokens", usage.get("prompt_tokens", 0)
                     + usage.get("completion_tokens", 0))
    return usage


def _call_id(reply_call: ScriptedCall, index: int) -> str:
    return reply_call.id or f"call_{index}_{reply_call.name}"


def _completion(model: str, body: Mapping[str, Any], reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
    if reply.refusal_text:
        message["refusal"] = reply.refusal_text
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": _call_id(c, i), "type": "function",
             "function": {"name": c.name, "arguments": c.arguments_text()}}
            for i, c in enumerate(reply.tool_calls)
        ]
    payload: dict[str, Any] = {
        "id": f"chatcmpl-{time.monotonic_ns()}", "object": "chat.completion",
        "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": message,
                     "finish_reason": reply.natural_finish}],
    }
    if reply.report_usage:
        payload["usage"] = _usage(body, reply)
    return payload


def _pieces(text: str, size: int = 16) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


def _stream_chunks(model: str, body: Mapping[str, Any], reply: Reply,
                   include_usage: bool) -> list[dict[str, Any]]:
    base = {"id": f"chatcmpl-{time.monotonic_ns()}", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": piece}) for piece in _pieces(reply.content)]
    chunks += [chunk({"refusal": piece}) for piece in _pieces(reply.refusal_text or "")]
    for index, scripted in enumerate(reply.tool_calls):
        chunks.append(chunk({"tool_calls": [{"index": index, "id": _call_id(scripted, index),
                                             "type": "function",
                                             "function": {"name": scripted.name,
                                                          "arguments": ""}}]}))
        chunks += [chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                   for piece in _pieces(scripted.arguments_text())]
    chunks.append(chunk({}, reply.natural_finish))
    if include_usage and reply.report_usage:
        chunks.append({**base, "choices": [], "usage": _usage(body, reply)})
    return chunks
