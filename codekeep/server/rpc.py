"""JSON-RPC intake: every message the client sends is read here, and every request gets
exactly one answer, whatever shape it arrives in.

pygls parses each message with its converter inside ``json.loads``; when that fails
(params lsprotocol rejects, such as a negative ``position.line``, or a request with no
``params`` member) the exception is only logged and the client waits for an answer that
never comes. Here the envelope is checked first and the params second, so the answer is
what JSON-RPC 2.0 and LSP 3.17 say:

* not JSON: ``-32700`` Parse error, id ``null``;
* not a request object (no ``method``, ``jsonrpc`` other than ``"2.0"``, an id that is
  not a string, an integer or ``null``), or an empty batch: ``-32600`` Invalid Request;
* params that are not an object or an array, or that do not fit the method's type:
  ``-32602`` Invalid params naming the field;
* before ``initialize``: ``-32002`` ServerNotInitialized; after ``shutdown``: ``-32600``
  (only ``exit`` is still accepted). Notifications in those states are dropped, as LSP
  says, and a notification with unreadable params is logged (it has no one to answer);
* a batch (an array of messages) gets one array of the answers to its requests, and
  nothing when it held only notifications.

A request id of ``null`` is a request (it is answered, with id ``null``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from cattrs import BaseValidationError, transform_error
from cattrs.v import format_exception

logger = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002

MsgId = str | int | None
_CONTENT_LENGTH = re.compile(rb"^Content-Length: (\d+)\r\n$")


class Rejected(Exception):
    """A message answered with an error without reaching any handler."""

    def __init__(self, msg_id: MsgId, code: int, message: str) -> None:
        super().__init__(message)
        self.msg_id = msg_id
        self.code = code
        self.message = message


class Reader(Protocol):
    """What the intake loop reads from (an ``asyncio.StreamReader`` or pygls' reader)."""

    def readline(self) -> Awaitable[bytes]: ...

    def readexactly(self, n: int) -> Awaitable[bytes]: ...


async def read_messages(
    reader: Reader, receive: Callable[[bytes], None], stop: threading.Event
) -> None:
    """Read ``Content-Length``-framed bodies until end of input (or ``stop``) and hand
    each to ``receive``; a failure while handling one body is logged and the next is read.
    """
    content_length = 0
    while not stop.is_set():
        header = await reader.readline()
        if not header:
            return
        if not content_length and (match := _CONTENT_LENGTH.fullmatch(header)):
            content_length = int(match.group(1))
        if content_length and not header.strip():
            body = await reader.readexactly(content_length)
            content_length = 0
            if not body:
                return
            try:
                receive(body)
            except Exception:
                logger.exception("could not handle a message")


def parse_body(body: bytes) -> Any:
    """The JSON value of one message body (:class:`Rejected` with Parse error if none)."""
    try:
        return json.loads(body)
    except ValueError as error:  # UnicodeDecodeError is a ValueError too
        raise Rejected(None, PARSE_ERROR, f"Parse error: {error}") from None


def is_valid_id(value: Any) -> bool:
    """JSON-RPC ids are strings, integers (numbers without a fraction) or null."""
    return value is None or isinstance(value, str) or (
        isinstance(value, int) and not isinstance(value, bool)
    )


@dataclass(frozen=True, slots=True)
class Call:
    """A request or notification whose envelope is valid (params not yet checked)."""

    method: str
    params: Any  # None when absent or null
    msg_id: MsgId
    is_request: bool


def read_call(data: Any) -> Call | None:
    """The call in one message, or None for a response to one of our own requests.

    Raises :class:`Rejected` (Invalid Request) when the message is neither.
    """
    if not isinstance(data, dict):
        raise Rejected(None, INVALID_REQUEST, "Invalid Request: a message must be an object")
    has_id = "id" in data
    msg_id = data.get("id")
    if not is_valid_id(msg_id):
        raise Rejected(
            None, INVALID_REQUEST, "Invalid Request: 'id' must be a string, an integer or null"
        )
    if data.get("jsonrpc") != "2.0":
        raise Rejected(msg_id, INVALID_REQUEST, "Invalid Request: 'jsonrpc' must be \"2.0\"")
    if "method" not in data:
        if has_id and ("result" in data or "error" in data):
            return None
        raise Rejected(msg_id, INVALID_REQUEST, "Invalid Request: 'method' is missing")
    method = data["method"]
    if not isinstance(method, str):
        raise Rejected(msg_id, INVALID_REQUEST, "Invalid Request: 'method' must be a string")
    params = data.get("params")
    if params is not None and not isinstance(params, dict | list):
        raise Rejected(
            msg_id,
            INVALID_PARAMS,
            f"Invalid params: 'params' must be an object or an array, got "
            f"{type(params).__name__}",
        )
    return Call(method, params, msg_id, has_id)


def explain(error: BaseException) -> str:
    """A structuring failure as ``Invalid params: 'params.position': <why>``, the path in
    the wire's camelCase (the client's names, not lsprotocol's attribute names)."""
    if not isinstance(error, BaseValidationError):
        return f"Invalid params: {error}"
    reasons = []
    for line in transform_error(error, "$", _describe):
        why, _, path = line.rpartition(" @ ")
        wire = re.sub(r"_([a-z])", lambda m: m.group(1).upper(), path.removeprefix("$."))
        reasons.append(f"'{wire}': {why}")
    return "Invalid params: " + "; ".join(reasons)


def _describe(error: BaseException, kind: type | None) -> str:
    # A validator's own words ("Position.line should be in range [0:2147483647], but
    # was -1.") say more than cattrs' generic "invalid value".
    if isinstance(error, ValueError) and kind is None and str(error):
        return str(error).rstrip(".")
    return format_exception(error, kind)


@dataclass(slots=True)
class Batch:
    """The answers of one batch, sent together once every request in it is answered."""

    waiting: Counter[MsgId] = field(default_factory=Counter)
    answers: list[Any] = field(default_factory=list)
    sealed: bool = False  # every member has been read

    @property
    def complete(self) -> bool:
        return self.sealed and not +self.waiting


@dataclass(slots=True)
class BatchRoutes:
    """Which batch an outgoing answer belongs to, by request id (oldest batch first)."""

    by_id: dict[MsgId, deque[Batch]] = field(default_factory=dict)

    def expect(self, batch: Batch, msg_id: MsgId) -> None:
        batch.waiting[msg_id] += 1
        self.by_id.setdefault(msg_id, deque()).append(batch)

    def take(self, msg_id: MsgId) -> Batch | None:
        """The batch waiting for an answer to ``msg_id`` (None: not a batch member)."""
        queue = self.by_id.get(msg_id)
        if not queue:
            return None
        batch = queue.popleft()
        if not queue:
            del self.by_id[msg_id]
        batch.waiting[msg_id] -= 1
        return batch


def error_response(msg_id: MsgId, code: int, message: str, data: Any = None) -> dict[str, Any]:
    """An error response as JSON. Built by hand: lsprotocol drops ``None`` members, and
    an answer whose request id was unreadable must still say ``"id": null``."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": msg_id, "error": error}


def answer_id(data: Any) -> tuple[MsgId] | None:
    """``(id,)`` when ``data`` is a response (to be routed by its id), else None."""
    if isinstance(data, dict):
        return (data["id"],) if "id" in data and "method" not in data else None
    if hasattr(data, "id") and not hasattr(data, "method"):
        return (data.id,)
    return None


async def read_stdio(stdin: Any, thread_pool: Any) -> Reader:
    """A reader for ``stdin``: an asyncio pipe when the event loop can poll it (no
    thread hop per line: a keystroke is two messages, and every hop is latency the user
    feels), else pygls' thread-backed reader (a file, ``/dev/null``, a tty)."""
    from pygls.io_ import StdinAsyncReader

    loop = asyncio.get_running_loop()
    if not _pollable(stdin):
        # asyncio accepts any character device as a pipe and only fails later, in a
        # callback (``serve < /dev/null`` printed a PermissionError and never ended).
        return StdinAsyncReader(stdin, thread_pool)
    try:
        reader = asyncio.StreamReader(limit=2**26)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
        return reader
    except (OSError, ValueError):
        return StdinAsyncReader(stdin, thread_pool)


def _pollable(stream: Any) -> bool:
    """Whether the event loop's selector accepts ``stream`` (epoll refuses regular
    files and ``/dev/null``)."""
    import selectors

    try:
        with selectors.DefaultSelector() as selector:
            selector.register(stream, selectors.EVENT_READ)
    except (OSError, ValueError):
        return False
    return True
