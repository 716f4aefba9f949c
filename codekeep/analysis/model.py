"""The values the code map hands out: symbols, references, ranges and change sets.

Every position keeps both the UTF-8 byte column (what tree-sitter and the store speak)
and the UTF-16 column (LSP's default), so a caller can answer in either encoding
without re-reading the file.

The immutable values are named tuples, not frozen dataclasses: a CLI query imports
this module for every call (making ten frozen dataclasses cost it a noticeable share of
its start-up) and builds thousands of them (a tuple is made in C, a frozen dataclass
field by field through ``object.__setattr__``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from codekeep.common.uris import path_to_uri

if TYPE_CHECKING:
    from codekeep.analysis.exclusions import Coverage

Confidence = Literal["resolved", "name"]
Encoding = Literal["utf-8", "utf-16"]


class Position(NamedTuple):
    line: int
    byte_col: int
    utf16_col: int

    def to_json(self, encoding: Encoding = "utf-16") -> dict[str, int]:
        column = self.utf16_col if encoding == "utf-16" else self.byte_col
        return {"line": self.line, "character": column}


class Range(NamedTuple):
    start: Position
    end: Position

    def to_json(self, encoding: Encoding = "utf-16") -> dict[str, Any]:
        return {"start": self.start.to_json(encoding), "end": self.end.to_json(encoding)}

    def contains(self, line: int, byte_col: int) -> bool:
        after_start = (line, byte_col) >= (self.start.line, self.start.byte_col)
        return after_start and (line, byte_col) <= (self.end.line, self.end.byte_col)


def _location(root: Path, path: str) -> dict[str, str]:
    return {"path": path, "uri": path_to_uri(root / path)}


class Symbol(NamedTuple):
    id: str
    name: str
    kind: str
    path: str
    language: str
    container: str | None
    signature: str
    range: Range
    selection_range: Range

    def to_json(self, root: Path, encoding: Encoding = "utf-16") -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            **_location(root, self.path),
            "range": self.range.to_json(encoding),
            "selectionRange": self.selection_range.to_json(encoding),
            "signature": self.signature,
            "container": self.container,
            "language": self.language,
        }


class Reference(NamedTuple):
    path: str
    range: Range
    symbol_id: str | None
    name: str
    kind: str
    confidence: Confidence

    def to_json(self, root: Path, encoding: Encoding = "utf-16") -> dict[str, Any]:
        return {
            **_location(root, self.path),
            "range": self.range.to_json(encoding),
            "symbolId": self.symbol_id,
            "confidence": self.confidence,
            "name": self.name,
            "kind": self.kind,
        }


@dataclass(slots=True)
class ChangeSet:
    """What one update did to the index; memory uses it to keep its links to code current."""

    added: list[Symbol] = field(default_factory=list)
    removed: list[Symbol] = field(default_factory=list)
    renamed_files: list[tuple[str, str]] = field(default_factory=list)
    deleted_files: list[str] = field(default_factory=list)
    symbol_renames: dict[str, str] = field(default_factory=dict)
    # Files whose stored rows changed (positions included): views of them are stale.
    changed_files: list[str] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not (
            self.added or self.removed or self.renamed_files or self.deleted_files
            or self.symbol_renames or self.changed_files
        )


class IndexStats(NamedTuple):
    files: int
    symbols: int
    references: int
    languages: dict[str, int]
    seconds: float
    parsed: int
    unchanged: int
    removed: int
    skipped: dict[str, int]
    coverage: Coverage | None = None  # what kept source files out (index(explain=True))

    def to_json(self) -> dict[str, Any]:
        return {
            **({"coverage": self.coverage.to_json()} if self.coverage is not None else {}),
            "files": self.files,
            "symbols": self.symbols,
            "references": self.references,
            "languages": self.languages,
            "seconds": round(self.seconds, 3),
            "parsed": self.parsed,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "skipped": self.skipped,
        }


class IndexStatus(NamedTuple):
    files: int
    symbols: int
    references: int
    languages: dict[str, int]
    pending: int
    ready: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "symbols": self.symbols,
            "references": self.references,
            "languages": self.languages,
            "pending": self.pending,
            "ready": self.ready,
        }


class CallEdge(NamedTuple):
    """One edge of the call graph: the symbol at the other end and where the calls are
    (``sites``: the uses, in the caller's file)."""

    symbol: Symbol
    sites: list[Range]


class Related(NamedTuple):
    """The neighbourhood of one line: its enclosing symbol and the symbols around it."""

    symbol: Symbol | None
    calls: list[Symbol]
    called_by: list[Symbol]
    related: list[Symbol]

    def to_json(self, root: Path, encoding: Encoding = "utf-16") -> dict[str, Any]:
        return {
            "symbol": self.symbol.to_json(root, encoding) if self.symbol else None,
            "calls": [s.to_json(root, encoding) for s in self.calls],
            "calledBy": [s.to_json(root, encoding) for s in self.called_by],
            "related": [s.to_json(root, encoding) for s in self.related],
        }


class RepoMap(NamedTuple):
    text: str
    tokens: int
    files: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "tokens": self.tokens, "files": self.files}
