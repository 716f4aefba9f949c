"""Write one file's facts, touching only the rows that changed.

A keystroke usually changes nothing the index stores (an edit inside a body) or a
handful of rows (the references on the edited line); comparing old and new facts in
memory and writing just the difference is what keeps a live update near a millisecond.
References are stored per (name, file), so only the names whose uses moved are rewritten.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from codekeep.analysis.encoding import encode_spans
from codekeep.analysis.facts import FileFacts, RefFact, Span, SymbolFact
from codekeep.analysis.model import Position, Range, Symbol
from codekeep.analysis.store import IndexStore
from codekeep.common.symbol_id import SymbolId

# Above this many symbols to delete, rewriting the file's symbols beats targeted deletes.
ROW_DIFF_LIMIT = 48


def _range(span: Span) -> Range:
    return Range(Position(span.line, span.col, span.ucol),
                 Position(span.end_line, span.end_col, span.end_ucol))


def _by_name(refs: Iterable[RefFact]) -> dict[str, list[RefFact]]:
    groups: dict[str, list[RefFact]] = {}
    for ref in refs:
        groups.setdefault(ref.name, []).append(ref)
    return groups


def differing(
    old: Sequence[SymbolFact], new: Sequence[SymbolFact]
) -> tuple[Sequence[SymbolFact], Sequence[SymbolFact]]:
    """The parts of two symbol lists between their common start and common end.

    A keystroke changes a few symbols in the middle and leaves the rest as the very
    same objects, so trimming by identity first spares hashing every symbol of the file.
    Symbols only in one middle are the ones added or removed (ids are unique in a file).
    """
    limit = min(len(old), len(new))
    head = 0
    while head < limit and old[head] is new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] is new[-1 - tail]:
        tail += 1
    return old[head:len(old) - tail], new[head:len(new) - tail]


class FactWriter:
    def __init__(self, store: IndexStore):
        self._store = store

    @staticmethod
    def to_symbol(path: str, language: str, fact: SymbolFact) -> Symbol:
        return Symbol(
            id=str(SymbolId(path, fact.qual)), name=fact.name, kind=fact.kind, path=path,
            language=language, container=fact.container, signature=fact.signature,
            range=_range(fact.span), selection_range=_range(fact.name_span),
        )

    def write(self, file_id: int, before: FileFacts, after: FileFacts) -> None:
        """Make the stored rows of ``file_id`` equal ``after`` (``before`` = what is stored)."""
        store = self._store
        if not before.symbols and not before.refs and not before.imports:
            store.write_facts(file_id, after, fresh=True)
            return
        if before.symbols != after.symbols:
            old_part, new_part = differing(before.symbols, after.symbols)
            old_symbols = set(old_part)
            new_symbols = set(new_part)
            gone = old_symbols - new_symbols
            if len(gone) > ROW_DIFF_LIMIT:
                store.delete_all_symbols(file_id)
                store.insert_symbols(file_id, after.symbols)
            else:
                store.delete_symbols(file_id, gone)
                store.insert_symbols(file_id, [s for s in new_part if s not in old_symbols])
        if before.refs != after.refs:
            old_groups, new_groups = _by_name(before.refs), _by_name(after.refs)
            store.delete_ref_groups(file_id, old_groups.keys() - new_groups.keys())
            store.put_ref_groups(file_id, {
                name: encode_spans(refs) for name, refs in new_groups.items()
                if old_groups.get(name) != refs
            })
            if old_groups.keys() != new_groups.keys():
                store.set_ref_names(file_id, new_groups)
        if before.imports != after.imports:
            store.put_imports(file_id, after.imports)
