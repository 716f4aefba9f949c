"""Standard navigation backed by the index: definition, references, document symbols
(hierarchical) and workspace symbols (fuzzy).

Editors call these constantly and show errors loudly, so a position past the end, a
file outside the workspace or a never-indexed file answers "nothing here" (null or
an empty list), never an error.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types

from codekeep.analysis.model import Encoding, Reference, Symbol
from codekeep.common.uris import path_to_uri
from codekeep.server.app import CodeKeepServer, DocumentRef
from codekeep.server.locations import lsp_range
from codekeep.server.symbols import cursor, document_symbols, symbol_kind, symbols_at
from codekeep.services import WorkspaceServices

WORKSPACE_SYMBOL_LIMIT = 200


def location(root: Path, item: Symbol | Reference, encoding: Encoding) -> types.Location:
    value = item.selection_range if isinstance(item, Symbol) else item.range
    return types.Location(uri=path_to_uri(root / item.path), range=lsp_range(value, encoding))


def targets_at(
    services: WorkspaceServices, document: DocumentRef, position: types.Position
) -> list[Symbol]:
    """The definitions designated by the cursor (empty when it is nowhere useful)."""
    codemap = services.codemap
    at = cursor(codemap, document.path, position.line, position.character, document.encoding)
    return [] if at is None else symbols_at(codemap, document.path, *at)


def references_of(
    services: WorkspaceServices, targets: Sequence[Symbol], limit: int | None = None
) -> tuple[list[Reference], int]:
    """Every use of ``targets``: by id when the target is one symbol, else by name."""
    if len(targets) == 1:
        return services.codemap.find_references(symbol_id=targets[0].id, limit=limit)
    if targets:
        return services.codemap.find_references(name=targets[0].name, limit=limit)
    return [], 0


def definitions(
    services: WorkspaceServices, document: DocumentRef, position: types.Position
) -> list[types.Location] | None:
    targets = targets_at(services, document, position)
    return [location(document.root, symbol, document.encoding) for symbol in targets] or None


def references(
    services: WorkspaceServices, document: DocumentRef, params: types.ReferenceParams
) -> list[types.Location] | None:
    targets = targets_at(services, document, params.position)
    refs, _total = references_of(services, targets)
    found = [location(document.root, ref, document.encoding) for ref in refs]
    if params.context.include_declaration:
        declared = [location(document.root, symbol, document.encoding) for symbol in targets]
        found = declared + found
    return found or None


def outline(services: WorkspaceServices, document: DocumentRef) -> list[types.DocumentSymbol]:
    return document_symbols(services.codemap.symbols_in([document.path]), document.encoding)


async def definition(
    ls: CodeKeepServer, params: types.DefinitionParams
) -> list[types.Location] | None:
    return await ls.on_document(
        params.text_document.uri, lambda s, document: definitions(s, document, params.position)
    )


async def find_references(
    ls: CodeKeepServer, params: types.ReferenceParams
) -> list[types.Location] | None:
    return await ls.on_document(
        params.text_document.uri, lambda s, document: references(s, document, params)
    )


async def document_symbol(
    ls: CodeKeepServer, params: types.DocumentSymbolParams
) -> list[types.DocumentSymbol] | None:
    return await ls.on_document(params.text_document.uri, outline)


async def workspace_symbol(
    ls: CodeKeepServer, params: types.WorkspaceSymbolParams
) -> list[types.WorkspaceSymbol]:
    if not params.query.strip():
        return []
    encoding = ls.encoding
    handles = list(ls.workspaces)
    per_folder = await asyncio.gather(
        *(
            handle.run(lambda s: s.codemap.search_symbols(params.query, WORKSPACE_SYMBOL_LIMIT))
            for handle in handles
        )
    )
    scored = [
        (score, handle.root, symbol)
        for handle, found in zip(handles, per_folder, strict=True)
        for symbol, score in found
    ]
    scored.sort(key=lambda item: -item[0])
    return [
        types.WorkspaceSymbol(
            name=symbol.name,
            kind=symbol_kind(symbol.kind),
            location=location(root, symbol, encoding),
            container_name=symbol.container,
        )
        for _score, root, symbol in scored[:WORKSPACE_SYMBOL_LIMIT]
    ]


FEATURES: tuple[tuple[str, Callable[..., Any]], ...] = (
    (types.TEXT_DOCUMENT_DEFINITION, definition),
    (types.TEXT_DOCUMENT_REFERENCES, find_references),
    (types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, document_symbol),
    (types.WORKSPACE_SYMBOL, workspace_symbol),
)


def register(server: CodeKeepServer) -> None:
    for method, handler in FEATURES:
        server.feature(method)(handler)
