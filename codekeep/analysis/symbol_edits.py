"""Edit one symbol in place: replace its definition, insert beside it, delete it.

An agent that changes one function should not have to send the whole file back. Each
edit here locates the symbol in the index (by id or ``Container.name``), refuses when the
file on disk is no longer what the index located it in (the range would point at other
text), keeps the symbol's indentation, re-parses the result and refuses it when the file
parsed cleanly before and no longer does, then writes atomically and answers with the
unified diff it made.
"""

from __future__ import annotations

import difflib
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from codekeep.analysis.errors import CodeMapError
from codekeep.analysis.parsing import content_hash, parser_for, valid_utf8
from codekeep.analysis.registry import default_registry
from codekeep.common.atomic import write_atomically

if TYPE_CHECKING:
    from codekeep.analysis.codemap import CodeMap
    from codekeep.analysis.model import Symbol

Placement = Literal["before", "after"]
AMBIGUOUS_SHOWN = 10


class SymbolEditError(CodeMapError):
    """An edit refused before anything was written; ``rule`` names why."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


@dataclass(frozen=True, slots=True)
class SymbolEdit:
    """What one edit did: the file, the symbol and the unified diff of the change."""

    path: str
    symbol_id: str
    diff: str

    @property
    def added(self) -> int:
        return sum(1 for ln in self.diff.splitlines() if ln[:1] == "+" and ln[:3] != "+++")

    @property
    def removed(self) -> int:
        return sum(1 for ln in self.diff.splitlines() if ln[:1] == "-" and ln[:3] != "---")


def locate(codemap: CodeMap, symbol: str) -> Symbol:
    """The one symbol ``symbol`` names (an id, ``Container.name`` or a plain name).

    Several matches are refused with their ids: editing the wrong one of two
    ``Config.load`` would be worse than asking."""
    found = codemap.find_symbol(symbol)
    if not found:
        raise SymbolEditError(f"no symbol {symbol!r} in the index; try search_symbols",
                              "not_found")
    if len(found) > 1:
        ids = ", ".join(s.id for s in found[:AMBIGUOUS_SHOWN])
        more = f" and {len(found) - AMBIGUOUS_SHOWN} more" if len(found) > AMBIGUOUS_SHOWN else ""
        raise SymbolEditError(f"{symbol!r} names {len(found)} symbols: {ids}{more}; "
                              "pass one id", "ambiguous")
    return found[0]


class _Source:
    """The located symbol's file as the index saw it, split into lines that keep their ends."""

    def __init__(self, codemap: CodeMap, symbol: Symbol) -> None:
        self.codemap, self.symbol = codemap, symbol
        real = codemap.root / symbol.path
        try:
            self.data = real.read_bytes()
        except OSError as exc:
            raise SymbolEditError(f"cannot read {symbol.path}: {exc.strerror}",
                                  "not_found") from None
        if codemap.indexed_hash(symbol.path) != content_hash(self.data):
            raise SymbolEditError(
                f"{symbol.path} changed since {symbol.id} was located; query it again",
                "stale")
        self.lines = self.data.splitlines(keepends=True)
        self.first, self.last = symbol.range.start.line, symbol.range.end.line
        start_line = self.lines[self.first] if self.first < len(self.lines) else b""
        self.indent = start_line[: len(start_line) - len(start_line.lstrip(b" \t"))]

    def indented(self, text: str) -> list[bytes]:
        """``text`` dedented, then every line at the symbol's own indentation."""
        out = []
        for line in textwrap.dedent(text).splitlines():
            raw = line.encode("utf-8")
            out.append((self.indent + raw if raw.strip() else b"") + self.newline())
        return out

    def newline(self) -> bytes:
        first = self.lines[0] if self.lines else b"\n"
        return b"\r\n" if first.endswith(b"\r\n") else b"\n"

    def write(self, new_lines: list[bytes]) -> SymbolEdit:
        new = b"".join(new_lines)
        refuse_broken_parse(self.symbol.path, self.data, new)
        write_atomically(self.codemap.root / self.symbol.path, new, keep_mode=True)
        self.codemap.refresh_file(self.symbol.path)
        return SymbolEdit(self.symbol.path, self.symbol.id, unified_diff(
            self.symbol.path, self.data, new))


def unified_diff(path: str, old: bytes, new: bytes) -> str:
    old_lines = old.decode("utf-8", errors="replace").splitlines(keepends=True)
    new_lines = new.decode("utf-8", errors="replace").splitlines(keepends=True)
    return "".join(difflib.unified_diff(old_lines, new_lines, f"a/{path}", f"b/{path}", n=2))


def refuse_broken_parse(path: str, old: bytes, new: bytes) -> None:
    """A file that parsed without errors must still parse without errors."""
    spec = default_registry().for_path(path)
    if spec is None:
        return
    spec = default_registry().refine(spec, path, old)
    parser = parser_for(spec)
    if parser.parse(valid_utf8(old)).root_node.has_error:
        return
    if parser.parse(valid_utf8(new)).root_node.has_error:
        raise SymbolEditError(f"{path} would no longer parse as {spec.name}; nothing written",
                              "syntax")


def replace_symbol_body(codemap: CodeMap, symbol: str, body: str) -> SymbolEdit:
    """Replace the symbol's whole definition (signature, decorators' line on, and body)
    with ``body``, re-indented to where the definition stands."""
    source = _Source(codemap, locate(codemap, symbol))
    start, end = source.symbol.range.start, source.symbol.range.end
    head = source.lines[source.first][: start.byte_col]
    tail_line = source.lines[source.last] if source.last < len(source.lines) else b""
    tail = tail_line[end.byte_col:]
    replacement = source.indented(body)
    if not replacement:
        raise SymbolEditError("the new body is empty; use delete_symbol to remove a symbol",
                              "arguments")
    replacement[0] = head + replacement[0][len(source.indent):]
    if tail.strip():  # code after the definition on its last line stays after it
        replacement[-1] = replacement[-1].rstrip(b"\r\n") + tail
    elif not tail_line.endswith((b"\n", b"\r")):
        replacement[-1] = replacement[-1].rstrip(b"\r\n")
    lines = source.lines[: source.first] + replacement + source.lines[source.last + 1:]
    return source.write(lines)


def insert_beside_symbol(codemap: CodeMap, symbol: str, text: str,
                         placement: Placement) -> SymbolEdit:
    """Insert ``text`` as whole lines just before the symbol's first line or after its
    last, at the symbol's indentation."""
    source = _Source(codemap, locate(codemap, symbol))
    inserted = source.indented(text)
    if not inserted:
        raise SymbolEditError("nothing to insert", "arguments")
    at = source.first if placement == "before" else source.last + 1
    lines = list(source.lines)
    if at >= len(lines) and lines and not lines[-1].endswith((b"\n", b"\r")):
        lines[-1] += source.newline()  # the file's last line gets its end first
    return source.write(lines[:at] + inserted + lines[at:])


def delete_symbol(codemap: CodeMap, symbol: str, *, force: bool = False) -> SymbolEdit:
    """Remove the symbol's lines; refused while resolved uses outside its own body remain
    (they would break), unless ``force``."""
    target = locate(codemap, symbol)
    if not force:
        refs, _total = codemap.find_references(symbol_id=target.id)
        outside = [r for r in refs if r.confidence == "resolved" and not (
            r.path == target.path and target.range.contains(r.range.start.line,
                                                            r.range.start.byte_col))]
        if outside:
            shown = ", ".join(f"{r.path}:{r.range.start.line + 1}" for r in outside[:5])
            raise SymbolEditError(
                f"{target.id} still has {len(outside)} resolved use(s) ({shown}); "
                "change them first or pass force", "in_use")
    source = _Source(codemap, target)
    lines = source.lines[: source.first] + source.lines[source.last + 1:]
    return source.write(lines)
