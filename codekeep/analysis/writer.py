"""Write one file's facts, touching only the rows that changed.

A keystroke usually changes nothing the index stores (an edit inside a body) or a
handful of rows (the references on the edited line); comparing old and new facts in
memory and writing just the difference is what keeps a live update near a millisecond.
References are stored per (name, file), so only the names whose uses moved are rewritten.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

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


F = TypeVar("F")


def differing(old: Sequence[F], new: Sequence[F]) -> tuple[Sequence[F], Sequence[F]]:
    """The parts of two fact lists between their common start and common end.

    A keystroke changes a few facts in the middle and leaves the rest as the very
    same objects, so trimming by identity first spares hashing every fact of the file.
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
            # Only the names of uses between the common start and end can have changed:
            # grouping just those spares a dictionary of every use of the file per edit.
            old_uses, new_uses = differing(before.refs, after.refs)
            names = {r.name for r in old_uses} | {r.name for r in new_uses}
            old_groups = _by_name(r for r in before.refs if r.name in names)
            new_groups = _by_name(r for r in after.refs if r.name in names)
            store.delete_ref_groups(file_id, old_groups.keys() - new_groups.keys())
            store.put_ref_groups(file_id, {
                name: encode_spans(refs) for name, refs in new_groups.items()
                if old_groups.get(name) != refs
            })
            if old_groups.keys() != new_groups.keys():
                store.set_ref_names(file_id, {r.name for r in after.refs})
        if before.imports != after.imports:
            store.put_imports(file_id, after.imports)
