"""Hover (signature, container, reference count, plus contributed paragraphs) and
code lenses (reference count per definition, plus contributed file-level lines).

Other areas add to both through ``server.contributions`` (see
:mod:`codekeep.server.extensions`) instead of editing this module.
"""

from __future__ import annotations

import logging

from lsprotocol import types

from codekeep.analysis.model import Symbol
from codekeep.server.app import CodeKeepServer, DocumentRef
from codekeep.server.extensions import Contributions, LensLine
from codekeep.server.features.navigation import targets_at
from codekeep.server.locations import lsp_range
from codekeep.services import WorkspaceServices

logger = logging.getLogger(__name__)

FIND_REFERENCES_COMMAND = "codekeep.findReferences"


def reference_count(services: WorkspaceServices, symbol: Symbol) -> int:
    return services.codemap.find_references(symbol_id=symbol.id, limit=0)[1]


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def hover_markdown(
    services: WorkspaceServices, symbol: Symbol, contributions: Contributions
) -> str:
    facts = [f"{symbol.kind}"]
    if symbol.container:
        facts.append(f"in `{symbol.container}`")
    facts.append(plural(reference_count(services, symbol), "reference"))
    parts = [f"```{symbol.language}\n{symbol.signature}\n```", " · ".join(facts)]
    for contributor in contributions.hover:
        try:
            extra = contributor(services, symbol)
        except Exception:  # one area's bug must not take the hover away
            logger.exception("hover contributor %r failed", contributor)
            continue
        if extra:
            parts.append(extra)
    return "\n\n".join(parts)


def code_lenses(
    services: WorkspaceServices, document: DocumentRef, contributions: Contributions
) -> list[types.CodeLens]:
    path, encoding = document.path, document.encoding
    symbols = services.codemap.symbols_in([path])
    extras: dict[str, str] = {}
    for symbol_contributor in contributions.symbol_lens:
        try:
            for symbol_id, text in symbol_contributor(services, symbols).items():
                extras[symbol_id] = extras.get(symbol_id, "") + text
        except Exception:
            logger.exception("code lens contributor %r failed", symbol_contributor)
    top = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
    )
    lenses = []
    for file_contributor in contributions.file_lens:
        try:
            line = file_contributor(services, path)
        except Exception:
            logger.exception("file lens contributor %r failed", file_contributor)
            continue
        if line is not None:
            lenses.append(lens(top, line))
    for symbol in symbols:
        title = plural(reference_count(services, symbol), "reference") + extras.get(symbol.id, "")
        lenses.append(
            lens(
                lsp_range(symbol.selection_range, encoding),
                LensLine(title, FIND_REFERENCES_COMMAND, [{"symbolId": symbol.id}]),
            )
        )
    return lenses


def lens(where: types.Range, line: LensLine) -> types.CodeLens:
    return types.CodeLens(
        range=where,
        command=types.Command(
            title=line.title, command=line.command, arguments=list(line.arguments) or None
        ),
    )


def describe(
    services: WorkspaceServices,
    document: DocumentRef,
    position: types.Position,
    contributions: Contributions,
) -> types.Hover | None:
    targets = targets_at(services, document, position)
    if not targets:
        return None
    text = "\n\n---\n\n".join(
        hover_markdown(services, symbol, contributions) for symbol in targets[:3]
    )
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))


def register(server: CodeKeepServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: CodeKeepServer, params: types.HoverParams) -> types.Hover | None:
        return await ls.on_document(
            params.text_document.uri,
            lambda s, document: describe(s, document, params.position, ls.contributions),
        )

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    async def code_lens(
        ls: CodeKeepServer, params: types.CodeLensParams
    ) -> list[types.CodeLens] | None:
        return await ls.on_document(
            params.text_document.uri,
            lambda s, document: code_lenses(s, document, ls.contributions),
        )
