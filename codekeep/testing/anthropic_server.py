"""A real Anthropic Messages endpoint on 127.0.0.1 that replays a script.

Claude Code (and any client of ``POST /v1/messages``) pointed at it with
``ANTHROPIC_BASE_URL`` gets deterministic answers over the actual wire protocol: a
streamed reply is the documented SSE sequence (``message_start`` … ``content_block_delta``
with ``text_delta`` / ``input_json_delta`` … ``message_delta`` … ``message_stop``), tool
calls are ``tool_use`` blocks, and usage carries the prompt-cache split Claude Code's
transcripts keep (``cache_creation.ephemeral_5m_input_tokens`` and
``ephemeral_1h_input_tokens``), so the ledger's pricing can be checked against what the
host itself computes. A reply can also fail the way real endpoints do: an HTTP error
with the documented error body, or a stream the server drops half way.

Each request takes the next :class:`Turn` of the script or, once it is empty, asks the
responder callable (for hosts that make side calls the test cannot predict); every
request body is recorded so a test can assert what the host sent — the system prompt,
the tools, the hook-injected context in the first user message.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import count
from typing import Any

Responder = Callable[[dict[str, Any]], "Turn"]
DEFAULT_MODEL = "claude-sonnet-4-5-20250929"


@dataclass(frozen=True, slots=True)
class Usage:
    """What the reply bills: fresh input, cache reads, the two cache-write lifetimes,
    output. ``input_tokens`` excludes the cached parts, as the API reports it."""

    input_tokens: int = 10
    output_tokens: int = 5
    cache_read_input_tokens: int = 0
    cache_write_5m_tokens: int = 0
    cache_write_1h_tokens: int = 0

    def to_json(self, output_tokens: int | None = None) -> dict[str, Any]:
        written = self.cache_write_5m_tokens + self.cache_write_1h_tokens
        return {
            "input_tokens": self.input_tokens,
            "cache_creation_input_tokens": written,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "cache_creation": {"ephemeral_5m_input_tokens": self.cache_write_5m_tokens,
                               "ephemeral_1h_input_tokens": self.cache_write_1h_tokens},
            "output_tokens": self.output_tokens if output_tokens is None else output_tokens,
            "service_tier": "standard",
        }


@dataclass(frozen=True, slots=True)
class ToolUse:
    """A ``tool_use`` block to send; ``id`` defaults to one unique in the server."""

    name: str
    input: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True, slots=True)
class Turn:
    """One scripted answer: text, then tool calls, with the usage to report.

    ``status`` >= 400 answers with the API's error body (``error_type``, ``text`` as its
    message); ``drops_connection`` closes a stream after its first content block, as a
    server does that dies mid-answer; ``model`` defaults to the request's."""

    text: str = ""
    tool_uses: Sequence[ToolUse] = ()
    usage: Usage = field(default_factory=Usage)
    model: str | None = None
    status: int = 200
    error_type: str = "api_error"
    drops_connection: bool = False

    @property
    def stop_reason(self) -> str:
        return "tool_use" if self.tool_uses else "end_turn"


def say(text: str, **options: Any) -> Turn:
    """A plain text answer."""
    return Turn(text=text, **options)


def use(name: str, arguments: Mapping[str, Any] | None = None, *, text: str = "",
        **options: Any) -> Turn:
    """An answer asking for one tool."""
    return Turn(text=text, tool_uses=(ToolUse(name, dict(arguments or {})),), **options)


def error(status: int, message: str = "scripted error", error_type: str = "api_error") -> Turn:
    return Turn(text=message, status=status, error_type=error_type)


class ScriptedAnthropicServer:
    """Serve the script at ``http://127.0.0.1:<random port>`` (the ``ANTHROPIC_BASE_URL``;
    clients append ``/v1/messages``); use as a context manager."""

    def __init__(self, script: Iterable[Turn | Responder] = (), *,
                 responder: Responder | None = None) -> None:
        self._script: deque[Turn | Responder] = deque(script)
        self._responder = responder
        self._lock = threading.Lock()
        self._ids = count(1)
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self.replies: list[dict[str, Any]] = []  # the message object each answer carried
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> ScriptedAnthropicServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ScriptedAnthropicServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def push(self, *turns: Turn | Responder) -> None:
        with self._lock:
            self._script.extend(turns)

    @property
    def remaining(self) -> int:
        return len(self._script)

    def next_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}_{next(self._ids):04d}"

    def _next_turn(self, body: dict[str, Any], headers: dict[str, str]) -> Turn:
        with self._lock:
            self.requests.append(body)
            self.request_headers.append(headers)
            entry = self._script.popleft() if self._script else self._responder
        if entry is None:
            return error(500, "scripted Anthropic server: the script is exhausted")
        return entry(body) if callable(entry) else entry


def request_text(body: Mapping[str, Any]) -> str:
    """Every text a request carried: the system prompt and each message's text blocks
    and tool results, joined (what a test searches for injected context)."""
    parts: list[str] = []

    def collect(content: Any) -> None:
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            for block in content:
                if isinstance(block, dict):
                    collect(block.get("text"))
                    collect(block.get("content"))

    collect(body.get("system"))
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            collect(message.get("content"))
    return "\n".join(parts)


def _message(server: ScriptedAnthropicServer, body: Mapping[str, Any], turn: Turn
             ) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if turn.text:
        content.append({"type": "text", "text": turn.text})
    for tool in turn.tool_uses:
        content.append({"type": "tool_use", "id": tool.id or server.next_id("toolu"),
                        "name": tool.name, "input": dict(tool.input)})
    return {"id": server.next_id("msg"), "type": "message", "role": "assistant",
            "model": turn.model or str(body.get("model") or DEFAULT_MODEL),
            "content": content, "stop_reason": turn.stop_reason, "stop_sequence": None,
            "usage": turn.usage.to_json()}


def _pieces(text: str, size: int = 24) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def stream_events(message: Mapping[str, Any], usage: Usage) -> list[tuple[str, dict[str, Any]]]:
    """The SSE ``(event, data)`` sequence the Messages API streams for ``message``."""
    start = {**message, "content": [], "stop_reason": None,
             "usage": usage.to_json(output_tokens=1)}
    events: list[tuple[str, dict[str, Any]]] = [("message_start",
                                                  {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                   "content_block": {"type": "text", "text": ""}}))
            events += [("content_block_delta", {"type": "content_block_delta", "index": index,
                                                "delta": {"type": "text_delta", "text": piece}})
                       for piece in _pieces(block["text"])]
        else:
            events.append(("content_block_start", {
                "type": "content_block_start", "index": index,
                "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"],
                                  "input": {}}}))
            events += [("content_block_delta", {"type": "content_block_delta", "index": index,
                                                "delta": {"type": "input_json_delta",
                                                          "partial_json": piece}})
                       for piece in _pieces(json.dumps(block["input"]))]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(("message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
        "usage": {"output_tokens": usage.output_tokens}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def _handler_for(server: ScriptedAnthropicServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def do_HEAD(self) -> None:
            self._send_json(200, {})

        def do_GET(self) -> None:
            self._send_json(404, _error_body("not_found_error", f"no route {self.path}"))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            route = self.path.split("?", 1)[0].rstrip("/")
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._send_json(400, _error_body("invalid_request_error", "body is not JSON"))
                return
            if route.endswith("/v1/messages/count_tokens"):
                self._send_json(200, {"input_tokens": max(1, len(request_text(body)) // 4)})
                return
            if not route.endswith("/v1/messages"):
                self._send_json(404, _error_body("not_found_error", f"no route {self.path}"))
                return
            turn = server._next_turn(body, dict(self.headers.items()))
            try:
                if turn.status >= 400:
                    self._send_json(turn.status, _error_body(turn.error_type, turn.text))
                    return
                message = _message(server, body, turn)
                server.replies.append(message)
                if body.get("stream"):
                    self._send_stream(message, turn)
                else:
                    self._send_json(200, message)
            except (BrokenPipeError, ConnectionResetError):
                return  # the client went away: nothing to answer

        def _send_json(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("request-id", server.next_id("req"))
            self.end_headers()
            self.wfile.write(data)

        def _send_stream(self, message: dict[str, Any], turn: Turn) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.send_header("request-id", server.next_id("req"))
            self.end_headers()
            self.close_connection = True
            events = stream_events(message, turn.usage)
            if turn.drops_connection:
                events = events[:3]
            for name, data in events:
                self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

    return Handler


def _error_body(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}
