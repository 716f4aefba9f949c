"""Hover (signature, container, reference count, plus contributed paragraphs) and
code lenses (reference count per definition, plus contributed file-level lines).

Other areas add to both through ``server.contributions`` (see
:mod:`codekeep.server.extensions`) instead of editing this module.
"""

from __future__ import annotations

import logging

from lsprotocol import types

from codekeep.analysis.model import Encoding, Symbol
from codekeep.server.app import CodeKeepServer
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
    services: WorkspaceServices, path: str, encoding: Encoding, contributions: Contributions
) -> list[types.CodeLens]:
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


def register(server: CodeKeepServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: CodeKeepServer, params: types.HoverParams) -> types.Hover | None:
        located = ls.locate(params.text_document.uri)
        if located is None:
            return None
        handle, path = located
        encoding = ls.encoding

        def describe(services: WorkspaceServices) -> str | None:
            targets = targets_at(services, path, params.position, encoding)
            if not targets:
                return None
            return "\n\n---\n\n".join(
                hover_markdown(services, symbol, ls.contributions) for symbol in targets[:3]
            )

        text = await handle.run(describe)
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    async def code_lens(
        ls: CodeKeepServer, params: types.CodeLensParams
    ) -> list[types.CodeLens] | None:
        located = ls.locate(params.text_document.uri)
        if located is None:
            return None
        handle, path = located
        encoding = ls.encoding
        return await handle.run(lambda s: code_lenses(s, path, encoding, ls.contributions))
