"""Streamable HTTP at ``/mcp``: loopback by default, a bearer token when asked for.

The SDK's app serves both protocol eras on one path and protects loopback binds
against DNS rebinding. In front of it, :class:`BearerTokenGate` refuses any request
without ``Authorization: Bearer <token>`` when a token is configured (required for a
non-loopback bind, see :class:`~codekeep.mcp.options.McpOptions`).
"""

from __future__ import annotations

import errno
import hmac
import json
import logging
import socket
from typing import Any

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from codekeep.mcp.options import HttpBind, McpOptions
from codekeep.mcp.server import opened_door

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 4 * 1024 * 1024


class BearerTokenGate:
    """ASGI middleware: HTTP requests must carry the token; lifespan events pass."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self._app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                await _unauthorized(send, "missing bearer token" if not given else "wrong token")
                return
        await self._app(scope, receive, send)


async def _unauthorized(send: Send, reason: str) -> None:
    body = json.dumps({"error": "unauthorized", "reason": reason}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", b'Bearer realm="codekeep"'),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def serve_http(options: McpOptions) -> None:
    """Serve every client that connects to ``options.http`` until interrupted."""
    bind = options.http
    assert bind is not None
    listening = _listen(bind)  # before any work: a busy port is one clear line
    async with opened_door(options) as (_door, server):
        app: Any = server.streamable_http_app(
            streamable_http_path="/mcp", host=bind.host, max_request_body_size=MAX_BODY_BYTES
        )
        if options.token is not None:
            app = BearerTokenGate(app, options.token)
        await _uvicorn(app, bind).serve(sockets=[listening])


def _uvicorn(app: ASGIApp, bind: HttpBind) -> uvicorn.Server:
    config = uvicorn.Config(
        app, host=bind.host, port=bind.port, log_level="warning", lifespan="on", access_log=False
    )
    logger.info("serving MCP at %s", bind.url)
    return uvicorn.Server(config)


def _listen(bind: HttpBind) -> socket.socket:
    """A socket bound to ``bind``, or an OSError saying what to do (uvicorn logs the
    raw ``[Errno 98]`` line and exits 3, the status reserved for a hard budget)."""
    family, kind, proto, _, address = socket.getaddrinfo(
        bind.host, bind.port, type=socket.SOCK_STREAM)[0]
    listening = socket.socket(family, kind, proto)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind(address)
    except OSError as error:
        listening.close()
        busy = " (another process uses it: pick a free port)" \
            if error.errno == errno.EADDRINUSE else ""
        raise OSError(f"cannot serve MCP at {bind.url}: {error.strerror}{busy}") from None
    return listening
