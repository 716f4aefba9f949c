"""Open editor buffers: their text, their kept syntax tree, and incremental edits.

An edit is applied to the kept tree with ``Tree.edit`` and the buffer is re-parsed
with the old tree, which lets tree-sitter reuse every untouched subtree: that is what
keeps a keystroke in a 2,000-line file in the low milliseconds.

Bringing the facts up to date is a second step (:meth:`Document.settle`) that a caller
may put off: until then the tree and text are the new ones and :attr:`Document.facts`
are those of the last settled text, and :meth:`Document.definitions_named` reads one
name's definitions straight from the new tree, exactly as a full extraction would.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import tree_sitter as ts

from codekeep.analysis.extract import (
    Definition,
    extract,
    extract_uses,
    signature_of,
    utf16_units,
)
from codekeep.analysis.facts import FileFacts, RefFact, Span, SymbolFact
from codekeep.analysis.go_scopes import whole_declarations
from codekeep.analysis.lookup import definitions_named
from codekeep.analysis.parsing import parser_for, valid_utf8
from codekeep.analysis.python_scopes import module_bindings_changed
from codekeep.analysis.reextract import edge_keys, extract_window, renest
from codekeep.analysis.registry import LanguageSpec

# A window over most of the file (an edit that opened a string or broke the enclosing
# class makes tree-sitter report the rest of the file as changed) costs 10-25% more than
# extracting the whole file (measured on a 2,000-line file), so past this share of the
# file's bytes the whole file is extracted.
WINDOW_MAX_SHARE = 0.75


class EditError(ValueError):
    """An edit whose range does not exist in the buffer (the buffer is left untouched)."""


def _line_starts(data: bytes) -> list[int]:
    starts = [0]
    find = data.find
    index = find(b"\n")
    while index >= 0:
        starts.append(index + 1)
        index = find(b"\n", index + 1)
    return starts


class _Owed(NamedTuple):
    """An edit whose facts are still to be extracted: the text and trees before and
    after it, which is what its incremental update reads (see :meth:`Document.settle`)."""

    edited: ts.Tree  # the tree before the edit, edited into the new text's positions
    before: _Before
    old_end_point: tuple[int, int]
    new_end_point: tuple[int, int]
    start_byte: int
    new_end_byte: int
    tree: ts.Tree
    data: bytes
    line_starts: list[int]


# Past this many owed edits their texts are let go and the whole file is extracted.
MAX_OWED = 32


@dataclass
class Document:
    spec: LanguageSpec
    data: bytes
    tree: ts.Tree
    facts: FileFacts
    line_starts: list[int]
    # The edits :meth:`settle` still has to apply to ``facts``, oldest first; None: the
    # file is to be extracted whole (more than MAX_OWED edits).
    owed: list[_Owed] | None = field(default_factory=list)

    @classmethod
    def parse(cls, spec: LanguageSpec, data: bytes) -> Document:
        data = valid_utf8(data)  # (a buffer's lone surrogates, encoded with surrogatepass)
        tree = parser_for(spec).parse(data)
        return cls(spec, data, tree, extract(spec, data, tree), _line_starts(data))

    def offset(self, line: int, byte_col: int) -> int:
        """Byte offset of (line, byte column); columns past the line end clamp to it."""
        if line < 0 or byte_col < 0:
            raise EditError(f"negative position ({line}, {byte_col})")
        if line >= len(self.line_starts):
            if line == len(self.line_starts) and byte_col == 0:
                return len(self.data)
            raise EditError(f"line {line} is past the end ({len(self.line_starts)} lines)")
        start = self.line_starts[line]
        end = self.line_starts[line + 1] - 1 if line + 1 < len(self.line_starts) else len(
            self.data)
        return min(start + byte_col, end)

    def line(self, number: int) -> tuple[int, bytes]:
        """Line ``number`` without its ``\\n`` (a ``\\r`` stays); the last line, with its
        number, when ``number`` is not a line of the buffer. No copy of the whole text."""
        starts = self.line_starts
        if not 0 <= number < len(starts):
            number = len(starts) - 1
        end = starts[number + 1] - 1 if number + 1 < len(starts) else len(self.data)
        return number, self.data[starts[number]:end]

    def _point(self, offset: int) -> tuple[int, int]:
        # Binary search over line starts: the row containing ``offset``.
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo, offset - self.line_starts[lo]

    @property
    def settled(self) -> bool:
        """Are :attr:`facts` those of the current text?"""
        return self.owed is not None and not self.owed

    def apply_edit(
        self, start: tuple[int, int], end: tuple[int, int], new_text: str
    ) -> None:
        """Replace the text between two (line, byte column) positions, re-parse, and
        bring the facts up to date."""
        self.edit(start, end, new_text)
        self.settle()

    def edit(self, start: tuple[int, int], end: tuple[int, int], new_text: str) -> None:
        """Replace the text between two (line, byte column) positions and re-parse; the
        facts are owed until :meth:`settle`."""
        start_byte = self.offset(*start)
        old_end_byte = self.offset(*end)
        if old_end_byte < start_byte:
            raise EditError(f"edit range ends before it starts: {start} > {end}")
        inserted = valid_utf8(new_text.encode("utf-8", "surrogatepass"))
        data = self.data[:start_byte] + inserted + self.data[old_end_byte:]
        start_point = self._point(start_byte)
        old_end_point = self._point(old_end_byte)
        new_end_byte = start_byte + len(inserted)
        newlines = inserted.count(b"\n")
        if newlines:
            new_end_point = (start_point[0] + newlines, len(inserted) - inserted.rfind(b"\n") - 1)
        else:
            new_end_point = (start_point[0], start_point[1] + len(inserted))
        before = _Before(self.tree, self.data, new_end_byte - old_end_byte)
        edited = self.tree.copy()
        edited.edit(
            start_byte=start_byte, old_end_byte=old_end_byte, new_end_byte=new_end_byte,
            start_point=start_point, old_end_point=old_end_point, new_end_point=new_end_point,
        )
        self.tree = parser_for(self.spec).parse(data, edited)
        self.data = data
        self._shift_lines(start_point[0], old_end_point[0], start_byte, inserted,
                          before.byte_delta)
        if self.owed is not None and len(self.owed) < MAX_OWED:
            self.owed.append(_Owed(edited, before, old_end_point, new_end_point, start_byte,
                                   new_end_byte, self.tree, data, list(self.line_starts)))
        else:
            self.owed = None

    def settle(self) -> bool:
        """Bring the facts up to date with the text; False when they already were.

        Each owed edit is applied in turn as it was made (a function body or a window
        of changed lines re-extracted, the rest kept or moved), against the text and
        trees of its moment; past :data:`MAX_OWED` edits the file is extracted whole.
        """
        owed, self.owed = self.owed, []
        if owed is not None and not owed:
            return False
        if owed is None:
            self.facts = extract(self.spec, self.data, self.tree)
            return True
        now = self.tree, self.data, self.line_starts
        try:
            for step in owed:
                self.tree, self.data, self.line_starts = step.tree, step.data, step.line_starts
                self.facts = self._updated(step)
        finally:
            self.tree, self.data, self.line_starts = now
        return True

    def _updated(self, owed: _Owed) -> FileFacts:
        """The facts after one edit, from those before it (the buffer's text and tree
        are those right after it)."""
        edited, before = owed.edited, owed.before
        edit = _Edit(owed.old_end_point, owed.new_end_point, self.data, self.line_starts)
        changed = [(r.start_byte, r.end_byte) for r in edited.changed_ranges(self.tree)]
        lo = min([owed.start_byte] + [r[0] for r in changed])
        hi = max([owed.new_end_byte] + [r[1] for r in changed])
        lo, hi = _widened_for_recovery(edited, self.tree, lo, hi,
                                       int(len(self.data) * WINDOW_MAX_SHARE))
        spliced = self._splice(lo, hi, edit)
        python = self.spec.import_style == "python"
        if spliced is None and python and module_bindings_changed(
                before.data, self.data, owed.start_byte, owed.new_end_byte):
            # a module-level binding changed: the receivers typed by it anywhere in the
            # file may change (python_scopes), so nothing kept is sure
            return extract(self.spec, self.data, self.tree)
        if spliced is None and (self.spec.import_style == "go" or python):
            # what a use records depends on its scopes' bindings up to the top-level
            # definition around it (go_scopes, python_scopes): re-extract all of it
            lo, hi = whole_declarations(self.tree.root_node, lo, hi)
        if spliced is None and (hi - lo) < len(self.data) * WINDOW_MAX_SHARE:
            spliced = self._splice_window(lo, hi, edit, before)
        return spliced if spliced is not None else extract(self.spec, self.data, self.tree)

    def definitions_named(self, name: str) -> list[SymbolFact] | None:
        """The symbols called ``name`` in the current text, as a full extraction gives
        them, read from the tree without extracting the file; None when the name
        occurs too often in the text for that to be the cheaper way. (Asked only while
        the facts are owed: settled facts are in the index.)"""
        return definitions_named(self.spec, self.data, self.tree, name)

    def _local_body(self, lo: int, hi: int) -> tuple[ts.Node, ts.Node] | None:
        """The innermost local scope whose body holds every changed byte, with that body."""
        node: ts.Node | None = self.tree.root_node.descendant_for_byte_range(lo, hi)
        # Python: the outermost one, since a use's recorded receiver type depends on the
        # bindings of every function around it (python_scopes)
        outermost = self.spec.import_style == "python"
        found = None
        while node is not None:
            if node.type in self.spec.local_scopes:
                for field_name in self.spec.body_fields:
                    body = node.child_by_field_name(field_name)
                    if body is not None and body.start_byte <= lo and hi <= body.end_byte:
                        if not outermost:
                            return node, body
                        found = node, body
            node = node.parent
        return found

    def _splice(self, lo: int, hi: int, edit: _Edit) -> FileFacts | None:
        """New facts from old ones plus a re-extracted local body; None: extract it all.

        Nothing inside a local scope is a definition, so when every change lies inside
        one function body only the uses in that body are re-extracted; facts before it
        are kept and facts after it are moved by the edit's line/column shift.
        """
        found = self._local_body(lo, hi)
        if found is None:
            return None
        scope, body = found
        refs, imports = extract_uses(self.spec, self.data, scope, body.start_byte, body.end_byte)
        first = body.start_point
        old_last = edit.to_old(body.end_point)
        old = self.facts
        if any(i.line in (first[0], old_last[0]) for i in old.imports):
            return None  # an import sharing a line with the body's ends: too ambiguous
        first_key, last_key = (first[0], first[1]), old_last
        kept_refs = [r for r in old.refs if (r.span.line, r.span.col) < first_key]
        if any((r.span.end_line, r.span.end_col) > first_key for r in kept_refs):
            return None  # an old name reaching into the body (a name may span lines)
        moved_refs = [
            edit.shift_ref(r) for r in old.refs if (r.span.line, r.span.col) >= last_key
        ]
        symbols = tuple(
            s if (s.span.end_line, s.span.end_col) < first_key
            else edit.shift_symbol(s)
            for s in old.symbols
            # definitions the edit pulled into the body are locals now
            if not first_key <= (s.span.line, s.span.col) < last_key
        )
        if not self._enclosing_ends_match(symbols, scope, first_key, self._point(lo)[0]):
            return None
        spliced_imports = (
            [i for i in old.imports if i.line < first[0]] + imports
            + [i._replace(line=i.line + edit.line_delta) for i in old.imports
               if i.line > old_last[0]]
        )
        return FileFacts(symbols, tuple(kept_refs + refs + moved_refs), tuple(spliced_imports))

    def _splice_window(
        self, lo: int, hi: int, edit: _Edit, before: _Before
    ) -> FileFacts | None:
        """New facts from old ones plus the changed lines re-extracted; None: extract all.

        For changes outside function bodies (a signature, a class body, module level):
        the query runs over the changed lines only; definitions overlapping them are
        rebuilt from the new tree, everything else is kept or moved by the edit's shift.
        """
        first_row = self._point(lo)[0]
        last_row = self._point(max(lo, hi - 1))[0]
        # Whole lines in both the new and the old text: grow the window until its end is
        # a line start before the edit too (text ending in a newline ends mid-line there).
        while edit.to_old((last_row + 1, 0))[1] != 0:
            last_row += 1
        first, after = (first_row, 0), (last_row + 1, 0)
        old_after = edit.to_old(after)
        start = self.line_starts[first_row]
        end = (self.line_starts[last_row + 1] if last_row + 1 < len(self.line_starts)
               else len(self.data))
        window = extract_window(self.spec, self.data, self.tree, start, end)
        if window is None or not before.same_edges(self.spec, self.data, self.tree, start, end):
            return None
        old = self.facts
        fresh_names = {(tuple(d.name_node.start_point), d.name) for d in window.definitions}
        kept: list[SymbolFact] = []
        for symbol in old.symbols:
            span = symbol.span
            if (span.end_line, span.end_col) <= first:
                moved = symbol
            elif (span.line, span.col) >= old_after:
                moved = edit.shift_symbol(symbol)
            else:
                continue  # overlaps the changed lines: re-extracted
            name_at = (moved.name_span.line, moved.name_span.col)
            if (name_at, moved.name) not in fresh_names:
                kept.append(moved)
        merged = renest(self.spec, self.data, kept, window.definitions)
        if merged is None:
            return None
        symbols, enclosers = merged
        if enclosers and not self._enclosers_unchanged(enclosers, old.symbols, symbols, edit):
            return None
        refs = (
            [r for r in old.refs if (r.span.line, r.span.col) < first]
            + window.refs
            + [edit.shift_ref(r) for r in old.refs if (r.span.line, r.span.col) >= old_after]
        )
        imports = (
            [i for i in old.imports if i.line < first_row]
            + window.imports
            + [i._replace(line=i.line + edit.line_delta) for i in old.imports
               if i.line >= old_after[0]]
        )
        return FileFacts(tuple(symbols), tuple(refs), tuple(imports))

    @staticmethod
    def _enclosers_unchanged(
        enclosers: list[Definition], old: tuple[SymbolFact, ...], new: list[SymbolFact], edit: _Edit
    ) -> bool:
        """Kept members were named after these fresh definitions: did those stay the same?

        A definition is matched to its old self by where it starts, not where its name
        is: an edit can move a name onto the spot where another definition's name was
        (garbage swallowed by a declaration), and that one never enclosed the members.
        """
        before = {(s.span.line, s.span.col, s.name): s for s in old}
        by_start = {(s.span.line, s.span.col, s.name): s for s in new}
        for definition in enclosers:
            point = tuple(definition.node.start_point)
            old_point = edit.to_old((point[0], point[1]))
            was = before.get((*old_point, definition.name))
            now = by_start.get((point[0], point[1], definition.name))
            if was is None or now is None or (was.kind, was.container, was.qual) != (
                    now.kind, now.container, now.qual):
                return False
        return True

    def _enclosing_ends_match(
        self, symbols: tuple[SymbolFact, ...], scope: ts.Node, first: tuple[int, int],
        changed_row: int,
    ) -> bool:
        """Definitions around the body must end, and read, as the new tree says.

        Shifting assumes an edit inside a body leaves the enclosing definitions' ends
        where the shift puts them; text typed just past a body's end can instead grow
        the body. Their signatures (text up to the body) must not change either: a
        definition starting on the changed line, or whose body now starts elsewhere
        (a comment line became a statement), fails. Then the caller re-extracts.
        """
        ancestors: dict[tuple[tuple[int, int], tuple[int, int]], ts.Node] = {}
        node: ts.Node | None = scope
        while node is not None:
            (line, col), (end_line, end_col) = node.start_point, node.end_point
            ancestors.setdefault(((line, col), (end_line, end_col)), node)
            node = node.parent
        for symbol in symbols:
            span = symbol.span
            if not (span.line, span.col) < first <= (span.end_line, span.end_col):
                continue
            found = ancestors.get(((span.line, span.col), (span.end_line, span.end_col)))
            if found is None or span.line == changed_row or symbol.signature != signature_of(
                    self.data, found, self.spec.body_fields):
                return False
        return True

    def _shift_lines(
        self, first: int, last: int, start_byte: int, inserted: bytes, delta: int
    ) -> None:
        """Update line starts for an edit that replaced lines ``first..last``."""
        new_starts = [start_byte + i + 1 for i, b in enumerate(inserted) if b == 10]
        tail = [s + delta for s in self.line_starts[last + 1:]]
        self.line_starts[first + 1:] = new_starts + tail


def _widened_for_recovery(
    old: ts.Tree, new: ts.Tree, lo: int, hi: int, enough: int
) -> tuple[int, int]:
    """``lo..hi`` grown over the places where error recovery placed its nodes
    differently in the two trees (``old`` already edited into the new text's positions).

    Tree-sitter re-parses the fragile nodes of error recovery, so their structure can
    change away from the edit (``std::li<newline>st<...>`` reads as another type name
    after a ':' typed three lines up; an ERROR keeps its range but not its children)
    without ``changed_ranges`` reporting it. Both trees are walked down together through
    the nodes holding an error (inside an ERROR: every node), pairing children by type
    and range; a subtree the new tree reused is the very same node (same id) and is not
    entered, and a node without a twin grows the range. A keystroke inside an ERROR that
    spans half the file (an open docstring) so costs the path to the edit, not the
    file. A pair already inside the range cannot grow it. Once the range is ``enough``
    bytes long the whole file is returned: past that the window gives way to a whole
    extraction (and a body splice of that much is rare), so the rest of the walk (every
    node error recovery made anew, 12k of them in a 2,500-line file with an open
    docstring) would be spent for nothing.
    """
    if not (old.root_node.has_error or new.root_node.has_error):
        return lo, hi
    pending = [(old.root_node, new.root_node, False)]
    while pending:
        if hi - lo >= enough:
            return 0, new.root_node.end_byte
        before, after, in_error = pending.pop()
        if before.id == after.id or (lo <= after.start_byte and after.end_byte <= hi):
            continue
        in_error = in_error or before.is_error or after.is_error
        old_children = before.children if in_error else [
            c for c in before.children if c.has_error]
        new_children = after.children if in_error else [
            c for c in after.children if c.has_error]
        new_ids = {c.id for c in new_children}
        old_ids: set[int] = set()
        # (byte range, symbol) -> the old children there the new tree did not reuse
        twins: dict[tuple[tuple[int, int], int], list[ts.Node]] = {}
        for child in old_children:
            child_id = child.id
            old_ids.add(child_id)
            if child_id not in new_ids:
                twins.setdefault((child.byte_range, child.kind_id), []).append(child)
        grown = []
        for child in new_children:
            if child.id in old_ids:
                continue
            same_place = twins.get((child.byte_range, child.kind_id))
            if not same_place:
                grown.append(child)
                continue
            twin = same_place.pop(0)
            if child.child_count or twin.child_count:  # two twin tokens: nothing below
                pending.append((twin, child, in_error))
        grown += [child for left in twins.values() for child in left]
        for child in grown:
            start, end = child.byte_range
            lo, hi = min(lo, start), max(hi, end)
    return lo, hi


class _Before:
    """The buffer as it was before an edit (the edit goes to a shallow copy of the tree,
    so this one keeps the old positions): what a window's edges looked like then."""

    def __init__(self, tree: ts.Tree, data: bytes, byte_delta: int):
        self.tree = tree
        self.data = data
        self.byte_delta = byte_delta

    def same_edges(
        self, spec: LanguageSpec, data: bytes, tree: ts.Tree, start: int, end: int
    ) -> bool:
        """Do the nodes crossing the window ``start..end`` (new text) read as before?"""
        old_end = end - self.byte_delta
        return edge_keys(spec, self.data, self.tree, start, old_end, self.byte_delta) == (
            edge_keys(spec, data, tree, start, end))


class _Edit:
    """Moves positions that lie after an edit from old to new coordinates (and back)."""

    def __init__(self, old_end: tuple[int, int], new_end: tuple[int, int], data: bytes,
                 line_starts: list[int]):
        self.old_end = old_end
        self.new_end = new_end
        self.line_delta = new_end[0] - old_end[0]
        self._data = data
        self._line_starts = line_starts

    def to_old(self, point: tuple[int, int]) -> tuple[int, int]:
        row, col = point
        if row > self.new_end[0]:
            return row - self.line_delta, col
        if row == self.new_end[0] and col >= self.new_end[1]:
            return self.old_end[0], col - self.new_end[1] + self.old_end[1]
        return row, col

    def _moved(self, row: int, col: int, ucol: int) -> tuple[int, int, int]:
        old_row, old_col = self.old_end
        if row > old_row:
            return row + self.line_delta, col, ucol
        if row == old_row and col >= old_col:
            new_row = self.new_end[0]
            new_col = col - old_col + self.new_end[1]
            start = self._line_starts[new_row]
            prefix = self._data[start:start + new_col]
            new_ucol = new_col if prefix.isascii() else utf16_units(prefix)
            return new_row, new_col, new_ucol
        return row, col, ucol

    def shift(self, span: Span) -> Span:
        if not self.line_delta and span.line > self.old_end[0]:
            return span  # on a later line of an edit that added no lines: unmoved
        line, col, ucol = self._moved(span.line, span.col, span.ucol)
        end_line, end_col, end_ucol = self._moved(span.end_line, span.end_col, span.end_ucol)
        return Span(line, col, ucol, end_line, end_col, end_ucol)

    def shift_symbol(self, symbol: SymbolFact) -> SymbolFact:
        """The symbol moved by the edit; the same object when the edit does not move it
        (most of a file after a keystroke), so later comparisons stop at identity."""
        span, name_span = self.shift(symbol.span), self.shift(symbol.name_span)
        if span is symbol.span and name_span is symbol.name_span:
            return symbol
        return symbol._replace(span=span, name_span=name_span)

    def shift_ref(self, ref: RefFact) -> RefFact:
        span = self.shift(ref.span)
        return ref if span is ref.span else ref._replace(span=span)
