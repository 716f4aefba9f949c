"""pygls protocol tweaks: position-encoding preference, experimental capabilities and
params of custom methods kept as plain JSON.
"""

from __future__ import annotations

import logging
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

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
