"""Questions over the whole call graph: how one symbol reaches another, and what nothing
reaches.

Both walk the index's edges (``outgoing_calls``: what a definition's body calls;
``find_references``: every use of a definition) rather than a graph built up front, so
they answer from the index as it is, open editor buffers included.
"""

from __future__ import annotations

import fnmatch
from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING

from codekeep.analysis.errors import CodeMapError
from codekeep.analysis.rename import dunder_all_names

if TYPE_CHECKING:
    from codekeep.analysis.codemap import CodeMap
    from codekeep.analysis.model import Symbol

MAX_CHAIN = 12  # calls followed from FROM before giving up
MAX_CHAINS = 10
UNUSED_KINDS = {"function": frozenset({"function", "method"}),
                "class": frozenset({"class", "struct", "interface", "trait", "enum"})}
MAIN_FILES = ("__main__.py", "main.go", "main.rs")


class CallPathError(CodeMapError):
    """FROM or TO is unknown or names several symbols."""


def _one(codemap: CodeMap, name: str) -> Symbol:
    found = codemap.find_symbol(name)
    if len(found) != 1:
        some = ", ".join(s.id for s in found[:5])
        raise CallPathError(f"{name!r} names no symbol" if not found
                            else f"{name!r} names {len(found)} symbols ({some}); pass one id")
    return found[0]


def call_paths(codemap: CodeMap, source: str, target: str,
               limit: int = MAX_CHAINS) -> list[list[Symbol]]:
    """The shortest call chains from ``source`` to ``target`` (each from source to target
    inclusive), at most ``limit`` of them, all of the same, shortest length."""
    start, goal = _one(codemap, source), _one(codemap, target)
    parents: dict[str, list[Symbol]] = {start.id: []}
    symbols = {start.id: start}
    frontier = [start]
    for _level in range(MAX_CHAIN):
        if goal.id in parents or not frontier:
            break
        reached: dict[str, list[Symbol]] = {}
        for symbol in frontier:
            for edge in codemap.outgoing_calls(symbol.id):
                callee = edge.symbol
                if callee.id in parents:
                    continue
                reached.setdefault(callee.id, []).append(symbol)
                symbols[callee.id] = callee
        parents.update(reached)
        frontier = [symbols[sid] for sid in reached]
    if goal.id not in parents:
        return []
    chains: list[list[Symbol]] = []
    pending: deque[list[Symbol]] = deque([[goal]])
    while pending and len(chains) < limit:
        chain = pending.popleft()
        before = parents[chain[0].id]
        if not before:
            chains.append(chain)
        pending.extend([parent, *chain] for parent in before)
    return chains


def _entry_point(symbol: Symbol, hooks: Iterable[str], exported: set[str]) -> bool:
    from codekeep.analysis.impact import is_test_path

    name = symbol.name
    return (
        is_test_path(symbol.path) or name.startswith("test")
        or symbol.path.rsplit("/", 1)[-1] in MAIN_FILES
        or (name.startswith("__") and name.endswith("__"))  # the language calls these
        or symbol.signature.lstrip().startswith(("export ", "pub "))
        or name in exported
        or any(fnmatch.fnmatchcase(name, hook) for hook in hooks)
    )


def unused(codemap: CodeMap, kind: str | None = None,
           hooks: Iterable[str] = ()) -> list[Symbol]:
    """Definitions with no use, resolved or by name, outside their own body, and no
    entry-point role (tests, ``__main__``, dunder methods, exported API, ``hooks``)."""
    kinds = UNUSED_KINDS[kind] if kind else UNUSED_KINDS["function"] | UNUSED_KINDS["class"]
    hooks = tuple(hooks)
    symbols = codemap.symbols_in()
    exported = {name for path in codemap.files() if path.endswith((".py", ".pyi"))
                for name in dunder_all_names(codemap.document_text(path) or b"")}
    found = []
    for symbol in symbols:
        if symbol.kind not in kinds or _entry_point(symbol, hooks, exported):
            continue
        refs, _total = codemap.find_references(symbol_id=symbol.id)
        if not any(r.path != symbol.path or not symbol.range.contains(
                r.range.start.line, r.range.start.byte_col) for r in refs):
            found.append(symbol)
    return found
