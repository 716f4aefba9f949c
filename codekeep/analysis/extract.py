"""Turn one parsed file into facts: definitions, references and imports.

The facts are plain named tuples so that worker processes can send them to the parent
cheaply and so that "did this file's rows change?" is a tuple comparison. Positions
are 0-based lines with UTF-8 byte columns plus UTF-16 columns (equal on ASCII text).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

import tree_sitter as ts

from codekeep.analysis.registry import LanguageSpec
from codekeep.common.symbol_id import numbered, qualify, split_number

SIGNATURE_MAX = 200
_OPEN_SPACE = re.compile(r"([(\[{]) ")
_UNTIDY = ("( ", "[ ", "{ ", " )", " ]", " }")
_NAME_DECORATION = frozenset(":'\"`")
_CLOSE_SPACE = re.compile(r",? ([)\]}])")
_TRAILING = " \t:{=("


class Span(NamedTuple):
    line: int
    col: int
    ucol: int
    end_line: int
    end_col: int
    end_ucol: int


class SymbolFact(NamedTuple):
    qual: str  # Container.name plus "#n" when needed: the part of the id after "::"
    name: str
    kind: str
    container: str | None
    signature: str
    span: Span
    name_span: Span


class RefFact(NamedTuple):
    name: str
    kind: str
    span: Span


class ImportFact(NamedTuple):
    module: str
    name: str | None
    alias: str | None
    line: int


class FileFacts(NamedTuple):
    symbols: tuple[SymbolFact, ...]
    refs: tuple[RefFact, ...]
    imports: tuple[ImportFact, ...]


EMPTY_FACTS = FileFacts((), (), ())


class _Def(NamedTuple):
    start: int
    end: int
    name: str
    kind: str
    node: ts.Node
    name_node: ts.Node
    explicit_container: str | None


def _text(src: bytes, node: ts.Node) -> str:
    return src[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _name(src: bytes, node: ts.Node) -> str:
    """A name as written, minus quotes (`declare module "x"`) and Ruby's symbol colon."""
    text = _text(src, node)
    if text[:1] in _NAME_DECORATION:
        text = text.strip("'\"`")
        text = text[1:] if text.startswith(":") else text
    return text


class _Positions:
    """Byte -> UTF-16 column conversion that costs nothing on ASCII files."""

    def __init__(self, src: bytes):
        self.src = src
        self.ascii = src.isascii()

    def ucol(self, byte_offset: int, byte_col: int) -> int:
        if self.ascii or byte_col == 0:
            return byte_col
        prefix = self.src[byte_offset - byte_col:byte_offset]
        if prefix.isascii():
            return byte_col
        return len(prefix.decode("utf-8", "replace").encode("utf-16-le")) // 2

    def span(self, node: ts.Node) -> Span:
        (line, col), (end_line, end_col) = node.start_point, node.end_point
        if self.ascii:
            return Span(line, col, col, end_line, end_col, end_col)
        return Span(
            line, col, self.ucol(node.start_byte, col),
            end_line, end_col, self.ucol(node.end_byte, end_col),
        )


def _is_local(node: ts.Node, local_scopes: frozenset[str]) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in local_scopes:
            return True
        parent = parent.parent
    return False


def signature_of(src: bytes, node: ts.Node, body_fields: tuple[str, ...]) -> str:
    """The definition's text up to its body (or its first line), whitespace collapsed."""
    end = None
    for field_name in body_fields:
        body = node.child_by_field_name(field_name)
        if body is not None and body.start_byte > node.start_byte:
            end = body.start_byte
            break
    if end is None:
        line_end = src.find(b"\n", node.start_byte, node.end_byte)
        end = node.end_byte if line_end < 0 else line_end
    text = " ".join(src[node.start_byte:end].decode("utf-8", "replace").split())
    if any(pair in text for pair in _UNTIDY):
        # a multi-line parameter list collapses to "f(a, b)", not "f( a, b, )"
        text = _OPEN_SPACE.sub(r"\1", _CLOSE_SPACE.sub(r"\1", text))
    text = text.rstrip(_TRAILING) if len(text) > 1 else text
    return text[:SIGNATURE_MAX]


_DEFINITION, _REFERENCE, _IMPORT = 0, 1, 2
_UNSEEN = (-1, "")


def _classify(captures: dict[str, list[ts.Node]]) -> tuple[int, str] | None:
    """(family, capture name or kind) of a pattern, from the captures of one match."""
    for key in captures:
        if key.startswith("definition."):
            return _DEFINITION, key
        if key.startswith("reference."):
            return _REFERENCE, key[len("reference."):]
        if key == "import":
            return _IMPORT, key
    return None


def extract(spec: LanguageSpec, src: bytes, tree: ts.Tree) -> FileFacts:
    """All facts of one file, in source order."""
    positions = _Positions(src)
    defs, refs, imports, _crossing = _run(spec, src, tree.root_node, positions, None)
    symbols = _nest(spec, src, defs, positions)
    return FileFacts(tuple(symbols), tuple(refs), tuple(imports))


def extract_uses(
    spec: LanguageSpec, src: bytes, scope: ts.Node, start: int, end: int
) -> tuple[list[RefFact], list[ImportFact]]:
    """References and imports inside bytes ``start..end`` of ``scope``'s subtree.

    Used for a local scope's body after an edit: nothing in it is a definition (locals
    are not indexed), so its uses are all there is to re-extract.
    """
    _defs, refs, imports, _crossing = _run(spec, src, scope, _Positions(src), (start, end))
    return refs, imports


class Window(NamedTuple):
    """What a window of lines yields: every definition overlapping it (with its node, so
    its range and signature are fresh), and the uses and imports that start inside it."""

    definitions: list[_Def]
    refs: list[RefFact]
    imports: list[ImportFact]


def extract_window(
    spec: LanguageSpec, src: bytes, tree: ts.Tree, start: int, end: int
) -> Window | None:
    """Facts of bytes ``start..end`` (whole lines); None when an import statement crosses
    the window's edge (its facts could not be told apart)."""
    cursor = ts.QueryCursor(spec.query)
    cursor.set_byte_range(start, end)
    defs, refs, imports, crossing = _run(spec, src, tree.root_node, _Positions(src),
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
    cursor = ts.QueryCursor(spec.query)
    cursor.set_max_start_depth(0)
    for edge in (start, end):
        if not 0 < edge < len(src):
            continue
        node: ts.Node | None = root.descendant_for_byte_range(edge - 1, edge + 1)
        while node is not None and node.id not in seen:
            seen.add(node.id)
            if node.type in spec.local_scopes:
                keys.add(("scope", node.type, at_start(node.start_byte), at_end(node.end_byte)))
            for _pattern, captures in cursor.matches(node):
                key = _edge_key(spec, src, captures, at_start, at_end)
                if key is not None:
                    keys.add(key)
            node = node.parent
    return keys


def _edge_key(
    spec: LanguageSpec, src: bytes, captures: dict[str, list[ts.Node]],
    at_start: Callable[[int], int | None], at_end: Callable[[int], int | None],
) -> tuple[object, ...] | None:
    """One match at a crossing node, as :func:`edge_keys` compares it (None: nothing
    outside the window depends on it)."""
    info = _classify(captures)
    if info is None:
        return None
    family, role = info
    if family == _IMPORT:
        statement = captures["import"][0]
        return ("import", at_start(statement.start_byte), at_end(statement.end_byte))
    names = captures.get("name")
    if not names:
        return None
    name_node = names[0]
    name_at = at_start(name_node.start_byte)
    name = _name(src, name_node) if name_at is not None else None
    if family == _REFERENCE:
        return None if name_at is None else ("ref", role, name_at, name)
    node = captures[role][0]
    node_at, node_end = at_start(node.start_byte), at_end(node.end_byte)
    if (node_at is None and node_end is None) or _is_local(node, spec.local_scopes):
        return None
    explicit = captures.get("container.name")
    container = (_text(src, explicit[0]) if explicit and at_start(explicit[0].start_byte)
                 is not None else None)
    return ("def", role, node_at, node_end, name_at, name, container)


Point = tuple[int, int]
# A symbol placed by renest: its qualified name (Container.name) and either a kept fact
# or a fresh definition with its container and kind.
_Placed = tuple[str, "SymbolFact | tuple[_Def, str | None, str]"]


def _qualified(symbol: SymbolFact) -> str:
    return qualify(symbol.name, symbol.container)


def _around(
    kept: list[SymbolFact], fresh: list[_Def]
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
    spec: LanguageSpec, src: bytes, kept: list[SymbolFact], fresh: list[_Def]
) -> tuple[list[SymbolFact], list[_Def]] | None:
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
    positions = _Positions(src)
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
    spec: LanguageSpec, kept: list[SymbolFact], fresh: list[_Def]
) -> tuple[list[_Placed], list[_Def]] | None:
    """Containers for fresh definitions from whatever encloses them, in source order,
    with the fresh definitions that enclose kept ones; None: see :func:`renest`."""
    # (start, end reversed, arrival, end, item): sorts as source order, outer first,
    # without a key function (a Python call per symbol on every edit).
    entries: list[tuple[Point, Point, int, Point, SymbolFact | _Def]] = []
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
    stack: list[tuple[Point, Point, str, str, _Def | None]] = []
    placed: list[_Placed] = []
    encloses_kept: list[_Def] = []
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
        container, kind, qualified = _place(
            spec, d, parent[2] if parent else None, parent[3] if parent else None)
        stack.append((start, end, qualified, kind, d))
        if kind != "impl":
            placed.append((qualified, (d, container, kind)))
    return placed, encloses_kept


def _run(
    spec: LanguageSpec, src: bytes, root: ts.Node, positions: _Positions,
    within: tuple[int, int] | None, with_definitions: bool = False,
    cursor: ts.QueryCursor | None = None,
) -> tuple[list[_Def], list[RefFact], list[ImportFact], bool]:
    """Definitions, uses and imports under ``root`` (uses and imports only those starting
    in ``within``), and whether an import statement crosses an edge of ``within``."""
    # One definition per (node, name node): the earliest pattern of the query wins, so a
    # specific pattern (`const f = () => ...` is a function) can precede a general one.
    defs: dict[tuple[int, int, int], tuple[int, _Def]] = {}
    refs: dict[tuple[int, str], RefFact] = {}
    imports: list[ImportFact] = []
    roles: dict[int, tuple[int, str] | None] = {}  # learnt from each pattern's first match
    crossing = False
    ascii_only = positions.ascii
    cursor = cursor or ts.QueryCursor(spec.query)
    for pattern, captures in cursor.matches(root):
        info = roles.get(pattern, _UNSEEN)
        if info is _UNSEEN:
            info = roles[pattern] = _classify(captures)
        if info is None:
            continue
        family, role = info
        if family == _IMPORT:
            statement = captures["import"][0]
            if within is None or within[0] <= statement.start_byte < within[1]:
                _collect_import(src, captures, imports)
            if within is not None and (statement.start_byte < within[0]
                                       or statement.end_byte > within[1]):
                crossing = True
            continue
        names = captures.get("name")
        if not names:
            continue
        name_node = names[0]
        if name_node.start_byte == name_node.end_byte:
            continue  # a zero-width MISSING node that error recovery inserted
        if family == _REFERENCE:  # the hot path: most matches are uses
            start = name_node.start_byte
            if within is not None and not within[0] <= start < within[1]:
                continue
            key = (start, role)
            if key in refs:
                continue
            if ascii_only:
                (line, col), (end_line, end_col) = name_node.start_point, name_node.end_point
                span = Span(line, col, col, end_line, end_col, end_col)
            else:
                span = positions.span(name_node)
            refs[key] = RefFact(_name(src, name_node), role, span)
            continue
        if within is not None and not with_definitions:
            continue
        node = captures[role][0]
        identity = (node.start_byte, node.end_byte, name_node.start_byte)
        if identity in defs and defs[identity][0] <= pattern:
            continue
        if _is_local(node, spec.local_scopes):
            continue
        explicit = captures.get("container.name")
        defs[identity] = (pattern, _Def(
            node.start_byte, node.end_byte, _name(src, name_node), role[len("definition."):],
            node, name_node, _text(src, explicit[0]).replace("::", ".") if explicit else None,
        ))
    ordered_refs = sorted(refs.values(), key=lambda r: (r.span.line, r.span.col, r.kind))
    imports.sort(key=lambda i: i.line)
    return [d for _pattern, d in defs.values()], ordered_refs, imports, crossing


def _collect_import(
    src: bytes, captures: dict[str, list[ts.Node]], imports: list[ImportFact]
) -> None:
    modules = captures.get("import.module")
    statement = captures["import"][0]
    if not modules:
        return
    module = _text(src, modules[0]).strip("'\"<>` ")
    aliases = captures.get("import.alias")
    alias = _text(src, aliases[0]) if aliases else None
    names: list[str | None] = [_text(src, node) for node in captures.get("import.name", ())]
    for name in names or [None]:
        imports.append(ImportFact(module, name, alias, statement.start_point[0]))


def _place(
    spec: LanguageSpec, d: _Def, parent_qualified: str | None, parent_kind: str | None
) -> tuple[str | None, str, str]:
    """(container, kind, qualified name) of a definition under its enclosing one.

    An explicit container is relative to the lexical scope (C++ `Foo::bar` defined
    inside `namespace ns` belongs to ns.Foo) and makes functions its methods; a
    function directly inside a method container (class, struct, trait …) is a method.
    Both the full nesting and the live-edit window use this one rule.
    """
    container: str | None
    if d.explicit_container is not None:
        container = (f"{parent_qualified}.{d.explicit_container}" if parent_qualified
                     else d.explicit_container)
        parent_kind = "impl" if d.kind in ("function", "method") else None
    else:
        container = parent_qualified
    kind = d.kind
    if kind == "function" and parent_kind in spec.method_containers:
        kind = "method"
    return container, kind, f"{container}.{d.name}" if container else d.name


def _nest(
    spec: LanguageSpec, src: bytes, defs: list[_Def], positions: _Positions
) -> list[SymbolFact]:
    """Give each definition its container (nearest enclosing definition) and a unique id."""
    defs.sort(key=lambda d: (d.start, -d.end))
    stack: list[tuple[_Def, str, str]] = []  # (def, qualified name, kind)
    symbols: list[SymbolFact] = []
    used: dict[str, int] = {}
    for d in defs:
        # Pop what ended before this one, and a same-node sibling (`attr_reader :a, :b`
        # defines two names with one node: they are siblings, not nested).
        while stack and (stack[-1][0].end < d.end or (
                stack[-1][0].start, stack[-1][0].end) == (d.start, d.end)):
            stack.pop()
        parent = stack[-1] if stack else None
        container, kind, qualified = _place(
            spec, d, parent[1] if parent else None, parent[2] if parent else None)
        stack.append((d, qualified, kind))
        if kind == "impl":
            continue  # an impl block only names the container of its functions
        count = used.get(qualified, 0) + 1
        used[qualified] = count
        qual = numbered(qualified, count)
        symbols.append(SymbolFact(
            qual, d.name, kind, container, signature_of(src, d.node, spec.body_fields),
            positions.span(d.node), positions.span(d.name_node),
        ))
    return symbols
