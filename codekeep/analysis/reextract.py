"""The live-edit window: re-extract only the lines an edit touched and merge the result
with the facts kept from before it.

``extract_window`` reads the definitions, uses and imports of a byte window;
``renest`` places fresh definitions among kept ones and renumbers duplicates;
``edge_keys`` says whether keeping the facts outside the window is exact (what the
query sees at nodes crossing the window's edges did not change).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import tree_sitter as ts

from codekeep.analysis.doclinks import doc_uses
from codekeep.analysis.extract import (
    DOTTED_RECEIVER_STYLES,
    Definition,
    Positions,
    is_local,
    name_of,
    place,
    receiver_of,
    run_query,
    signature_of,
    text_of,
)
from codekeep.analysis.facts import ImportFact, RefFact, SymbolFact
from codekeep.analysis.go_scopes import SCOPES as GO_SCOPES
from codekeep.analysis.go_scopes import GoReceivers
from codekeep.analysis.python_scopes import PythonReceivers
from codekeep.analysis.registry import DOC, IMPORT, REFERENCE, LanguageSpec
from codekeep.common.symbol_id import numbered, qualify, split_number


class Window(NamedTuple):
    """What a window of lines yields: every definition overlapping it (with its node, so
    its range and signature are fresh), and the uses and imports that start inside it."""

    definitions: list[Definition]
    refs: list[RefFact]
    imports: list[ImportFact]


def extract_window(
    spec: LanguageSpec, src: bytes, tree: ts.Tree, start: int, end: int
) -> Window | None:
    """Facts of bytes ``start..end`` (whole lines); None when an import statement crosses
    the window's edge (its facts could not be told apart)."""
    cursor = ts.QueryCursor(spec.query)
    cursor.set_byte_range(start, end)
    defs, refs, imports, crossing = run_query(spec, src, tree.root_node, Positions(src),
                                         (start, end), with_definitions=True, cursor=cursor)
    if crossing:
        return None
    overlapping = [d for d in defs if d.end > start and d.start < end]
    return Window(overlapping, refs, imports)


def edge_keys(
    spec: LanguageSpec, src: bytes, tree: ts.Tree, start: int, end: int, shift: int = 0
) -> set[tuple[object, ...]]:
    """What the query sees at the nodes crossing an edge of bytes ``start..end``.

    A fact kept from outside a re-extracted window can change meaning only through a
    node lying partly inside the window: a definition around it (its container and
    kind), a local scope around it (whether it is indexed at all), a pattern rooted
    there (a use's kind, an import statement). Tree-sitter reuses a subtree under a new
    parent without reporting it changed (breaking ``impl X {`` leaves its functions at
    the top level), so comparing these keys before and after an edit is what tells
    whether keeping is exact. Positions after the window move by ``shift`` (old text to
    new); positions and names inside the window are None: re-extracted anyway.
    """
    def at_start(offset: int) -> int | None:
        return offset if offset < start else offset + shift if offset >= end else None

    def at_end(offset: int) -> int | None:
        return offset if offset <= start else offset + shift if offset > end else None

    keys: set[tuple[object, ...]] = set()
    seen: set[int] = set()
    root = tree.root_node
    typed_receivers: GoReceivers | PythonReceivers | None = (
        GoReceivers(src, root) if spec.import_style == "go"
        else PythonReceivers(src) if spec.import_style == "python" else None)
    # In Go a use records its receiver's type from the scopes around it (go_scopes).
    scopes = spec.local_scopes | GO_SCOPES if spec.import_style == "go" else spec.local_scopes
    cursor = ts.QueryCursor(spec.query)
    cursor.set_max_start_depth(0)
    for edge in (start, end):
        if not 0 < edge < len(src):
            continue
        node: ts.Node | None = root.descendant_for_byte_range(edge - 1, edge + 1)
        while node is not None and node.id not in seen:
            seen.add(node.id)
            if node.type in scopes:
                keys.add(("scope", node.type, at_start(node.start_byte), at_end(node.end_byte)))
            for pattern, captures in cursor.matches(node):
                key = _edge_key(spec, src, pattern, captures, at_start, at_end, typed_receivers)
                if key is not None:
                    keys.add(key)
            node = node.parent
    return keys


def _edge_key(
    spec: LanguageSpec, src: bytes, pattern: int, captures: dict[str, list[ts.Node]],
    at_start: Callable[[int], int | None], at_end: Callable[[int], int | None],
    typed_receivers: GoReceivers | PythonReceivers | None,
) -> tuple[object, ...] | None:
    """One match at a crossing node, as :func:`edge_keys` compares it (None: nothing
    outside the window depends on it)."""
    info = spec.roles[pattern]
    if info is None:
        return None
    family, role = info
    if family == IMPORT:
        statement = captures["import"][0]
        return ("import", at_start(statement.start_byte), at_end(statement.end_byte))
    if family == DOC:
        # `{@link` in the window, its name on the next line: the kept use hangs on it.
        return ("doc", tuple((at, use.name) for start, use in doc_uses(
            src, captures["doc"][0], lambda _offset, col: col)
            if (at := at_start(start)) is not None))
    names = captures.get("name")
    if not names:
        return None
    name_node = names[0]
    name_at = at_start(name_node.start_byte)
    name = name_of(src, name_node) if name_at is not None else None
    if family == REFERENCE:
        if name_at is None:
            return None
        # A kept use's receiver may lie in the window (`backend.` typed over on the line
        # above `bar()`; in Go the composite literal whose type it records): what it
        # reads as, as run_query records it, must not have changed either.
        receivers = captures.get("receiver")
        receiver = receiver_of(src, receivers[0], spec.import_style in DOTTED_RECEIVER_STYLES) if (
            receivers) else None
        if typed_receivers is not None and receivers:
            receiver = typed_receivers.receiver(receivers[0], receiver or "")
        return ("ref", role, name_at, name, receiver)
    node = captures[role][0]
    node_at, node_end = at_start(node.start_byte), at_end(node.end_byte)
    if (node_at is None and node_end is None) or is_local(node, spec.local_scopes):
        return None
    explicit = captures.get("container.name")
    container = (text_of(src, explicit[0]) if explicit and at_start(explicit[0].start_byte)
                 is not None else None)
    return ("def", role, node_at, node_end, name_at, name, container)


Point = tuple[int, int]
# A symbol placed by renest: its qualified name (Container.name) and either a kept fact
# or a fresh definition with its container and kind.
_Placed = tuple[str, "SymbolFact | tuple[Definition, str | None, str]"]


def _qualified(symbol: SymbolFact) -> str:
    return qualify(symbol.name, symbol.container)


def _around(
    kept: list[SymbolFact], fresh: list[Definition]
) -> tuple[list[SymbolFact], list[SymbolFact], list[SymbolFact]]:
    """Kept symbols before, among and after the fresh definitions' extent.

    Only those among them can be enclosed by or enclose a fresh definition, so only
    they need nesting again. A kept symbol straddling an edge of that extent (which a
    well-nested file does not have) puts everything among them: nested as a whole.
    """
    if not fresh:
        return kept, [], []
    low = min(d.node.start_point for d in fresh)
    high = max(d.node.end_point for d in fresh)
    low_at, high_at = (low[0], low[1]), (high[0], high[1])
    before: list[SymbolFact] = []
    among: list[SymbolFact] = []
    after: list[SymbolFact] = []
    for k in kept:
        span = k.span
        start = (span.line, span.col)
        if start < low_at:
            if (span.end_line, span.end_col) > low_at:
                return [], kept, []
            before.append(k)
        elif start >= high_at:
            after.append(k)
        elif (span.end_line, span.end_col) > high_at:
            return [], kept, []
        else:
            among.append(k)
    return before, among, after


def renest(
    spec: LanguageSpec, src: bytes, kept: list[SymbolFact], fresh: list[Definition]
) -> tuple[list[SymbolFact], list[Definition]] | None:
    """Merge definitions kept from before an edit with re-extracted ones, in source order.

    Kept facts keep their container; fresh ones get theirs from whatever encloses them;
    duplicate numbering (``#2``) is recomputed over the whole file. Returns the symbols
    and the fresh definitions that enclose kept ones (the caller checks they did not
    change, since the kept containers were named after them); None for a case this
    cannot reproduce exactly (a fresh impl block around kept functions, or a kept and a
    fresh definition on the very same range).

    Only the kept symbols among the fresh ones are nested again (``kept`` is in source
    order, so those before and after keep their places): a keystroke in a large file
    costs what its neighbourhood costs, not a pass that sorts every symbol of the file.
    """
    before, among, after = _around(kept, fresh)
    nested = _nest_among(spec, among, fresh)
    if nested is None:
        return None
    placed, encloses_kept = nested
    # A kept symbol's number changes only if a symbol with its qualified name was
    # placed among the fresh ones, or it had a number (an earlier namesake may be gone).
    numbered_kept = [k for part in (before, after) for k in part if split_number(k.qual)[1]]
    affected = {qualified for qualified, _thing in placed} | set(map(_qualified, numbered_kept))
    affected_names = {k.name for k in numbered_kept} | {
        thing.name if isinstance(thing, SymbolFact) else thing[0].name for _q, thing in placed}
    positions = Positions(src)
    used: dict[str, int] = {}
    symbols: list[SymbolFact] = []

    def number(qualified: str) -> str:
        count = used.get(qualified, 0) + 1
        used[qualified] = count
        return numbered(qualified, count)

    def renumber(part: list[SymbolFact]) -> None:
        for k in part:
            if k.name in affected_names and (qualified := _qualified(k)) in affected:
                qual = number(qualified)
                symbols.append(k if k.qual == qual else k._replace(qual=qual))
            else:
                symbols.append(k)

    renumber(before)
    for qualified, thing in placed:
        qual = number(qualified)
        if isinstance(thing, SymbolFact):
            symbols.append(thing if thing.qual == qual else thing._replace(qual=qual))
        else:
            d, container, kind = thing
            symbols.append(SymbolFact(
                qual, d.name, kind, container, signature_of(src, d.node, spec.body_fields),
                positions.span(d.node), positions.span(d.name_node),
            ))
    renumber(after)
    return symbols, encloses_kept


def _nest_among(
    spec: LanguageSpec, kept: list[SymbolFact], fresh: list[Definition]
) -> tuple[list[_Placed], list[Definition]] | None:
    """Containers for fresh definitions from whatever encloses them, in source order,
    with the fresh definitions that enclose kept ones; None: see :func:`renest`."""
    # (start, end reversed, arrival, end, item): sorts as source order, outer first,
    # without a key function (a Python call per symbol on every edit).
    entries: list[tuple[Point, Point, int, Point, SymbolFact | Definition]] = []
    for k in kept:
        span = k.span
        entries.append(((span.line, span.col), (-span.end_line, -span.end_col), len(entries),
                        (span.end_line, span.end_col), k))
    fresh_ranges = set()
    for d in fresh:
        (line, col), (end_line, end_col) = d.node.start_point, d.node.end_point
        entries.append(((line, col), (-end_line, -end_col), len(entries), (end_line, end_col), d))
        fresh_ranges.add(((line, col), (end_line, end_col)))
    entries.sort()
    stack: list[tuple[Point, Point, str, str, Definition | None]] = []
    placed: list[_Placed] = []
    encloses_kept: list[Definition] = []
    for start, _reversed_end, _arrival, end, item in entries:
        while stack and (stack[-1][1] < end or (stack[-1][0], stack[-1][1]) == (start, end)):
            stack.pop()
        parent = stack[-1] if stack else None
        if isinstance(item, SymbolFact):
            if (start, end) in fresh_ranges:
                return None
            if parent is not None and parent[4] is not None:
                if parent[3] == "impl":
                    return None
                encloses_kept.append(parent[4])
            qualified = _qualified(item)
            stack.append((start, end, qualified, item.kind, None))
            placed.append((qualified, item))
            continue
        d = item
        container, kind, qualified = place(
            spec, d, parent[2] if parent else None, parent[3] if parent else None)
        stack.append((start, end, qualified, kind, d))
        if kind != "impl":
            placed.append((qualified, (d, container, kind)))
    return placed, encloses_kept


