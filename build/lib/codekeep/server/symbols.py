"""Worker-side helpers shared by the standard features and the custom requests:
what the cursor designates, and symbols in LSP's vocabulary.

They run on a folder's worker thread (they call the code map directly).
"""

from __future__ import annotations

from lsprotocol import types

from codekeep.analysis.codemap import CodeMap
from codekeep.analysis.model import Encoding, Symbol
from codekeep.server.locations import byte_position, lsp_range

SYMBOL_KINDS: dict[str, types.SymbolKind] = {
    "function": types.SymbolKind.Function,
    "method": types.SymbolKind.Method,
    "class": types.SymbolKind.Class,
    "interface": types.SymbolKind.Interface,
    "struct": types.SymbolKind.Struct,
    "enum": types.SymbolKind.Enum,
    "trait": types.SymbolKind.Interface,
    "type": types.SymbolKind.TypeParameter,
    "constant": types.SymbolKind.Constant,
    "variable": types.SymbolKind.Variable,
    "module": types.SymbolKind.Module,
    "namespace": types.SymbolKind.Namespace,
    "macro": types.SymbolKind.Function,
    "field": types.SymbolKind.Field,
}


def symbol_kind(kind: str) -> types.SymbolKind:
    return SYMBOL_KINDS.get(kind, types.SymbolKind.Variable)


def cursor(
    codemap: CodeMap, path: str, line: int, character: int, encoding: Encoding
) -> tuple[int, int] | None:
    """(line, byte col) of an LSP position in the document; None if it has no such line."""
    text = codemap.document_text(path)
    if text is None:
        return None
    return byte_position(text, line, character, encoding)


def symbols_at(codemap: CodeMap, path: str, line: int, byte_col: int) -> list[Symbol]:
    """The definition(s) the cursor designates.

    On a reference: its resolved target, or every symbol of that name when the
    reference is only matched by name. On a definition's name: that definition.
    """
    reference = codemap.reference_at(path, line, byte_col)
    if reference is not None:
        target = codemap.symbol(reference.symbol_id) if reference.symbol_id else None
        return [target] if target is not None else codemap.find_symbol(reference.name)
    symbol = codemap.symbol_at(path, line, byte_col)
    if symbol is not None and symbol.selection_range.contains(line, byte_col):
        return [symbol]
    return []


def document_symbols(symbols: list[Symbol], encoding: Encoding) -> list[types.DocumentSymbol]:
    """Source-ordered symbols of one file as a tree (containment of ranges)."""
    roots: list[types.DocumentSymbol] = []
    stack: list[tuple[Symbol, list[types.DocumentSymbol]]] = []
    for symbol in symbols:
        children: list[types.DocumentSymbol] = []
        node = types.DocumentSymbol(
            name=symbol.name,
            kind=symbol_kind(symbol.kind),
            range=lsp_range(symbol.range, encoding),
            selection_range=lsp_range(symbol.selection_range, encoding),
            detail=symbol.signature,
            children=children,
        )
        while stack and not _encloses(stack[-1][0], symbol):
            stack.pop()
        (stack[-1][1] if stack else roots).append(node)
        stack.append((symbol, children))
    return roots


def _encloses(outer: Symbol, inner: Symbol) -> bool:
    start, end = inner.range.start, inner.range.end
    return outer.range.contains(start.line, start.byte_col) and outer.range.contains(
        end.line, end.byte_col
    )
