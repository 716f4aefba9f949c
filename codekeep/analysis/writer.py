"""Write one file's facts, touching only the rows that changed.

A keystroke usually changes nothing the index stores (an edit inside a body) or a
handful of rows (the references on the edited line); comparing old and new facts in
memory and writing just the difference is what keeps a live update near a millisecond.
When most rows changed (a line inserted near the top shifts everything below) a
delete-and-insert of the whole file is cheaper than row-by-row deletes.
"""

from __future__ import annotations

from codekeep.analysis.extract import FileFacts, Span, SymbolFact
from codekeep.analysis.model import Position, Range, Symbol
from codekeep.analysis.store import IndexStore

# Above this many rows to delete, rewriting the file's rows is faster than targeted deletes.
ROW_DIFF_LIMIT = 48


def _range(span: Span) -> Range:
    return Range(Position(span.line, span.col, span.ucol),
                 Position(span.end_line, span.end_col, span.end_ucol))


class FactWriter:
    def __init__(self, store: IndexStore):
        self._store = store

    @staticmethod
    def to_symbol(path: str, language: str, fact: SymbolFact) -> Symbol:
        return Symbol(
            id=f"{path}::{fact.qual}", name=fact.name, kind=fact.kind, path=path,
            language=language, container=fact.container, signature=fact.signature,
            range=_range(fact.span), selection_range=_range(fact.name_span),
        )

    def write(self, file_id: int, before: FileFacts, after: FileFacts) -> None:
        """Make the stored rows of ``file_id`` equal ``after`` (``before`` = what is stored)."""
        store = self._store
        if not before.symbols and not before.refs and not before.imports:
            store.write_facts(file_id, after)
            return
        old_symbols, new_symbols = set(before.symbols), set(after.symbols)
        old_refs, new_refs = set(before.refs), set(after.refs)
        gone_symbols = old_symbols - new_symbols
        gone_refs = old_refs - new_refs
        if len(gone_symbols) + len(gone_refs) > ROW_DIFF_LIMIT:
            store.write_facts(file_id, after)
            return
        if gone_symbols:
            store.delete_symbols(file_id, (s.qual for s in gone_symbols))
        if gone_refs:
            store.delete_refs(file_id, gone_refs)
        added_symbols = [s for s in after.symbols if s not in old_symbols]
        if added_symbols:
            store.insert_symbols(file_id, added_symbols)
        added_refs = [r for r in after.refs if r not in old_refs]
        if added_refs:
            store.insert_refs(file_id, added_refs)
        if before.imports != after.imports:
            store.replace_imports(file_id, after.imports)
