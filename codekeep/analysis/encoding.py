"""How facts become compact row values, and back.

Kept apart from the store because worker processes use it too: a worker sends the
parent rows ready to insert (plain tuples and short strings pickle ~15x faster than
named tuples), so the parent of a cold index does little more than ``executemany``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from codekeep.analysis.facts import FileFacts, ImportFact, RefFact, Span, SymbolFact
from codekeep.common.symbol_id import numbered, qualify, split_number

# Reference kinds are stored as one letter inside ``spans``; unknown kinds verbatim.
_KIND_CODES = {
    "type": "t", "class": "k", "import": "i", "implementation": "m",
    "new": "n", "macro": "x", "field": "f", "module": "u", "namespace": "s", "constant": "o",
    "variable": "v", "interface": "r", "trait": "a", "function": "F", "method": "M",
    "value": "w", "doc": "d",
}
_KIND_NAMES = {code: kind for kind, code in _KIND_CODES.items()}
# Uses that count only where scope or imports lead to the definition (receivers.py).
_SCOPED_ITEM = re.compile(r"/[wd](?=[;^|]|$)")


def has_scoped_uses(spans: str) -> bool:
    """Whether encoded uses hold a ``value`` or ``doc`` use, without decoding them."""
    return _SCOPED_ITEM.search(spans) is not None
# Symbol kinds are stored as small integers (unknown kinds verbatim as text).
SYMBOL_KINDS = (
    "function", "method", "class", "interface", "struct", "enum", "trait", "type", "constant",
    "variable", "module", "namespace", "macro", "field",
)
_SYMBOL_KIND_CODES = {kind: code for code, kind in enumerate(SYMBOL_KINDS)}
# When several definitions share a name, kinds that say more about structure come first.
KIND_RANK = {
    "class": 0, "interface": 0, "struct": 0, "trait": 0, "enum": 1, "type": 1,
    "function": 2, "method": 2, "constant": 3, "module": 3, "namespace": 3, "macro": 3,
    "field": 4, "variable": 4,
}


def kind_rank_sql(column: str) -> str:
    """A SQL expression giving the stored kind code in ``column`` its KIND_RANK."""
    cases = " ".join(f"WHEN {_SYMBOL_KIND_CODES[kind]} THEN {rank}"
                     for kind, rank in KIND_RANK.items())
    return f"CASE {column} {cases} ELSE 5 END"


def kind_rank_groups() -> list[tuple[int, ...]]:
    """Stored kind codes grouped by KIND_RANK, best rank first (unknown kinds, stored as
    text, rank after all of them)."""
    ranks = sorted(set(KIND_RANK.values()))
    return [tuple(_SYMBOL_KIND_CODES[k] for k, r in KIND_RANK.items() if r == rank)
            for rank in ranks]


def kind_code(kind: str) -> int | str:
    return _SYMBOL_KIND_CODES.get(kind, kind)


def kind_name(code: int | str) -> str:
    return SYMBOL_KINDS[code] if isinstance(code, int) else code


def or_null(value: int, same: int) -> int | None:
    return None if value == same else value


def nn(value: int | None, default: int) -> int:
    return default if value is None else value


# A signature always spells the symbol's name; storing a one-byte stand-in for it instead
# saves ~15 bytes per symbol (an eighth of the index).
NAME_MARK = "\x00"


def pack_signature(signature: str, name: str) -> str:
    if NAME_MARK in signature or name not in signature:
        return signature
    return signature.replace(name, NAME_MARK, 1)


def unpack_signature(stored: str, name: str) -> str:
    return stored.replace(NAME_MARK, name, 1)


def symbol_row(s: SymbolFact) -> tuple:
    """Column values of ``symbols`` after ``file_id`` (see the store's schema)."""
    span, name = s.span, s.name_span
    return (
        s.name, s.container, split_number(s.qual)[1], kind_code(s.kind),
        pack_signature(s.signature, s.name),
        span.line, span.col, or_null(span.ucol, span.col),
        span.end_line, span.end_col, or_null(span.end_ucol, span.end_col),
        or_null(name.line, span.line), name.col, or_null(name.ucol, name.col),
        name.end_col, or_null(name.end_ucol, name.end_col),
    )


def symbol_fact(row: Sequence) -> SymbolFact:
    (name, container, dup, kind, signature, line, col, ucol, end_line, end_col, end_ucol,
     name_line, name_col, name_ucol, name_end_col, name_end_ucol) = row
    name_line = nn(name_line, line)
    return SymbolFact(
        numbered(qualify(name, container), dup), name, kind_name(kind), container,
        unpack_signature(signature, name),
        Span(line, col, nn(ucol, col), end_line, end_col, nn(end_ucol, end_col)),
        Span(name_line, name_col, nn(name_ucol, name_col), name_line, name_end_col,
             nn(name_end_ucol, name_end_col)),
    )


def encode_spans(refs: Iterable[RefFact]) -> str:
    """Uses of one name in one file, as short text: ``;``-separated items.

    An item is ``line_delta,col,length`` (line relative to the previous item), then
    ``/kind`` unless the kind is ``call``, then ``^receiver`` for a member use (the
    receiver is an identifier or empty), then ``|ucol,ulength[,end_line]`` only when
    UTF-16 columns differ or the use spans lines. Numbers are written in base 36.
    """
    parts = []
    previous = 0
    small, limit = _SMALL, len(_SMALL)  # the common case, inlined: one item per use
    for _name, kind, span, receiver in refs:
        line, col, ucol, end_line, end_col, end_ucol = span
        delta, length = line - previous, end_col - col
        text = (f"{small[delta] if delta < limit else _b36(delta)},"
                f"{small[col] if col < limit else _b36(col)},"
                f"{small[length] if length < limit else _b36(length)}")
        previous = line
        if kind != "call":
            text += "/" + _KIND_CODES.get(kind, kind)
        if receiver is not None:
            text += "^" + receiver
        if end_line != line:
            text += f"|{_b36(ucol)},{_b36(end_ucol - ucol)},{_b36(end_line)}"
        elif ucol != col or end_ucol != end_col:
            text += f"|{_b36(ucol)},{_b36(end_ucol - ucol)}"
        parts.append(text)
    return ";".join(parts)


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_SMALL = (*_DIGITS, *(a + b for a in _DIGITS[1:] for b in _DIGITS))  # 0 .. 1295


def _b36(number: int) -> str:
    if number < len(_SMALL):
        return _SMALL[number]
    text = ""
    while number:
        number, digit = divmod(number, 36)
        text = _DIGITS[digit] + text
    return text


def decode_spans(name: str, spans: str) -> list[RefFact]:
    refs = []
    line = 0
    for item in spans.split(";"):
        item, _bar, wide = item.partition("|")
        item, member, receiver = item.partition("^")
        item, _slash, code = item.partition("/")
        delta, col_text, length = item.split(",")
        line += int(delta, 36)
        col = int(col_text, 36)
        end_col = col + int(length, 36)
        kind = _KIND_NAMES.get(code, code) if code else "call"
        ucol, end_ucol, end_line = col, end_col, line
        if wide:
            fields = wide.split(",")
            ucol = int(fields[0], 36)
            end_ucol = ucol + int(fields[1], 36)
            if len(fields) > 2:
                end_line = int(fields[2], 36)
        refs.append(RefFact(name, kind, Span(line, col, ucol, end_line, end_col, end_ucol),
                            receiver if member else None))
    return refs


def group_refs(refs: Iterable[RefFact]) -> dict[str, str]:
    """One encoded row per referenced name: the unit the store reads and rewrites."""
    by_name: dict[str, list[RefFact]] = {}
    for ref in refs:
        by_name.setdefault(ref.name, []).append(ref)
    return {name: encode_spans(group) for name, group in by_name.items()}


def encode_imports(imports: Sequence[ImportFact]) -> str:
    """``line module [name [alias]]`` per import (tab-separated), one per line.

    Line and module are left empty when they repeat the previous import's
    (``from m import a, b, c`` is three facts of one statement).
    """
    lines = []
    previous: tuple[int, str] | None = None
    for imp in imports:
        same = previous == (imp.line, imp.module) and imp.module != ""
        fields = ["", ""] if same else [str(imp.line), imp.module]
        previous = (imp.line, imp.module)
        if imp.name is not None or imp.alias is not None:
            fields.append(imp.name if imp.name is not None else "\0")
        if imp.alias is not None:
            fields.append(imp.alias)
        lines.append("\t".join(f.replace("\t", " ").replace("\n", " ") for f in fields))
    return "\n".join(lines)


def decode_imports(text: str) -> list[ImportFact]:
    found: list[ImportFact] = []
    for line in text.split("\n"):
        fields = line.split("\t")
        name = fields[2] if len(fields) > 2 and fields[2] != "\0" else None
        alias = fields[3] if len(fields) > 3 else None
        if fields[0] == "" and found:
            found.append(ImportFact(found[-1].module, name, alias, found[-1].line))
        else:
            found.append(ImportFact(fields[1], name, alias, int(fields[0])))
    return found


class EncodedFacts(NamedTuple):
    symbols: list[tuple]  # symbol_row() values
    refs: dict[str, str]  # name -> encoded spans
    imports: str


def encode_facts(facts: FileFacts) -> EncodedFacts:
    return EncodedFacts([symbol_row(s) for s in facts.symbols], group_refs(facts.refs),
                        encode_imports(facts.imports))


def decode_facts(encoded: EncodedFacts) -> FileFacts:
    refs = [ref for name, spans in encoded.refs.items() for ref in decode_spans(name, spans)]
    refs.sort(key=lambda r: (r.span.line, r.span.col))
    imports = decode_imports(encoded.imports) if encoded.imports else []
    return FileFacts(tuple(symbol_fact(row) for row in encoded.symbols), tuple(refs),
                     tuple(imports))
