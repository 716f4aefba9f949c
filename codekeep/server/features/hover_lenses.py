"""Hover (signature, container, reference count, plus contributed paragraphs) and
code lenses (reference count per definition, plus contributed file-level lines).

Other areas add to both through ``server.contributions`` (see
:mod:`codekeep.server.extensions`) instead of editing this module.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from lsprotocol import types

from codekeep.analysis.model import Symbol
from codekeep.server.app import CodeKeepServer, DocumentRef
from codekeep.server.extensions import Contributions, LensLine
from codekeep.server.features.navigation import targets_at
from codekeep.server.locations import lsp_range
from codekeep.server.params import InvalidParams
from codekeep.services import WorkspaceServices

logger = logging.getLogger(__name__)

FIND_REFERENCES_COMMAND = "codekeep.findReferences"
EAGER_LENS_SYMBOLS = 100


def reference_count(services: WorkspaceServices, symbol: Symbol) -> int:
    # The total counts every use; a limit of 1 decodes only the first file's uses.
    return services.codemap.find_references(symbol_id=symbol.id, limit=1)[1]


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
    """File-level lenses plus one lens per definition.

    Counting references costs a query per symbol (~0.3 ms). Up to
    ``EAGER_LENS_SYMBOLS`` definitions are counted right away; beyond that the lenses
    come back unresolved and clients resolve only those they show
    (``codeLens/resolve``), so a big file does not hold up the keystrokes queued
    behind this request.
    """
    top = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
    )
    lenses = []
    for file_contributor in contributions.file_lens:
        try:
            line = file_contributor(services, document.path)
        except Exception:
            logger.exception("file lens contributor %r failed", file_contributor)
            continue
        if line is not None:
            lenses.append(lens(top, line))
    symbols = services.codemap.symbols_in([document.path])
    for symbol in symbols:
        unresolved = types.CodeLens(
            range=lsp_range(symbol.selection_range, document.encoding),
            data={"uri": document.uri, "symbolId": symbol.id},
        )
        eager = len(symbols) <= EAGER_LENS_SYMBOLS
        lenses.append(
            resolve_lens(services, unresolved.range, symbol.id, contributions)
            if eager
            else unresolved
        )
    return lenses


def resolve_lens(
    services: WorkspaceServices, where: types.Range, symbol_id: str, contributions: Contributions
) -> types.CodeLens:
    """The reference count of one definition, plus contributed text (" · 2 memories")."""
    symbol = services.codemap.symbol(symbol_id)
    if symbol is None:  # edited away since the lenses were listed
        return lens(where, LensLine("symbol changed"))
    title = plural(reference_count(services, symbol), "reference")
    for contributor in contributions.symbol_lens:
        try:
            title += contributor(services, [symbol]).get(symbol.id, "")
        except Exception:
            logger.exception("code lens contributor %r failed", contributor)
    return lens(where, LensLine(title, FIND_REFERENCES_COMMAND, [{"symbolId": symbol.id}]))


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
    kind: types.MarkupKind,
) -> types.Hover | None:
    targets = targets_at(services, document, position)
    if not targets:
        return None
    text = "\n\n---\n\n".join(
        hover_markdown(services, symbol, contributions) for symbol in targets[:3]
    )
    if kind == types.MarkupKind.PlainText:
        text = plain_text(text)
    return types.Hover(contents=types.MarkupContent(kind=kind, value=text))


def hover_kind(capabilities: types.ClientCapabilities) -> types.MarkupKind:
    """The client's first choice of ``hover.contentFormat`` (Markdown when it names
    none): a client asking for plain text showed raw fences and backticks."""
    hover = capabilities.text_document.hover if capabilities.text_document else None
    formats = (hover.content_format if hover else None) or [types.MarkupKind.Markdown]
    return types.MarkupKind(formats[0])


def plain_text(markdown: str) -> str:
    """The hover's Markdown as plain text: no code fences, backticks or bold marks."""
    lines = [line for line in markdown.splitlines() if not line.startswith("```")]
    return "\n".join(lines).replace("`", "").replace("**", "")


async def hover(ls: CodeKeepServer, params: types.HoverParams) -> types.Hover | None:
    return await ls.on_document(
        params.text_document.uri,
        lambda s, document: describe(s, document, params.position, ls.contributions,
                                     hover_kind(ls.client_capabilities)),
    )


async def code_lens(
    ls: CodeKeepServer, params: types.CodeLensParams
) -> list[types.CodeLens] | None:
    return await ls.on_document(
        params.text_document.uri,
        lambda s, document: code_lenses(s, document, ls.contributions),
    )


async def code_lens_resolve(ls: CodeKeepServer, params: types.CodeLens) -> types.CodeLens:
    data = params.data if isinstance(params.data, dict) else {}
    uri, symbol_id = data.get("uri"), data.get("symbolId")
    if not isinstance(uri, str) or not isinstance(symbol_id, str):
        raise InvalidParams("codeLens/resolve needs the lens as codeLens returned it")
    resolved = await ls.on_document(
        uri, lambda s, _document: resolve_lens(s, params.range, symbol_id, ls.contributions)
    )
    return resolved or lens(params.range, LensLine("not indexed"))


FEATURES: tuple[tuple[str, Callable[..., Any]], ...] = (
    (types.TEXT_DOCUMENT_HOVER, hover),
    (types.TEXT_DOCUMENT_CODE_LENS, code_lens),
    (types.CODE_LENS_RESOLVE, code_lens_resolve),
)
# Lenses come back unresolved past EAGER_LENS_SYMBOLS definitions: say we resolve them.
OPTIONS = {types.TEXT_DOCUMENT_CODE_LENS: types.CodeLensOptions(resolve_provider=True)}


def register(server: CodeKeepServer) -> None:
    for method, handler in FEATURES:
        server.feature(method, OPTIONS.get(method))(handler)
