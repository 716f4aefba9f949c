"""Standard navigation backed by the index: definition, references, document symbols
(hierarchical) and workspace symbols (fuzzy).

Editors call these constantly and show errors loudly, so a position past the end, a
file outside the workspace or a never-indexed file answers "nothing here" (null or
an empty list), never an error.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from lsprotocol import types

from codekeep.analysis.model import Encoding, Reference, Symbol
from codekeep.common.uris import path_to_uri
from codekeep.server.app import CodeKeepServer
from codekeep.server.locations import lsp_range
from codekeep.server.symbols import cursor, document_symbols, symbol_kind, symbols_at
from codekeep.server.workspaces import WorkspaceHandle
from codekeep.services import WorkspaceServices

WORKSPACE_SYMBOL_LIMIT = 200


def location(
    handle: WorkspaceHandle, item: Symbol | Reference, encoding: Encoding
) -> types.Location:
    value = item.selection_range if isinstance(item, Symbol) else item.range
    return types.Location(
        uri=path_to_uri(handle.root / item.path), range=lsp_range(value, encoding)
    )


def targets_at(
    services: WorkspaceServices, path: str, position: types.Position, encoding: Encoding
) -> list[Symbol]:
    """The definitions designated by the cursor (empty when it is nowhere useful)."""
    at = cursor(services.codemap, path, position.line, position.character, encoding)
    return [] if at is None else symbols_at(services.codemap, path, *at)


def references_of(
    services: WorkspaceServices, targets: Sequence[Symbol], limit: int | None = None
) -> tuple[list[Reference], int]:
    """Every use of ``targets``: by id when the target is one symbol, else by name."""
    if len(targets) == 1:
        return services.codemap.find_references(symbol_id=targets[0].id, limit=limit)
    if targets:
        return services.codemap.find_references(name=targets[0].name, limit=limit)
    return [], 0


def register(server: CodeKeepServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def definition(
        ls: CodeKeepServer, params: types.DefinitionParams
    ) -> list[types.Location] | None:
        located = ls.locate(params.text_document.uri)
        if located is None:
            return None
        handle, path = located
        encoding = ls.encoding
        targets = await handle.run(lambda s: targets_at(s, path, params.position, encoding))
        return [location(handle, symbol, encoding) for symbol in targets] or None

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    async def references(
        ls: CodeKeepServer, params: types.ReferenceParams
    ) -> list[types.Location] | None:
        located = ls.locate(params.text_document.uri)
        if located is None:
            return None
        handle, path = located
        encoding = ls.encoding

        def find(services: WorkspaceServices) -> list[types.Location]:
            targets = targets_at(services, path, params.position, encoding)
            refs, _total = references_of(services, targets)
            found = [location(handle, ref, encoding) for ref in refs]
            if params.context.include_declaration:
                found = [location(handle, symbol, encoding) for symbol in targets] + found
            return found

        return await handle.run(find) or None

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def document_symbol(
        ls: CodeKeepServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol] | None:
        located = ls.locate(params.text_document.uri)
        if located is None:
            return None
        handle, path = located
        encoding = ls.encoding
        return await handle.run(lambda s: document_symbols(s.codemap.symbols_in([path]), encoding))

    @server.feature(types.WORKSPACE_SYMBOL)
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
            (score, handle, symbol)
            for handle, found in zip(handles, per_folder, strict=True)
            for symbol, score in found
        ]
        scored.sort(key=lambda item: -item[0])
        return [
            types.WorkspaceSymbol(
                name=symbol.name,
                kind=symbol_kind(symbol.kind),
                location=location(handle, symbol, encoding),
                container_name=symbol.container,
            )
            for _score, handle, symbol in scored[:WORKSPACE_SYMBOL_LIMIT]
        ]
