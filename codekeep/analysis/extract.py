"""Turn one parsed file into facts (see ``facts``): run the language's tags query, keep
definitions outside local scopes, give each its container and number.

The query-running pieces here (``run_query``, ``Definition``, ``place`` …) are shared
with the live-edit window (``window``), which re-extracts only the lines an edit touched.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import tree_sitter as ts

from codekeep.analysis.doclinks import doc_uses
from codekeep.analysis.facts import FileFacts, ImportFact, RefFact, Span, SymbolFact
from codekeep.analysis.go_scopes import GoReceivers
from codekeep.analysis.python_scopes import PythonReceivers
from codekeep.analysis.registry import DOC, IMPORT, REFERENCE, LanguageSpec
from codekeep.common.secrets import redact_text
from codekeep.common.symbol_id import numbered

SIGNATURE_MAX = 200
# Bytes of a definition's text read for its signature. Error recovery can stretch a
# header over hundreds of lines (an open docstring leaves a `def` whose body starts
# where the next string ends), and a minified line is one header: a signature keeps
# SIGNATURE_MAX characters, so collapsing and checking kilobytes for secrets on every
# keystroke is waste. The cut falls on whitespace where there is any, so every
# credential format still sees whole tokens (a private key block cut open is hidden
# to the end of the text).
SIGNATURE_SCAN = 2048
_OPEN_SPACE = re.compile(r"([(\[{]) ")
_UNTIDY = re.compile(r"[(\[{] | [)\]}]")
_NAME_DECORATION = frozenset(":'\"`")
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
_CLOSE_SPACE = re.compile(r",? ([)\]}])")
_TRAILING = " \t:{=("
# A fact is built for every use in the tree: tuple.__new__ skips the named tuple's own
# (Python-level) constructor, which costs as much as the rest of building one.
new_tuple = tuple.__new__


class Definition(NamedTuple):
    start: int
    end: int
    name: str
    kind: str
    node: ts.Node
    name_node: ts.Node
    explicit_container: str | None


def text_of(src: bytes, node: ts.Node) -> str:
    return src[node.start_byte:node.end_byte].decode("utf-8", "replace")


# Styles whose receivers may be a chain of names (Python `flask.json.loads()`: which
# module or object the chain's head is decides what the use can be, receivers.py).
DOTTED_RECEIVER_STYLES = frozenset({"python"})


def receiver_of(src: bytes, node: ts.Node, dotted: bool = False) -> str:
    """The receiver of a member use: its text when it is one identifier (or, ``dotted``,
    a chain of them: ``flask.json``), else ""."""
    return receiver_text(src[node.start_byte:node.end_byte], dotted)


def receiver_text(raw: bytes, dotted: bool = False) -> str:
    """:func:`receiver_of`, from the receiver's bytes."""
    text = raw.decode("utf-8", "replace")
    if text.isidentifier() and text.isascii():  # `self`, `os` …: no regex needed
        return text
    if dotted and "." in text:
        return text if all(_IDENTIFIER.fullmatch(part) for part in text.split(".")) else ""
    return text if _IDENTIFIER.fullmatch(text) else ""


def name_of(src: bytes, node: ts.Node) -> str:
    """A name as written, minus quotes (`declare module "x"`) and Ruby's symbol colon."""
    text = text_of(src, node)
    return undecorated(text) if text[:1] in _NAME_DECORATION else text


def undecorated(text: str) -> str:
    text = text.strip("'\"`")
    return text[1:] if text.startswith(":") else text


_WIDE = re.compile(rb"[\x80-\xff]")


def utf16_units(data: bytes) -> int:
    """UTF-16 code units of UTF-8 ``data`` (LSP's default column unit)."""
    return len(data.decode("utf-8", "replace").encode("utf-16-le")) // 2


class Positions:
    """Byte -> UTF-16 column conversion that costs nothing on ASCII files, nor on the
    ASCII lines of other files once :meth:`index_lines` has found the lines that are not."""

    def __init__(self, src: bytes):
        self.src = src
        self.ascii = src.isascii()
        self.wide: set[int] | None = None  # lines holding a non-ASCII byte, once known
        # The last conversion (line start, byte offset, UTF-16 column): the next one on
        # the same line converts only the bytes in between. Uses arrive in source order,
        # so a minified file's one long line costs its length once, not once per use.
        self._mark = (-1, 0, 0)

    def index_lines(self) -> set[int]:
        """Find the lines holding non-ASCII bytes (one search per such line: worth it
        for a whole-file extraction, not for the few spans of a live edit)."""
        if self.wide is None:
            src, wide = self.src, set()
            line = position = 0
            while (found := _WIDE.search(src, position)) is not None:
                line += src.count(b"\n", position, found.start())
                wide.add(line)
                position = src.find(b"\n", found.start())
                if position < 0:
                    break
            self.wide = wide
        return self.wide

    def ucol(self, byte_offset: int, byte_col: int) -> int:
        if self.ascii or byte_col == 0:
            return byte_col
        src = self.src
        line_start = byte_offset - byte_col
        prefix = src[line_start:byte_offset]
        if prefix.isascii():
            return byte_col
        mark_start, mark_offset, mark_ucol = self._mark
        # Decoding in two parts counts the same as in one when the cut is not inside a
        # character (not before a continuation byte), even in invalid UTF-8; the end of
        # the text (two spans ending there) is inside none.
        if (mark_start == line_start and line_start < mark_offset <= byte_offset
                and (mark_offset == len(src) or not 0x80 <= src[mark_offset] < 0xC0)):
            units = mark_ucol + utf16_units(src[mark_offset:byte_offset])
        else:
            units = utf16_units(prefix)
        self._mark = (line_start, byte_offset, units)
        return units

    def span(self, node: ts.Node) -> Span:
        (line, col), (end_line, end_col) = node.start_point, node.end_point
        if self.ascii:
            return Span(line, col, col, end_line, end_col, end_col)
        wide = self.wide
        return Span(
            line, col, col if wide is not None and line not in wide
            else self.ucol(node.start_byte, col),
            end_line, end_col, end_col if wide is not None and end_line not in wide
            else self.ucol(node.end_byte, end_col),
        )


def is_local(node: ts.Node, local_scopes: frozenset[str]) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in local_scopes:
            return True
        parent = parent.parent
    return False


_TELLING = re.compile(r"pass|secret|token|key|auth|pwd|bearer|credential")


def _may_hold_secret(signature: str) -> bool:
    """In code a credential sits in a string literal, a URL or next to a telling name;
    a signature with none of them (almost all) skips the detector's ~40 searches."""
    return ('"' in signature or "'" in signature or "`" in signature or "://" in signature
            or _TELLING.search(signature.lower()) is not None)


def signature_of(src: bytes, node: ts.Node, body_fields: tuple[str, ...]) -> str:
    """The definition's text up to its body (or its first line), whitespace collapsed."""
    end = None
    for field_name in body_fields:
        body = node.child_by_field_name(field_name)
        if body is not None and body.start_byte > node.start_byte:
            end = body.start_byte
            break
    start = node.start_byte
    if end is None:
        line_end = src.find(b"\n", start, node.end_byte)
        end = node.end_byte if line_end < 0 else line_end
    if end - start > SIGNATURE_SCAN:
        cut = start + SIGNATURE_SCAN
        space = max(src.rfind(b" ", start, cut), src.rfind(b"\n", start, cut),
                    src.rfind(b"\t", start, cut))
        # at a space if one is in the window's second half, else mid-token: a header with
        # only early spaces (minified code) keeps its name and parameters
        end = space if space - start >= SIGNATURE_SCAN // 2 else cut
    text = " ".join(src[start:end].decode("utf-8", "replace").split())
    if _UNTIDY.search(text):
        # a multi-line parameter list collapses to "f(a, b)", not "f( a, b, )"
        text = _OPEN_SPACE.sub(r"\1", _CLOSE_SPACE.sub(r"\1", text))
    text = text.rstrip(_TRAILING) if len(text) > 1 else text
    if _may_hold_secret(text):  # `def connect(token="ghp_…")` must not reach index.db
        text = redact_text(text)
    return text[:SIGNATURE_MAX]


def extract(spec: LanguageSpec, src: bytes, tree: ts.Tree) -> FileFacts:
    """All facts of one file, in source order."""
    positions = Positions(src)
    defs, refs, imports, _crossing = run_query(spec, src, tree.root_node, positions, None)
    symbols = nest(spec, src, defs, positions)
    return FileFacts(tuple(symbols), tuple(refs), tuple(imports))


def extract_uses(
    spec: LanguageSpec, src: bytes, scope: ts.Node, start: int, end: int
) -> tuple[list[RefFact], list[ImportFact]]:
    """References and imports inside bytes ``start..end`` of ``scope``'s subtree.

    Used for a local scope's body after an edit: nothing in it is a definition (locals
    are not indexed), so its uses are all there is to re-extract.
    """
    _defs, refs, imports, _crossing = run_query(spec, src, scope, Positions(src), (start, end))
    return refs, imports


def run_query(
    spec: LanguageSpec, src: bytes, root: ts.Node, positions: Positions,
    within: tuple[int, int] | None, with_definitions: bool = False,
    cursor: ts.QueryCursor | None = None,
) -> tuple[list[Definition], list[RefFact], list[ImportFact], bool]:
    """Definitions, uses and imports under ``root`` (uses and imports only those starting
    in ``within``), and whether an import statement crosses an edge of ``within``."""
    # One definition per (node, name node): the earliest pattern of the query wins, so a
    # specific pattern (`const f = () => ...` is a function) can precede a general one.
    defs: dict[tuple[int, int, int], tuple[int, Definition]] = {}
    refs: dict[tuple[int, str], RefFact] = {}
    imports: list[ImportFact] = []
    roles = spec.roles
    crossing = False
    ascii_only = positions.ascii
    # A whole file's uses are thousands of spans: find its non-ASCII lines once.
    wide = positions.index_lines() if not ascii_only and within is None else None
    # Go member calls also record their receiver's declared type (see go_scopes).
    go_receivers = GoReceivers(src, root) if spec.import_style == "go" else None
    # ... and Python ones the class their receiver holds, when it is written (python_scopes).
    py_receivers = PythonReceivers(src) if spec.import_style == "python" else None
    cursor = cursor or ts.QueryCursor(spec.query)
    # A receiver's text repeats (`self`, `models` …): read each distinct one once.
    receiver_texts: dict[bytes, str] = {}
    dotted = spec.import_style in DOTTED_RECEIVER_STYLES
    for pattern, captures in cursor.matches(root):
        info = roles[pattern]
        if info is None:
            continue
        family, role = info
        if family == REFERENCE:  # the hot path: most matches are uses
            names = captures.get("name")
            if not names:
                continue
            name_node = names[0]
            start, end = name_node.byte_range
            if start == end or (within is not None and not within[0] <= start < within[1]):
                continue  # (a zero-width MISSING node that error recovery inserted)
            key = (start, role)
            if key in refs:
                continue
            raw = src[start:end]
            line, col = name_node.start_point
            # A name on one line ends its length further (end_point costs more than this)
            end_line, end_col = (line, col + end - start) if b"\n" not in raw else (
                name_node.end_point)
            if ascii_only or (wide is not None and line == end_line and line not in wide):
                span = new_tuple(Span, (line, col, col, end_line, end_col, end_col))
            else:
                span = positions.span(name_node)
            name = raw.decode("utf-8", "replace")
            if name[:1] in _NAME_DECORATION:
                name = undecorated(name)
            receivers = captures.get("receiver")
            if receivers is None:
                receiver = None
            else:
                receiver_start, receiver_end = receivers[0].byte_range
                text = src[receiver_start:receiver_end]
                receiver = receiver_texts.get(text)
                if receiver is None:
                    receiver = receiver_texts[text] = receiver_text(text, dotted)
                if go_receivers is not None:
                    receiver = go_receivers.receiver(receivers[0], receiver)
                elif py_receivers is not None:
                    receiver = py_receivers.receiver(receivers[0], receiver)
            refs[key] = new_tuple(RefFact, (name, role, span, receiver))
            continue
        if family == IMPORT:
            statement = captures["import"][0]
            if within is None or within[0] <= statement.start_byte < within[1]:
                _collect_import(src, captures, imports)
            if within is not None and (statement.start_byte < within[0]
                                       or statement.end_byte > within[1]):
                crossing = True
            continue
        if family == DOC:  # a documentation comment's `{@link X}` (doclinks.py)
            for start, use in doc_uses(src, captures["doc"][0], positions.ucol):
                if (within is None or within[0] <= start < within[1]) and (
                        start, "doc") not in refs:
                    refs[(start, "doc")] = use
            continue
        names = captures.get("name")
        if not names:
            continue
        name_node = names[0]
        start, end = name_node.byte_range
        if start == end:
            continue  # a zero-width MISSING node that error recovery inserted
        if within is not None and not with_definitions:
            continue
        add_definition(spec, src, pattern, role, captures, name_node, defs)
    # (start byte, kind) orders uses as (line, column, kind) does, compared in C
    ordered_refs = [refs[key] for key in sorted(refs)]
    imports.sort(key=lambda i: i.line)
    return [d for _pattern, d in defs.values()], ordered_refs, imports, crossing


def add_definition(
    spec: LanguageSpec, src: bytes, pattern: int, role: str,
    captures: dict[str, list[ts.Node]], name_node: ts.Node,
    defs: dict[tuple[int, int, int], tuple[int, Definition]],
) -> None:
    """Record the definition of one match of pattern ``pattern`` (capture ``role``) in
    ``defs``, keyed by (node, name node): the earliest pattern wins; locals are skipped."""
    node = captures[role][0]
    identity = (node.start_byte, node.end_byte, name_node.start_byte)
    if identity in defs and defs[identity][0] <= pattern:
        return
    if is_local(node, spec.local_scopes):
        return
    explicit = captures.get("container.name")
    defs[identity] = (pattern, Definition(
        node.start_byte, node.end_byte, name_of(src, name_node), role[len("definition."):],
        node, name_node, text_of(src, explicit[0]).replace("::", ".") if explicit else None,
    ))


def _collect_import(
    src: bytes, captures: dict[str, list[ts.Node]], imports: list[ImportFact]
) -> None:
    modules = captures.get("import.module")
    statement = captures["import"][0]
    if not modules:
        return
    module = text_of(src, modules[0]).strip("'\"<>` ")
    aliases = captures.get("import.alias")
    alias = text_of(src, aliases[0]) if aliases else None
    names: list[str | None] = [text_of(src, node) for node in captures.get("import.name", ())]
    for name in names or [None]:
        imports.append(ImportFact(module, name, alias, statement.start_point[0]))


def place(
    spec: LanguageSpec, d: Definition, parent_qualified: str | None, parent_kind: str | None
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


def nest(
    spec: LanguageSpec, src: bytes, defs: list[Definition], positions: Positions
) -> list[SymbolFact]:
    """Give each definition its container (nearest enclosing definition) and a unique id."""
    defs.sort(key=lambda d: (d.start, -d.end))
    stack: list[tuple[Definition, str, str]] = []  # (def, qualified name, kind)
    symbols: list[SymbolFact] = []
    used: dict[str, int] = {}
    for d in defs:
        # Pop what ended before this one, and a same-node sibling (`attr_reader :a, :b`
        # defines two names with one node: they are siblings, not nested).
        while stack and (stack[-1][0].end < d.end or (
                stack[-1][0].start, stack[-1][0].end) == (d.start, d.end)):
            stack.pop()
        parent = stack[-1] if stack else None
        container, kind, qualified = place(
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
