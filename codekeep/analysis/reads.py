"""The cheaper read the code map offers instead of a whole file.

A file the agent reads again and again usually means the map missed the symbol it
needed: the ledger's re-read insight names that symbol and what reading only it costs.
The symbol chosen is the file's most used function or method (references from the rest
of the workspace), its cost the tokens of its definition as the model would read it.
"""

from __future__ import annotations

from dataclasses import dataclass

from codekeep.analysis.codemap import CodeMap
from codekeep.analysis.errors import CodeMapError
from codekeep.analysis.model import Symbol
from codekeep.common.tokens import token_len

_CALLABLE = frozenset({"function", "method"})


@dataclass(frozen=True, slots=True)
class SymbolRead:
    """``find_symbol <query>`` plus a read of its ``lines`` lines costs about ``tokens``."""

    query: str
    path: str
    lines: int
    tokens: int

    def to_json(self) -> dict[str, object]:
        return {"tool": "find_symbol", "query": self.query, "path": self.path,
                "lines": self.lines, "tokens": self.tokens}


def symbol_read(codemap: CodeMap, path: str) -> SymbolRead | None:
    """The most used callable of ``path`` and the cost of reading just it; None when the
    file is not indexed or defines no function."""
    try:
        symbols = [s for s in codemap.symbols_in([path]) if s.kind in _CALLABLE]
    except CodeMapError:
        return None
    text = codemap.document_text(path)
    if not symbols or text is None:
        return None
    lines = text.decode("utf-8", errors="replace").splitlines()

    def used(symbol: Symbol) -> int:
        return codemap.find_references(symbol_id=symbol.id, limit=1)[1]

    best = max(symbols, key=lambda s: (used(s), -(s.range.end.line - s.range.start.line)))
    body = lines[best.range.start.line: best.range.end.line + 1]
    query = f"{best.container}.{best.name}" if best.container else best.name
    first = best.range.start.line + 1
    shown = "\n".join(f"{first + i:>5}  {line}" for i, line in enumerate(body))
    return SymbolRead(query, path, len(body), token_len(shown) + token_len(best.signature))
