"""Server logging: the ``codekeep`` logger forwarded to the editor as ``window/logMessage``.

Stderr logging, shared with the MCP door, lives in ``codekeep.hosting.logs``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from codekeep.server.app import CodeKeepServer

_LEVELS = (
    (logging.ERROR, types.MessageType.Error),
    (logging.WARNING, types.MessageType.Warning),
    (logging.INFO, types.MessageType.Info),
)


class ClientLogHandler(logging.Handler):
    """Forwards log records to the editor's log as ``window/logMessage``.

    Records may come from worker threads; they are handed to the event loop, which
    owns the transport. A record emitted while sending (a transport error) is dropped
    rather than recursing.
    """

    def __init__(self, server: CodeKeepServer, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(level=logging.INFO)
        self._server = server
        self._loop = loop
        self._sending = threading.local()
        self.setFormatter(logging.Formatter("%(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(self._sending, "active", False) or self._loop.is_closed():
            return
        message_type = next(
            (kind for level, kind in _LEVELS if record.levelno >= level), types.MessageType.Log
        )
        params = types.LogMessageParams(type=message_type, message=self.format(record))
        with contextlib.suppress(RuntimeError):  # loop closed since the check
            self._loop.call_soon_threadsafe(self._send, params)

    def _send(self, params: types.LogMessageParams) -> None:
        if self._server.protocol.writer is None:
            return
        self._sending.active = True
        try:
            self._server.window_log_message(params)
        except Exception:  # the client is gone; stderr still has the record
            pass
        finally:
            self._sending.active = False


def attach_client_logging(server: CodeKeepServer, loop: asyncio.AbstractEventLoop) -> None:
    """Add the ``window/logMessage`` handler to the ``codekeep`` logger (once)."""
    logger = logging.getLogger("codekeep")
    if not any(isinstance(h, ClientLogHandler) for h in logger.handlers):
        logger.addHandler(ClientLogHandler(server, loop))
