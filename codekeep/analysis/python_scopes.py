"""Python: what a member use's receiver is an instance of, written down at extraction.

The code map has no type checker, but the class of many Python receivers is written a
few lines up: ``s = TaggedJSONSerializer()`` and then ``s.register(...)``, a parameter
``app: Flask``, ``x: Flask | None = ...``. For ``x.m()`` extraction records, after the
receiver's name, a *type expression* that the query side
(:mod:`codekeep.analysis.python_types`) evaluates against the index, where other
files' classes are known::

    expr := NAME            # an annotation: an instance of the class NAME (or mod.NAME)
          | NAME "()"       # a call of NAME, capitalised as PEP 8 names classes

``x.m()`` is stored with the receiver ``x:EXPR`` (as Go's receivers are, see
``facts.RefFact``); a receiver nothing is known about stays its plain name. A
function's result (``x = make_app()``) is not recorded: reading every such local
closely cost the cold index about a third more.

Which binding a name has follows Python's scopes: the innermost function around the
use that binds the name anywhere (its parameters, assignments, ``for``/``with``/
``except`` targets, imports) owns it, and there the last binding written before the
use decides; a name no function binds is the module's, typed when the module binds it
once. Only names some line assigns an instance or annotates (one pass per function, in
C), and annotated parameters, are read closely: each occurrence of the name is then
read against its line. A binding that is not understood (``a, x = ...``, ``for x in
...``, ``x = y or z``) makes the receiver unknown, never a guess.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:  # the query side imports this module's text helpers without a parser
    import tree_sitter as ts

_CALLEE = re.compile(r"([A-Za-z_][\w.]*)[ \t]*\(")
_TYPE_NAME = re.compile(r"[A-Za-z_][\w.]*")
_OPTIONAL = re.compile(r"(?:(?:typing|t)\.)?Optional\[(.*)\]")
_CALL = re.compile(rb"[\w)\]][ \t]*\(")  # a bracket that calls, not one that groups
_NOT_TYPED = frozenset({"self", "cls", "super"})
MAX_LENGTH = 200  # characters of a stored type expression

Bindings = dict[str, list[tuple[int, str | None]]]  # name -> (byte offset, expr or None)


def bracketed_parts(signature: str) -> list[str]:
    """The comma-separated parts of the first bracketed list in ``signature`` (``def
    f(a, b: dict[str, int])`` -> "a", " b: dict[str, int]"), split at the commas outside
    inner brackets; empty when it has none."""
    start = signature.find("(")
    if start < 0:
        return []
    parts: list[str] = []
    part: list[str] = []
    depth = 0
    for char in signature[start + 1:]:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(part))
            part = []
            continue
        part.append(char)
    parts.append("".join(part))
    return parts


def annotation_type(text: str) -> str | None:
    """The class an annotation names (``Flask``, ``"Flask"``, ``Flask | None``,
    ``t.Optional[Flask]``, ``sansio.App``), or None when it names anything else (a
    union of classes, a generic, a protocol of the standard library we cannot tell)."""
    text = text.strip().strip("'\"").strip()
    optional = _OPTIONAL.fullmatch(text)
    if optional is not None:
        text = optional.group(1).strip().strip("'\"")
    parts = [part.strip().strip("'\"") for part in text.split("|")]
    named = [part for part in parts if part != "None"]
    if len(named) != 1 or not _TYPE_NAME.fullmatch(named[0]):
        return None
    return named[0]


def value_type(text: str) -> str | None:
    """The expression of an assigned value when it is a call of a (dotted) class name,
    capitalised as PEP 8 names classes: ``TaggedJSONSerializer()``, ``pkg.Flask(...)``;
    else None. (A function's result would need its return annotation: reading every
    ``x = f()`` closely cost the cold index a third more.)"""
    text = text.strip()
    call = _CALLEE.match(text)
    if call is None or text.endswith(","):  # (a keyword argument on its own line)
        return None
    if not call.group(1).rsplit(".", 1)[-1].lstrip("_")[:1].isupper():
        return None
    if _closing(text, call.end() - 1) != len(text) - 1:
        return None  # `Foo(x).bar`, `Foo() or y`: not the call's own result
    return f"{call.group(1)}()"


def _closing(text: str, opening: int) -> int:
    """Where the bracket opened at ``opening`` closes (-1 when not on this line)."""
    depth = 0
    for at in range(opening, len(text)):
        char = text[at]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return at
    return -1


def parameters(text: str) -> dict[str, str | None]:
    """A ``def``'s parameters (its parenthesised list) -> their annotated class or None."""
    found: dict[str, str | None] = {}
    for part in bracketed_parts(text):
        name, colon, annotation = part.split("=", 1)[0].partition(":")
        name = name.strip().lstrip("*").strip()
        if name.isidentifier():
            found[name] = annotation_type(annotation) if colon else None
    return found


_TARGETS = re.compile(rb"[\w \t,*()\[\].]*")  # what a tuple of targets is made of
_IMPORTS = (b"import ", b"from ")
_BEFORE_NAME = re.compile(rb"[\w.]")
# A line that starts by assigning a name an instance (`x = Foo(`, `x = mod.Foo(`) or
# annotating it (`x: T`): its name. Only such names (and annotated parameters) can be
# typed, so only theirs are read closely.
_ASSIGNED = re.compile(
    rb"^[ \t]*([A-Za-z_]\w*)[ \t]*(?:=[ \t]*(?:[A-Za-z_]\w*\.)*_*[A-Z]\w*\(|:[ \t]*[\w'\"])",
    re.MULTILINE)
_NOT_MODULE_CODE = (b"", b" ", b"\t", b"#", b"@", b"\r")
_DEFINITIONS = (b"def ", b"async def ", b"class ")
_COMPARISONS = (b"==", b"<=", b">=", b"!=")
_HEADERS = (b"import ", b"from ", b"global ", b"nonlocal ", b"def ", b"async def ",
            b"class ")
_NAME_PATTERNS: dict[str, re.Pattern[bytes]] = {}  # name -> its pattern (see bindings)
Binding = tuple[int, str | None]  # (byte offset, type expression or None: unknown)
Scopes: TypeAlias = "tuple[tuple[ts.Node, ...], bool, bool]"  # see PythonReceivers._scopes


def bindings(text: bytes, name: str, start: int = 0, end: int | None = None,
             top_level_only: bool = False) -> list[Binding]:
    """The bindings of ``name`` in bytes ``start..end`` of ``text``, in order: each
    occurrence of the name is read against its line (see module doc); ``top_level_only``:
    only on lines not indented (a module's own)."""
    found: list[Binding] = []
    # (the literal first: the engine then searches for it in C; a lookbehind before it
    # would be tried at every byte)
    pattern = _NAME_PATTERNS.get(name)
    if pattern is None:
        if len(_NAME_PATTERNS) > 4096:
            _NAME_PATTERNS.clear()
        pattern = _NAME_PATTERNS[name] = re.compile(re.escape(name.encode()) + rb"(?!\w)")
    for match in pattern.finditer(text, start, len(text) if end is None else end):
        at, after = match.span()
        if at and _BEFORE_NAME.match(text, at - 1):
            continue  # the tail of a longer name, or an attribute (`.name`)
        line = text.rfind(b"\n", 0, at) + 1
        if top_level_only and text[line:line + 1] in (b" ", b"\t"):
            continue
        stop = text.find(b"\n", after)
        kind = _binding(text[line:at], text[after:len(text) if stop < 0 else stop])
        if kind is not False and kind is not True:
            found.append((at, kind))
    return found


def _binding(before: bytes, after: bytes) -> str | bool | None:
    """How a line binds the name between ``before`` and ``after``: with a type
    expression, unknown (None), or not at all (False)."""
    lead = before.strip()
    rest = after.lstrip()
    if not lead:
        if rest.startswith(b"=") and not rest.startswith(b"=="):
            return value_type(rest[1:].decode("utf-8", "replace"))
        if rest.startswith(b":") and not rest.startswith(b":="):
            annotation = rest[1:].split(b"=", 1)[0].decode("utf-8", "replace")
            return annotation_type(annotation) if annotation.strip() else False
        if rest.startswith(b","):
            return None if _assigns(rest) else False
        return None if rest.startswith(b":=") else False
    if rest.startswith(b":="):
        return None
    if lead.endswith(b" as") or lead == b"as":
        return None
    if b"for " in before and b" in " in after:
        return None  # a loop's or a comprehension's target
    if lead.startswith(_HEADERS):
        # an import ("": the name is a module's, see PythonReceivers), a declaration, a
        # nested definition
        return "" if lead.startswith(_IMPORTS) else None
    if b"," in lead and _TARGETS.fullmatch(lead) and _assigns(rest):
        return None  # one of a tuple of targets
    return False


def _assigns(rest: bytes) -> bool:
    """Whether the text after a target is the rest of an assignment's targets: an ``=``
    (not a comparison) before any call's bracket."""
    at = rest.find(b"=")
    while at > 0 and rest[at - 1:at + 1] in _COMPARISONS:
        at = rest.find(b"=", at + 1)
    if at < 0 or rest[at:at + 2] == b"==":
        return False
    targets = rest[:at]
    return _TARGETS.fullmatch(targets) is not None and _CALL.search(targets) is None


def module_lines(src: bytes) -> list[tuple[int, bytes]]:
    """A module's unindented lines that may bind a name (not a definition's header, a
    decorator or a comment), with their offsets: where a module's own bindings are."""
    found: list[tuple[int, bytes]] = []
    at = 0
    for line in src.split(b"\n"):
        if line[:1] not in _NOT_MODULE_CODE and not line.startswith(_DEFINITIONS):
            found.append((at, line))
        at += len(line) + 1
    return found


def module_bindings_changed(before: bytes, after: bytes, start: int, new_end: int) -> bool:
    """Whether an edit of ``before`` into ``after`` (bytes ``start`` to ``new_end`` of
    ``after`` are new, the rest is as it was) changed the module's own lines: an edit
    that leaves them as they were leaves every receiver they type as it was (the
    live-edit window's test). Only the lines the edit touched are compared — the others
    are the same text on both sides — so a keystroke does not split the whole file."""
    old_end = new_end + len(before) - len(after)
    first = before.rfind(b"\n", 0, start) + 1  # the same offset in both texts
    old_last, new_last = before.find(b"\n", old_end), after.find(b"\n", new_end)
    old_lines = before[first:old_last if old_last >= 0 else len(before)]
    new_lines = after[first:new_last if new_last >= 0 else len(after)]
    return ([line for _at, line in module_lines(old_lines)]
            != [line for _at, line in module_lines(new_lines)])


class PythonReceivers:
    """Receiver strings for one Python file's member uses; scopes read as needed."""

    def __init__(self, src: bytes):
        self._src = src
        self._chains: dict[int, Scopes] = {}  # node id -> what is around it (see _scopes)
        # (function start byte, name) -> its parameters' types and the name's bindings
        self._functions: dict[int, dict[str, str | None]] = {}
        self._bound: dict[tuple[int, str], list[Binding]] = {}
        self._module: tuple[bytes, list[int], list[int]] | None = None
        self._candidates: dict[int, frozenset[str]] = {}  # see _assigned
        self._parameter_texts: dict[int, bytes] = {}

    def receiver(self, operand: ts.Node, identifier: str) -> str:
        """``identifier`` plus ``:EXPR`` when what it holds is known (see module doc)."""
        if not identifier or "." in identifier or identifier in _NOT_TYPED:
            return identifier
        expr = self._type_of(operand, identifier)
        if expr is None or len(expr) > MAX_LENGTH:
            return identifier
        return f"{identifier}:{expr}"

    def _type_of(self, operand: ts.Node, name: str) -> str | None:
        functions, in_lambda, in_module_body = self._scopes(operand)
        if in_lambda:
            return None  # (a lambda's parameters are not read: it may bind the name)
        if not any(name in self._assigned(function) for function in functions) and (
                name not in self._assigned(None)) and not any(
                self._parameters(function, name).get(name) for function in functions):
            return None  # no line assigns it an instance, no annotation: nothing types it
        module = self._bindings(None, name)
        if module and all(expr == "" for _offset, expr in module):
            return None  # an imported module's name (a local of that name is not worth a look)
        at = operand.start_byte
        for function in functions:
            body = function.child_by_field_name("body")
            found = self._bindings(body, name) if body is not None else []
            params = self._parameters(function, name)
            if name in params or found:
                before = [expr for offset, expr in found if offset < at]
                if before:
                    return before[-1] or None
                return params.get(name)  # (bound only later: a local read first)
        if len(module) == 1:
            return module[0][1] or None
        before = [expr for offset, expr in module if offset < at]
        return (before[-1] or None) if before and in_module_body else None

    def _scopes(self, operand: ts.Node) -> Scopes:
        """The functions around ``operand`` (innermost first), whether a lambda is
        around it, and whether it is in the module's own code (outside every function
        and class); each node's answer is kept, so the uses of one body walk up once."""
        walked: list[ts.Node] = []
        node = operand.parent
        while node is not None and node.id not in self._chains:
            walked.append(node)
            node = node.parent
        scopes: Scopes = self._chains[node.id] if node is not None else ((), False, True)
        for node in reversed(walked):
            kind = node.type
            functions, in_lambda, in_module_body = scopes
            if kind == "function_definition":
                scopes = ((node, *functions), in_lambda, False)
            elif kind == "lambda":
                scopes = (functions, True, in_module_body)
            elif kind == "class_definition":
                scopes = (functions, in_lambda, False)
            self._chains[node.id] = scopes
        return scopes

    def _assigned(self, function: ts.Node | None) -> frozenset[str]:
        """Names a line of the function's body (or the module's own lines) starts by
        assigning or annotating: the only ones a type can come from (besides the
        parameters); found in one pass, so most receivers need no closer look."""
        key = -1 if function is None else function.start_byte
        found = self._candidates.get(key)
        if found is None:
            if function is None:
                text = self._module_text()[0]
            else:
                body = function.child_by_field_name("body")
                text = self._src[body.start_byte:body.end_byte] if body is not None else b""
            found = self._candidates[key] = frozenset(
                match.decode("utf-8", "replace") for match in _ASSIGNED.findall(text))
        return found

    def _parameter_text(self, function: ts.Node) -> bytes:
        found = self._parameter_texts.get(function.start_byte)
        if found is None:
            params = function.child_by_field_name("parameters")
            found = self._parameter_texts[function.start_byte] = (
                self._src[params.start_byte:params.end_byte] if params is not None else b"")
        return found

    def _parameters(self, node: ts.Node, name: str) -> dict[str, str | None]:
        found = self._functions.get(node.start_byte)
        if found is None:
            text = self._parameter_text(node)
            if name.encode() not in text:
                return {}  # (not parsed: the name is none of them)
            found = self._functions[node.start_byte] = parameters(text.decode("utf-8", "replace"))
        return found

    def _bindings(self, body: ts.Node | None, name: str) -> list[Binding]:
        """The name's bindings in a function's body (nested ones' included), or the
        module's own (``body`` None)."""
        key = (-1 if body is None else body.start_byte, name)
        found = self._bound.get(key)
        if found is None:
            if body is None:
                text, starts, shifts = self._module_text()
                found = [(shifts[bisect_right(starts, offset) - 1] + offset, expr)
                         for offset, expr in bindings(text, name)]
            else:
                found = bindings(self._src, name, body.start_byte, body.end_byte)
            self._bound[key] = found
        return found

    def _module_text(self) -> tuple[bytes, list[int], list[int]]:
        """The module's own lines (see :func:`module_lines`) joined, each one's offset in
        that text, and what to add to it for the offset in the file: a name is searched
        in a few lines, not in the whole file."""
        if self._module is None:
            lines = module_lines(self._src)
            starts: list[int] = []
            shifts: list[int] = []
            at = 0
            for offset, line in lines:
                starts.append(at)
                shifts.append(offset - at)
                at += len(line) + 1
            self._module = b"\n".join(line for _offset, line in lines), starts, shifts
        return self._module

