"""pygls protocol tweaks: every message read through :mod:`codekeep.server.rpc` (so every
request is answered), position-encoding preference, experimental capabilities and params
of custom methods kept as plain JSON.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import attrs
import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
    default_converter,
    lsp_method,
)

from codekeep.server.rpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    SERVER_NOT_INITIALIZED,
    Batch,
    BatchRoutes,
    Call,
    Rejected,
    answer_id,
    error_response,
    explain,
    parse_body,
    read_call,
)

if TYPE_CHECKING:
    from codekeep.server.app import CodeKeepServer

logger = logging.getLogger(__name__)

PREFERRED_ENCODINGS = (types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf16)


def plain_params_converter() -> cattrs.Converter:
    """pygls' converter, except that params and results of methods lsprotocol does not
    know stay plain JSON (dicts).

    pygls turns them into namedtuples (``rename=True`` silently renames keys that are
    not identifiers), which would make custom-request parsing lossy. Test clients use
    the same converter to read our custom results as dicts.
    """
    converter = default_converter()
    for message in (JsonRPCRequestMessage, JsonRPCNotification, JsonRPCResponseMessage):
        converter.register_structure_hook(message, lambda obj, cls: cls(**obj))
    return converter


def prefer_utf8(capabilities: types.ClientCapabilities) -> None:
    """Narrow the client's offered encodings to the one we want: UTF-8 when offered
    (tree-sitter's own columns: no conversion), else UTF-16 (LSP's mandatory default).
    """
    general = capabilities.general
    if general is None or not general.position_encodings:
        return
    offered = set(general.position_encodings)
    chosen = next((kind for kind in PREFERRED_ENCODINGS if kind in offered), None)
    general.position_encodings = [chosen] if chosen is not None else None


class CodeKeepProtocol(LanguageServerProtocol):
    """Adds the encoding preference and lists CodeKeep's custom methods in
    ``capabilities.experimental.codekeep`` so clients can discover them."""

    _server: CodeKeepServer

    def __init__(self, server: Any, converter: cattrs.Converter) -> None:
        super().__init__(server, converter)
        self._initialize_seen = False
        self._batches = BatchRoutes()

    # -- intake: every request gets exactly one answer (rules in codekeep.server.rpc) --

    def receive(self, body: bytes) -> None:
        """Handle one message body as read from the wire (a message or a batch)."""
        try:
            data = parse_body(body)
        except Rejected as rejected:
            self._refuse(rejected, None)
            return
        if not isinstance(data, list):
            self._receive_one(data, None)
            return
        if not data:
            self._refuse(Rejected(None, INVALID_REQUEST, "Invalid Request: an empty batch"), None)
            return
        batch = Batch()
        for item in data:
            self._receive_one(item, batch)
        batch.sealed = True
        self._flush(batch)

    def _receive_one(self, data: Any, batch: Batch | None) -> None:
        try:
            call = read_call(data)
        except Rejected as rejected:
            self._refuse(rejected, batch)
            return
        if call is None:
            self._receive_response(data)
            return
        try:
            message = self._admit(call)
        except Rejected as rejected:
            if call.is_request:
                self._refuse(rejected, batch)
            else:
                logger.warning("notification %s dropped: %s", call.method, rejected.message)
            return
        if message is None:
            logger.info("notification %s dropped (lifecycle)", call.method)
            return
        if batch is not None and call.is_request:
            self._batches.expect(batch, call.msg_id)
        self.handle_message(message)

    def _admit(self, call: Call) -> Any:
        """The typed message for a call the lifecycle allows; None for a notification
        to drop. Raises :class:`Rejected` for a request that must be refused."""
        if self._shutdown and call.method != types.EXIT:
            if call.is_request:
                raise Rejected(
                    call.msg_id,
                    INVALID_REQUEST,
                    f"Invalid Request: the server is shut down, only 'exit' is accepted "
                    f"(got {call.method!r})",
                )
            return None
        if not self._initialize_seen and call.method not in (types.INITIALIZE, types.EXIT):
            if call.is_request:
                raise Rejected(
                    call.msg_id,
                    SERVER_NOT_INITIALIZED,
                    f"the server is not initialized: send 'initialize' before {call.method!r}",
                )
            return None
        kind = self.get_message_type(call.method)
        if kind is None:
            kind = JsonRPCRequestMessage if call.is_request else JsonRPCNotification
        elif call.is_request and "id" not in attrs.fields_dict(kind):
            raise Rejected(
                call.msg_id,
                INVALID_REQUEST,
                f"Invalid Request: {call.method!r} is a notification (send it without an id)",
            )
        envelope = {"jsonrpc": "2.0", "method": call.method, "params": call.params}
        if call.is_request:
            envelope["id"] = call.msg_id
        try:
            message = self._converter.structure(envelope, kind)
        except Exception as error:
            raise Rejected(call.msg_id, INVALID_PARAMS, explain(error)) from None
        if call.method == types.INITIALIZE:
            self._initialize_seen = True
        return message

    def _receive_response(self, data: dict[str, Any]) -> None:
        """A response to one of our own requests (workspace/configuration, ...)."""
        try:
            message = self.structure_message(data)
        except Exception as error:
            logger.warning("unreadable response %r ignored: %s", data.get("id"), error)
            return
        self.handle_message(message)

    def _refuse(self, rejected: Rejected, batch: Batch | None) -> None:
        logger.warning("request %r refused: %s", rejected.msg_id, rejected.message)
        if batch is not None:
            self._batches.expect(batch, rejected.msg_id)
        self._send_data(error_response(rejected.msg_id, rejected.code, rejected.message))

    def _send_data(self, data: Any) -> None:
        """Answers to batch members wait for their batch; everything else goes out."""
        if isinstance(data, types.ResponseErrorMessage) and data.error is not None:
            data = error_response(data.id, data.error.code, data.error.message, data.error.data)
        if self._batches.by_id and (answered := answer_id(data)) is not None:
            batch = self._batches.take(answered[0])
            if batch is not None:
                batch.answers.append(json.loads(json.dumps(data, default=self._serialize_message)))
                self._flush(batch)
                return
        super()._send_data(data)

    def _flush(self, batch: Batch) -> None:
        if batch.complete and batch.answers:
            answers, batch.answers = batch.answers, []
            super()._send_data(answers)

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        """A request with bad params is the client's mistake, answered with
        InvalidParams: one warning line in the log, not pygls' traceback plus an error
        (tracebacks stay for genuine failures inside a handler)."""
        error = None if future.cancelled() else future.exception()
        if not isinstance(error, JsonRpcInvalidParams):
            super()._send_handler_result(future, msg_id=msg_id)
            return
        self._request_futures.pop(msg_id, None)
        logger.warning("request %s refused: %s", msg_id, error.message)
        self._send_response(msg_id, error=error.to_response_error())

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        prefer_utf8(params.capabilities)
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        result.capabilities.experimental = {
            "codekeep": {
                "requests": sorted(self._server.custom_methods),
                "notifications": sorted(self._server.client_notifications),
            }
        }
        return result

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        """Hand edits to our handler without updating pygls' copy of the document.

        pygls rewrites its whole copy on every keystroke (a Python loop over every
        line); the code map already keeps the buffer, so that copy would be pure cost.
        Read a document's current text with ``codemap.document_text(path)``.
        """
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None
