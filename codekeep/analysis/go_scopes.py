"""Go: what a member call's receiver is, written down at extraction time.

The code map has no type checker, but in Go the declared type of most receivers is
written a few lines up: the method's receiver and the function's parameters, ``var x
T``, ``x := &T{}`` / ``T{}`` / ``NewT(...)`` / ``new(T)`` / ``y.(T)``, ``for _, x :=
range xs``, a one-type ``case`` of a type switch. For ``x.M()`` extraction records, next
to the receiver's name, a *type expression* that the query side
(:mod:`codekeep.analysis.go_types`) evaluates against the index, where other files'
signatures are known. Its grammar (``>`` separates steps)::

    expr  := base ( ">" step )*
    base  := TYPE            # as written: *Command, pflag.FlagSet, []*Flag, map[string]*Flag
           | NAME "()" [ "#" N ]  # the first (or N-th, from 0) result of function NAME
           | PKG "." NAME "()" [ "#" N ]  # ... of package PKG (or of a variable PKG)
    step  := "[]"            # an element: x[i], or the value of a range over x
           | NAME            # field NAME
           | NAME "()" [ "#" N ]  # the first (or N-th) result of method NAME

``x.M()`` is stored with the receiver ``x:EXPR`` (``:EXPR`` when the receiver is not a
plain name); a receiver nothing is known about stays as before (see ``facts.RefFact``).
Only lexical facts are used, so shadowing and order are followed as Go scopes do;
whatever is not understood gives no expression, never a guess.
"""

from __future__ import annotations

import re

import tree_sitter as ts

# Type text the evaluator understands: named types, pointers, slices, arrays, maps.
_TYPE_TEXT = re.compile(r"[\w.*\[\]]+")
_FUNCTIONS = frozenset({"function_declaration", "method_declaration", "func_literal"})
_SCOPED_HEADERS = frozenset({"if_statement", "expression_switch_statement",
                             "type_switch_statement", "for_statement", "select_statement"})
# A name not right after a `.` and not right before one (a `...` may follow).
_CANDIDATE = re.compile(r"(?<![.\w])([A-Za-z_]\w*)(?!\w)(?!\.(?!\.\.))", re.ASCII)
# Nodes whose declarations a use inside them may see (see GoReceivers._chain).
SCOPES = frozenset({"statement_list", "type_case", *_FUNCTIONS, *_SCOPED_HEADERS})
_NOT_VARIABLES = frozenset({"nil", "true", "false", "iota", "_"})
MAX_DEPTH = 16  # declarations followed back, steps chained
MAX_LENGTH = 240  # characters of a stored type expression


class _Missing:
    """Nothing in the file declares the name (unlike a declaration of unknown type)."""


_MISSING = _Missing()
Found = str | None | _Missing  # a type expression, unknown, or not declared at all
# Where a name is declared: (declaring node, index among its names) to evaluate, or a
# type as written (None: unknown), or _MISSING.
Declared = tuple[ts.Node, int] | str | None | _Missing


def _text(src: bytes, node: ts.Node) -> str:
    return src[node.start_byte:node.end_byte].decode("utf-8", "replace")


class GoReceivers:
    """Receiver strings for one Go file's member calls; scope tables built as needed."""

    def __init__(self, src: bytes, root: ts.Node):
        self._src = src
        while root.parent is not None:  # extraction may run over one body of the file
            root = root.parent
        self._root = root
        # top-level declaration id -> every name it may declare (see _may_declare), and
        # those of the declaration holding the receiver being read
        self._candidates: dict[int, frozenset[str]] = {}
        self._names: frozenset[str] = frozenset()
        # statement list id -> name -> [(start byte, declaration, index)]
        self._lists: dict[int, dict[str, list[tuple[int, ts.Node, int]]]] = {}
        self._signatures: dict[int, dict[str, str | None]] = {}  # function id -> params
        # node id -> the scopes above it, innermost first, each with the child on the path
        # (node.parent walks down from the root: each node's chain is built once)
        self._chains: dict[int, tuple[tuple[ts.Node, ts.Node], ...]] = {}
        self._declared: dict[tuple[int, str], Declared] = {}

    def receiver(self, operand: ts.Node, identifier: str) -> str:
        """``identifier`` (the receiver's name, or "") plus ``:EXPR`` when its type is known."""
        self._names = self._top_names(operand)
        expr = self.type_of(operand, 0)
        if expr is None or not _storable(expr):
            return identifier
        return f"{identifier}:{expr}"

    def type_of(self, node: ts.Node, depth: int) -> str | None:
        """The type expression of an expression node, or None."""
        if depth > MAX_DEPTH:
            return None
        kind = node.type
        if kind == "identifier":
            name = _text(self._src, node)
            return None if name in _NOT_VARIABLES else self._binding(name, node, depth)
        if kind == "parenthesized_expression":
            inner = node.named_children
            return self.type_of(inner[0], depth + 1) if inner else None
        if kind == "unary_expression":
            operator = node.child_by_field_name("operator")
            operand = node.child_by_field_name("operand")
            if operand is None or operator is None or operator.type not in ("&", "*"):
                return None
            return self.type_of(operand, depth + 1)
        if kind in ("composite_literal", "type_assertion_expression"):
            return self._type_text(node.child_by_field_name("type"))
        if kind == "index_expression":
            return self._step(node.child_by_field_name("operand"), "[]", depth)
        if kind == "selector_expression":
            operand = node.child_by_field_name("operand")
            field = node.child_by_field_name("field")
            if operand is None or field is None or self._unbound(operand):
                return None  # pkg.Var: a package variable; not followed
            return self._step(operand, _text(self._src, field), depth)
        if kind == "call_expression":
            return self._call(node, depth)
        return None

    def _step(self, operand: ts.Node | None, step: str, depth: int) -> str | None:
        base = self.type_of(operand, depth + 1) if operand is not None else None
        return f"{base}>{step}" if base is not None else None

    def _unbound(self, node: ts.Node) -> bool:
        """A plain name no local or file-level declaration binds (a package, say)."""
        return node.type == "identifier" and not self._declares(_text(self._src, node), node)

    def _call(self, node: ts.Node, depth: int) -> str | None:
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is None:
            return None
        if function.type == "identifier":
            name = _text(self._src, function)
            first = arguments.named_children[0] if arguments and arguments.named_children \
                else None
            if name in ("new", "make"):
                return self._type_text(first)
            if name == "append":
                return self.type_of(first, depth + 1) if first is not None else None
            if self._declares(name, function):
                return None  # a local function value: its type is not followed
            return f"{name}()"
        if function.type == "selector_expression":
            operand = function.child_by_field_name("operand")
            field = function.child_by_field_name("field")
            if operand is None or field is None:
                return None
            name = _text(self._src, field)
            if self._unbound(operand):
                return f"{_text(self._src, operand)}.{name}()"
            return self._step(operand, f"{name}()", depth)
        return None

    def _type_text(self, node: ts.Node | None) -> str | None:
        if node is None:
            return None
        text = _text(self._src, node)
        return text if _TYPE_TEXT.fullmatch(text) else None

    # ------------------------------------------------------------------ scopes

    def _declares(self, name: str, at: ts.Node) -> bool:
        """Whether some enclosing scope declares ``name`` at all (type known or not)."""
        return not isinstance(self._lookup(name, at, MAX_DEPTH + 1), _Missing)

    def _binding(self, name: str, at: ts.Node, depth: int) -> str | None:
        found = self._lookup(name, at, depth)
        return None if isinstance(found, _Missing) else found

    def _lookup(self, name: str, at: ts.Node, depth: int) -> Found:
        """The type of the innermost declaration of ``name`` visible at ``at`` inside its
        functions (None when unknown), or ``_MISSING`` when none declares it.

        Package-level declarations are not looked at, so what a use records depends only
        on the top-level declaration around it (the live-edit window relies on that:
        see :func:`whole_declarations`)."""
        found = self._declaration(name, at)
        if isinstance(found, tuple):
            return self._declared_type(found[0], found[1], depth)
        return found

    def _declaration(self, name: str, at: ts.Node) -> Declared:
        key = (at.id, name)
        if key in self._declared:
            return self._declared[key]
        found: Declared = _MISSING
        for scope, child in (self._chain(at) if self._may_declare(name) else ()):
            kind = scope.type
            if kind == "statement_list":
                found = self._in_list(scope, name, at.start_byte)
            elif kind in _FUNCTIONS:
                found = self._in_signature(scope, name)
            elif kind == "type_case":
                found = self._in_type_case(scope, name)
            else:
                found = self._in_header(scope, child, name)
            if not isinstance(found, _Missing):
                break
        self._declared[key] = found
        return found

    def _may_declare(self, name: str) -> bool:
        """False when the top-level declaration being read cannot declare ``name``: a
        declared name is never written right before a ``.`` (``x :=``, ``x T``, ``var
        x``, ``xs ...T``), so a name only ever written as ``name.`` there (``fmt.``,
        ``os.``: most receivers) is a package, known without walking the scopes."""
        return name in self._names or not name.isascii()

    def _top_names(self, node: ts.Node) -> frozenset[str]:
        top = self._root.first_named_child_for_byte(node.start_byte)
        if top is None:
            return frozenset()
        names = self._candidates.get(top.id)
        if names is None:
            text = self._src[top.start_byte:top.end_byte].decode("utf-8", "replace")
            names = self._candidates[top.id] = frozenset(_CANDIDATE.findall(text))
        return names

    def _chain(self, node: ts.Node) -> tuple[tuple[ts.Node, ts.Node], ...]:
        """The scopes enclosing ``node`` below the file, innermost first."""
        found = self._chains.get(node.id)
        if found is None:
            parent = node.parent
            if parent is None or parent.type == "source_file":
                found = ()
            else:
                above = self._chain(parent)
                found = ((parent, node), *above) if parent.type in SCOPES else above
            self._chains[node.id] = found
        return found

    def _in_list(self, statements: ts.Node, name: str, before: int) -> Declared:
        table = self._lists.get(statements.id)
        if table is None:
            table = self._lists[statements.id] = self._declarations(statements)
        for start, declaration, index in reversed(table.get(name, ())):
            if start < before:
                return declaration, index
        return _MISSING

    def _declarations(self, statements: ts.Node) -> dict[str, list[tuple[int, ts.Node, int]]]:
        table: dict[str, list[tuple[int, ts.Node, int]]] = {}
        for statement in statements.named_children:
            if statement.type == "short_var_declaration":
                self._add_names(table, statement, statement.child_by_field_name("left"))
            elif statement.type == "var_declaration":
                for spec in statement.named_children:
                    if spec.type == "var_spec":
                        self._add_names(table, spec, spec)
                    elif spec.type == "var_spec_list":
                        for inner in spec.named_children:
                            self._add_names(table, inner, inner)
        return table

    def _add_names(self, table: dict[str, list[tuple[int, ts.Node, int]]],
                   declaration: ts.Node, names: ts.Node | None) -> None:
        if names is None:
            return
        identifiers = [n for n in names.named_children if n.type == "identifier"] \
            if declaration.type == "short_var_declaration" else \
            names.children_by_field_name("name")
        for index, identifier in enumerate(identifiers):
            table.setdefault(_text(self._src, identifier), []).append(
                (declaration.start_byte, declaration, index))

    def _declared_type(self, declaration: ts.Node, index: int, depth: int) -> str | None:
        """The type of the ``index``-th name of a ``:=``, ``var`` or range declaration."""
        if declaration.type == "var_spec":
            declared = declaration.child_by_field_name("type")
            if declared is not None:
                return self._type_text(declared)
            values = declaration.child_by_field_name("value")
        elif declaration.type == "range_clause":
            right = declaration.child_by_field_name("right")
            if index != 1 or right is None:
                return None  # the key of a range: an index or a map key
            return self._step(right, "[]", depth)
        else:
            values = declaration.child_by_field_name("right")
        if values is None:
            return None
        expressions = values.named_children if values.type == "expression_list" else [values]
        if len(expressions) == 1:  # `x, y := f()`: y is the second result, `f()#1`
            found = self.type_of(expressions[0], depth + 1)
            if index == 0 or found is None:
                return found
            return f"{found}#{index}" if found.endswith("()") else None
        return self.type_of(expressions[index], depth + 1) if index < len(expressions) else None

    def _in_signature(self, function: ts.Node, name: str) -> Declared:
        table = self._signatures.get(function.id)
        if table is None:
            table = self._signatures[function.id] = self._parameters(function)
        return table.get(name, _MISSING)

    def _parameters(self, function: ts.Node) -> dict[str, str | None]:
        """Receiver, parameter and named result names -> their declared types."""
        table: dict[str, str | None] = {}
        for field in ("receiver", "parameters", "result"):
            parameters = function.child_by_field_name(field)
            if parameters is None or parameters.type != "parameter_list":
                continue
            for parameter in parameters.named_children:
                declared = self._type_text(parameter.child_by_field_name("type"))
                if parameter.type == "variadic_parameter_declaration":
                    declared = f"[]{declared}" if declared else None
                for identifier in parameter.children_by_field_name("name"):
                    table.setdefault(_text(self._src, identifier), declared)
        return table

    def _in_header(self, statement: ts.Node, child: ts.Node, name: str) -> Declared:
        """Names an ``if``/``switch``/``for`` header declares, seen from inside it."""
        headers = [statement.child_by_field_name("initializer")]
        if statement.type == "for_statement":
            for part in statement.named_children:
                if part.type == "range_clause":
                    headers.append(part)
                elif part.type == "for_clause":
                    headers.append(part.child_by_field_name("initializer"))
        for header in headers:
            if header is None or header.id == child.id:
                continue
            left = header.child_by_field_name("left")
            names = [n for n in (left.named_children if left else ())
                     if n.type == "identifier"]
            for index, identifier in enumerate(names):
                if _text(self._src, identifier) == name:
                    return header, index
        return _MISSING

    def _in_type_case(self, case: ts.Node, name: str) -> Declared:
        """``switch v := x.(type) { case *T: v.M() }``: ``v`` is a ``*T`` in that case."""
        switch = case.parent
        alias = switch.child_by_field_name("alias") if switch is not None else None
        if alias is None or not any(_text(self._src, n) == name for n in alias.named_children):
            return _MISSING
        types = case.children_by_field_name("type")
        return self._type_text(types[0]) if len(types) == 1 else None


def _storable(expr: str) -> bool:
    """The packed spans reserve ``;``, ``|`` and ``^`` (see ``encoding.encode_spans``)."""
    return len(expr) <= MAX_LENGTH and not any(mark in expr for mark in ";|^:")


def whole_declarations(root: ts.Node, lo: int, hi: int) -> tuple[int, int]:
    """Bytes ``lo..hi`` grown to every top-level node (a child of the file's root) they
    reach into. What a use records depends on the scopes around it up to there (see
    :meth:`GoReceivers._declaration`): a changed signature or statement changes it far
    below (``item, ok := s.items[k]`` swallowed by a broken label above it leaves a use
    of ``item`` fifteen lines down untyped; with its header broken a function's body is
    a bare block, still a scope), so the live-edit window must re-extract the whole
    declaration."""
    for offset in (lo, max(lo, hi - 1)):
        # (not root.first_child_for_byte: py-tree-sitter crashes past the last child)
        node: ts.Node | None = root.descendant_for_byte_range(offset, offset)
        parent = node.parent if node is not None else None
        while node is not None and parent is not None:
            if parent.parent is None:  # node is a child of the root
                lo, hi = min(lo, node.start_byte), max(hi, node.end_byte)
                break
            node, parent = parent, parent.parent
    return lo, hi
