"""Call and type hierarchy from the code map: what every editor's hierarchy view (and
Claude Code's LSP tool) asks.

``textDocument/prepareCallHierarchy`` names the symbol under the cursor;
``callHierarchy/incomingCalls`` are the definitions enclosing its uses (``findRelated``'s
``calledBy``) with the call sites, ``callHierarchy/outgoingCalls`` what its body calls
(``findRelated``'s ``calls``). ``typeHierarchy/supertypes`` / ``subtypes`` follow the
bases and interfaces the index records in type headers. Like the other navigation
features, a position that designates nothing answers null, never an error.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types

from codekeep.analysis.model import Encoding, Symbol
from codekeep.common.uris import path_to_uri
from codekeep.server.app import CodeKeepServer, DocumentRef
from codekeep.server.features.navigation import targets_at
from codekeep.server.locations import lsp_range
from codekeep.server.symbols import symbol_kind
from codekeep.services import WorkspaceServices

HIERARCHY_LIMIT = 200  # edges per answer: a hierarchy view shows one level at a time


def _item_fields(root: Path, symbol: Symbol, encoding: Encoding) -> dict[str, Any]:
    return {
        "name": symbol.name,
        "kind": symbol_kind(symbol.kind),
        "uri": path_to_uri(root / symbol.path),
        "range": lsp_range(symbol.range, encoding),
        "selection_range": lsp_range(symbol.selection_range, encoding),
        "detail": symbol.signature,
        "data": {"id": symbol.id},
    }


def call_item(root: Path, symbol: Symbol, encoding: Encoding) -> types.CallHierarchyItem:
    return types.CallHierarchyItem(**_item_fields(root, symbol, encoding))


def type_item(root: Path, symbol: Symbol, encoding: Encoding) -> types.TypeHierarchyItem:
    return types.TypeHierarchyItem(**_item_fields(root, symbol, encoding))


def _symbol_ids(
    services: WorkspaceServices,
    document: DocumentRef,
    item: types.CallHierarchyItem | types.TypeHierarchyItem,
) -> list[str]:
    """The symbol an item stands for: its id when the client kept ``data``, else
    whatever its selection range designates now."""
    data = item.data
    if isinstance(data, dict) and isinstance(data.get("id"), str):
        return [data["id"]]
    return [s.id for s in targets_at(services, document, item.selection_range.start)]


def prepare_calls(
    services: WorkspaceServices, document: DocumentRef, position: types.Position
) -> list[types.CallHierarchyItem] | None:
    targets = targets_at(services, document, position)
    return [call_item(document.root, s, document.encoding) for s in targets] or None


def incoming(
    services: WorkspaceServices, document: DocumentRef, item: types.CallHierarchyItem
) -> list[types.CallHierarchyIncomingCall] | None:
    calls = [
        types.CallHierarchyIncomingCall(
            from_=call_item(document.root, edge.symbol, document.encoding),
            from_ranges=[lsp_range(site, document.encoding) for site in edge.sites],
        )
        for symbol_id in _symbol_ids(services, document, item)
        for edge in services.codemap.incoming_calls(symbol_id, HIERARCHY_LIMIT)
    ]
    return calls or None


def outgoing(
    services: WorkspaceServices, document: DocumentRef, item: types.CallHierarchyItem
) -> list[types.CallHierarchyOutgoingCall] | None:
    calls = [
        types.CallHierarchyOutgoingCall(
            to=call_item(document.root, edge.symbol, document.encoding),
            from_ranges=[lsp_range(site, document.encoding) for site in edge.sites],
        )
        for symbol_id in _symbol_ids(services, document, item)
        for edge in services.codemap.outgoing_calls(symbol_id, HIERARCHY_LIMIT)
    ]
    return calls or None


def prepare_types(
    services: WorkspaceServices, document: DocumentRef, position: types.Position
) -> list[types.TypeHierarchyItem] | None:
    targets = targets_at(services, document, position)
    return [type_item(document.root, s, document.encoding) for s in targets] or None


def related_types(
    services: WorkspaceServices,
    document: DocumentRef,
    item: types.TypeHierarchyItem,
    direction: str,
) -> list[types.TypeHierarchyItem] | None:
    codemap = services.codemap
    query = codemap.supertypes if direction == "supertypes" else codemap.subtypes
    found = [
        type_item(document.root, symbol, document.encoding)
        for symbol_id in _symbol_ids(services, document, item)
        for symbol in query(symbol_id, HIERARCHY_LIMIT)
    ]
    return found or None


async def prepare_call_hierarchy(
    ls: CodeKeepServer, params: types.CallHierarchyPrepareParams
) -> list[types.CallHierarchyItem] | None:
    return await ls.on_document(
        params.text_document.uri, lambda s, doc: prepare_calls(s, doc, params.position)
    )


async def incoming_calls(
    ls: CodeKeepServer, params: types.CallHierarchyIncomingCallsParams
) -> list[types.CallHierarchyIncomingCall] | None:
    return await ls.on_document(params.item.uri, lambda s, doc: incoming(s, doc, params.item))


async def outgoing_calls(
    ls: CodeKeepServer, params: types.CallHierarchyOutgoingCallsParams
) -> list[types.CallHierarchyOutgoingCall] | None:
    return await ls.on_document(params.item.uri, lambda s, doc: outgoing(s, doc, params.item))


async def prepare_type_hierarchy(
    ls: CodeKeepServer, params: types.TypeHierarchyPrepareParams
) -> list[types.TypeHierarchyItem] | None:
    return await ls.on_document(
        params.text_document.uri, lambda s, doc: prepare_types(s, doc, params.position)
    )


async def supertypes(
    ls: CodeKeepServer, params: types.TypeHierarchySupertypesParams
) -> list[types.TypeHierarchyItem] | None:
    return await ls.on_document(
        params.item.uri, lambda s, doc: related_types(s, doc, params.item, "supertypes")
    )


async def subtypes(
    ls: CodeKeepServer, params: types.TypeHierarchySubtypesParams
) -> list[types.TypeHierarchyItem] | None:
    return await ls.on_document(
        params.item.uri, lambda s, doc: related_types(s, doc, params.item, "subtypes")
    )


FEATURES: tuple[tuple[str, Callable[..., Any]], ...] = (
    (types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY, prepare_call_hierarchy),
    (types.CALL_HIERARCHY_INCOMING_CALLS, incoming_calls),
    (types.CALL_HIERARCHY_OUTGOING_CALLS, outgoing_calls),
    (types.TEXT_DOCUMENT_PREPARE_TYPE_HIERARCHY, prepare_type_hierarchy),
    (types.TYPE_HIERARCHY_SUPERTYPES, supertypes),
    (types.TYPE_HIERARCHY_SUBTYPES, subtypes),
)


def register(server: CodeKeepServer) -> None:
    for method, handler in FEATURES:
        server.feature(method)(handler)
