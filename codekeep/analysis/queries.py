"""Read-side questions over the index: definitions, uses, neighbourhoods.

All functions take the store and the import graph explicitly; :class:`CodeMap` only
adds locking and the public signatures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from codekeep.analysis.imports import ImportGraph
from codekeep.analysis.model import Reference, Related, Symbol
from codekeep.analysis.store import IndexStore, RefRow

RELATED_LIMIT = 25
# Uses of these kinds are "what it calls"; the rest (types, classes...) are "related".
CALL_KINDS = frozenset({"call", "macro", "new"})
# Kinds that say more about code structure come first when names tie.
KIND_ORDER = {
    "class": 0, "interface": 0, "struct": 0, "trait": 0, "enum": 1, "type": 1,
    "function": 2, "method": 2, "constant": 3, "module": 3, "namespace": 3, "macro": 3,
    "field": 4, "variable": 4,
}


def find_symbol(store: IndexStore, name: str, kind: str | None = None) -> list[Symbol]:
    """Exact name, ``Container.name`` (``::`` works too) or a full id ``path::Container.name``."""
    by_id = symbol_by_id(store, name) if "::" in name else None
    if by_id is not None:
        symbols = [by_id]
    elif "." in name or "::" in name:
        container, last = name.replace("::", ".").rsplit(".", 1)
        symbols = [
            s for s in store.symbols_named(last)
            if s.container and (s.container == container or s.container.endswith("." + container))
        ]
    else:
        symbols = store.symbols_named(name)
    if kind:
        symbols = [s for s in symbols if s.kind == kind]
    return sorted(symbols, key=lambda s: (KIND_ORDER.get(s.kind, 5), s.path, s.range.start.line))


def symbol_by_id(store: IndexStore, symbol_id: str) -> Symbol | None:
    if "::" not in symbol_id:
        return None
    path, qual = symbol_id.split("::", 1)
    return store.symbol(path, qual)


def _innermost(symbols: Iterable[Symbol], line: int, byte_col: int | None) -> Symbol | None:
    best: Symbol | None = None
    for s in symbols:
        r = s.range
        inside = (
            r.start.line <= line <= r.end.line if byte_col is None else r.contains(line, byte_col)
        )
        if inside and (best is None or (r.start.line, r.start.byte_col) >= (
                best.range.start.line, best.range.start.byte_col)):
            best = s
    return best


def symbol_at(store: IndexStore, path: str, line: int, byte_col: int | None) -> Symbol | None:
    return _innermost(store.symbols_in_file(path), line, byte_col)


def resolve_use(graph: ImportGraph, row: RefRow, definitions: list[Symbol]) -> Reference:
    """Label one use with the single definition it follows to, if there is one."""
    targets = [d for d in definitions if graph.resolves(row.path, d)]
    if len(targets) > 1:  # prefer a definition in the same file (shadowing)
        local = [d for d in targets if d.path == row.path]
        targets = local if len(local) == 1 else targets
    if len(targets) == 1:
        return row.as_reference(targets[0].id, True)
    return row.as_reference(None, False)


def find_references(
    store: IndexStore, graph: ImportGraph, *, target: Symbol | None, name: str | None,
    limit: int | None,
) -> tuple[list[Reference], int]:
    wanted = target.name if target else name
    if not wanted:
        return [], 0
    rows = store.refs_named(wanted)
    if target is not None:
        refs = [row.as_reference(target.id, True) if graph.resolves(row.path, target)
                else row.as_reference(None, False) for row in rows]
    else:
        definitions = store.symbols_named(wanted)
        refs = [resolve_use(graph, row, definitions) for row in rows]
    refs.sort(key=lambda r: (r.confidence != "resolved", r.path, r.range.start.line,
                             r.range.start.byte_col))
    total = len(refs)
    return (refs[:limit] if limit is not None else refs), total


def reference_at(
    store: IndexStore, graph: ImportGraph, path: str, line: int, byte_col: int
) -> Reference | None:
    for row in store.refs_in_file(path):
        r = row.range
        if r.start.line == line and r.start.byte_col <= byte_col <= r.end.byte_col:
            return resolve_use(graph, row, store.symbols_named(row.name))
    return None


def _targets(
    store: IndexStore, graph: ImportGraph, path: str, names: Counter[str], own: set[str]
) -> list[Symbol]:
    """Definitions of the used names, resolved ones first, then by how often they are used."""
    ranked: list[tuple[int, int, Symbol]] = []
    for name, count in names.items():
        definitions = [d for d in store.symbols_named(name) if d.id not in own]
        resolved = [d for d in definitions if graph.resolves(path, d)]
        if resolved:
            ranked += [(0, -count, d) for d in resolved]
        elif len(definitions) <= 3:  # an unresolved name with many homonyms is noise
            ranked += [(1, -count, d) for d in definitions]
    ranked.sort(key=lambda item: (item[0], item[1], item[2].path, item[2].range.start.line))
    return [item[2] for item in ranked[:RELATED_LIMIT]]


def find_related(store: IndexStore, graph: ImportGraph, path: str, line: int) -> Related:
    symbols = store.symbols_in_file(path)
    symbol = _innermost(symbols, line, None)
    if symbol is not None:
        first, last = symbol.range.start.line, symbol.range.end.line
    else:
        first = last = line
    uses = [row for row in store.refs_in_file(path) if first <= row.range.start.line <= last]
    own = {symbol.id} if symbol else set()
    calls = Counter(r.name for r in uses if r.kind in CALL_KINDS)
    types = Counter(r.name for r in uses if r.kind not in CALL_KINDS)
    called_by = _callers(store, graph, symbol) if symbol else []
    related = _targets(store, graph, path, types, own)
    if symbol is not None:
        siblings = [s for s in symbols if s.container == symbol.container and s.id != symbol.id]
        seen = {s.id for s in related}
        related += [s for s in siblings if s.id not in seen][: max(0, RELATED_LIMIT - len(related))]
    return Related(symbol, _targets(store, graph, path, calls, own), called_by, related)


def _callers(store: IndexStore, graph: ImportGraph, symbol: Symbol) -> list[Symbol]:
    """Enclosing definitions of every use of ``symbol``, resolved uses first."""
    refs, _total = find_references(store, graph, target=symbol, name=None, limit=None)
    by_file: dict[str, list[Symbol]] = {}
    ranked: dict[str, tuple[int, Symbol]] = {}
    for ref in refs:
        if ref.path not in by_file:
            by_file[ref.path] = store.symbols_in_file(ref.path)
        caller = _innermost(by_file[ref.path], ref.range.start.line, ref.range.start.byte_col)
        if caller is None or caller.id == symbol.id:
            continue
        rank = 0 if ref.confidence == "resolved" else 1
        if caller.id not in ranked or ranked[caller.id][0] > rank:
            ranked[caller.id] = (rank, caller)
    ordered = sorted(ranked.values(), key=lambda item: (item[0], item[1].path,
                                                        item[1].range.start.line))
    return [item[1] for item in ordered[:RELATED_LIMIT]]
