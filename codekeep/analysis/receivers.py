"""How sure is a member use (``x.m()``, ``pkg.F()``) of one definition?

The map knows no variable types, so a member call is only as good as its receiver:

- ``pkg.F()`` where ``pkg`` is an imported package or namespace (Go import, TS/JS
  ``import * as pkg``) follows that import: ``resolved`` when it leads to the
  definition's file, and no use at all of a method or of another package's ``F``;
- ``self.m()`` / ``this.m()`` is ``resolved`` inside the methods of ``m``'s own class;
  inside another class that defines its own ``m`` it is that one's (no use); elsewhere
  (a subclass, a closure outside any method) a ``name`` match, and so is ``super.m()``;
- ``Type.m()`` (``Type`` being the method's own container) follows the class's file
  like a plain use;
- Python ``a.b.f()`` keeps its chain as the receiver: ``flask.json.loads()`` follows
  ``flask`` (an imported module) into its submodule ``json``; a chain that leaves the
  modules (``current_app.json.loads()``, an object's attribute) is no use of a
  module-level function, and is a receiver of unknown type for methods;
- any other receiver (``file.Name()``, ``items.filter(...)``) has a type we do not
  know: it is at best a ``name`` match, only to a method or field (or, in Go, to a
  function of a package imported from a path like ``x/go-isatty`` whose package name
  we do not know), and for methods only
  when the name is distinctive — not one of :data:`COMMON_METHOD_NAMES`, which standard
  types share and which would match every list, string and file in the workspace.

A ``value`` use (a bare name passed, assigned, returned) or a ``doc`` use (``{@link
X}``) is ``resolved`` where scope or imports lead to the definition and no use at all
elsewhere: most such names are locals. A bare name in a Python class's own body (``@size.setter``)
is that class's member. A member read as a value (``self.handler``, ``helpers.f``)
follows its receiver like a call, but is never a ``name`` match.

A bare call in Ruby (``activate``, ``activate(x)``) is a call on self, labelled like
``self.activate``.

A bare call ``F()`` in Go or Python never calls a method (methods need a receiver), so
it is not a use of one; nor is a bare name ``F`` used as a value in Go.

A Go receiver whose declared type is in sight (``go_scopes``: ``c *Command``, ``x :=
NewT()``, ``c.flags``) is judged by that type's members instead (``go_types``): its
own and promoted members are ``resolved``, any other type's are no use, and calls
through an interface are ``name`` uses of the methods of the types implementing it.
"""

from __future__ import annotations

from typing import Literal, Protocol

from codekeep.analysis.go_types import EXTERNAL, GoTypes, NamedType
from codekeep.analysis.imports import Definition, ImportGraph
from codekeep.analysis.python_scopes import bracketed_parts
from codekeep.analysis.python_types import PythonTypes

Label = Literal["resolved", "name"]

# Names of methods that standard types of the indexed languages have (Go's fmt.Stringer,
# error, io.Reader/Writer/Closer, flag.Value, sort.Interface, sync types; JS/TS Array,
# Map, Set, String, Object, Promise; Java/C# Object and collections; Python dict/list).
# A member call with one of these names on a receiver of unknown type tells nothing.
COMMON_METHOD_NAMES = frozenset({
    # Go: fmt.Stringer, error, io.Reader/Writer/Closer/Seeker, flag.Value, sort.Interface,
    # sync.Mutex/WaitGroup, bytes.Buffer, os.File, reflect, errors
    "String", "Name", "Error", "Set", "Get", "Len", "Less", "Swap", "Close", "Read",
    "Write", "WriteString", "Seek", "Flush", "Reset", "Bytes", "Lock", "Unlock", "Wait",
    "Done", "Type", "Unwrap", "Is", "As", "Err", "Next",
    # JS / TS: Array, Map, Set, String, Object, Promise, Function
    "filter", "from", "map", "push", "pop", "shift", "unshift", "slice", "splice",
    "concat", "join", "split", "find", "findIndex", "some", "every", "reduce", "forEach",
    "includes", "indexOf", "sort", "reverse", "flat", "flatMap", "fill", "of", "then",
    "catch", "finally", "resolve", "reject", "all", "toString", "valueOf", "toJSON",
    "trim", "replace", "match", "assign", "entries", "has", "clear", "next", "call",
    "apply", "bind",
    # Python dict/list/str/file, Java/C# Object and collections, Ruby, Rust std
    "get", "set", "keys", "values", "items", "append", "extend", "insert", "remove",
    "copy", "close", "read", "write", "format", "strip", "lower", "upper", "encode",
    "decode", "equals", "hashCode", "compareTo", "clone", "iterator", "contains",
    "isEmpty", "ToString", "Equals", "GetHashCode", "Dispose", "Contains", "Remove",
    "Clear", "each", "to_s", "to_string", "unwrap", "len", "iter", "into", "is_empty",
})
SELF_RECEIVERS = frozenset({"self", "this", "$this", "cls", "super", "Self", "static"})
MEMBER_KINDS = frozenset({"method", "field"})
BARE_CALL_KINDS = frozenset({"call"})
# Uses written as a bare name that is mostly a local (`f(x)`, `return x`) or sits in a
# comment (`{@link X}`): they count only where the file's scope or imports lead to the
# definition, never as a ``name`` match.
SCOPED_KINDS = frozenset({"value", "doc"})
# Styles where a call without a receiver is never a method call.
NO_BARE_METHOD_CALLS = frozenset({"go", "python"})
# Styles where a call without a receiver is a call on self (Ruby's `activate`).
IMPLICIT_SELF_CALLS = frozenset({"ruby"})


class Target(Definition, Protocol):
    """A definition a use may point at: where it is, its name and container, and its kind."""

    @property
    def kind(self) -> str: ...


class Scope(Protocol):
    """What the use's own file says about where the use is."""

    def method_container(self, line: int) -> str | None:
        """The class whose method's body holds ``line`` (0-based), if any."""

    def defines(self, container: str, name: str) -> bool:
        """Whether the file defines ``container.name``."""

    def class_body(self, line: int) -> str | None:
        """The class whose own body (not one of its methods') holds ``line``, if any."""

    def parameter(self, line: int, name: str) -> bool:
        """Whether ``name`` is a parameter of a function around ``line``."""


def python_parameters(signature: str) -> frozenset[str]:
    """The parameter names of a Python ``def`` signature (``def f(a, b: int = 1, *args,
    **kw)`` -> a, b, args, kw), split at the commas outside brackets."""
    found = (name.split(":", 1)[0].split("=", 1)[0].strip().lstrip("*").strip()
             for name in bracketed_parts(signature))
    return frozenset(name for name in found if name.isidentifier())


def distinctive(name: str) -> bool:
    """Whether a member call's name alone says which method it is (see module doc)."""
    return name not in COMMON_METHOD_NAMES


def split_receiver(receiver: str | None) -> tuple[str | None, str | None]:
    """(the receiver's name or "", its Go type expression or None); see go_scopes."""
    if receiver is None:
        return None, None
    name, typed, expr = receiver.partition(":")
    return name, (expr if typed else None)


def label_use(
    graph: ImportGraph, use_path: str, receiver: str | None, use_kind: str, target: Target,
    *, line: int = -1, scope: Scope | None = None, bound: bool = False,
    types: GoTypes | None = None, classes: PythonTypes | None = None,
) -> Label | None:
    """``resolved``, ``name``, or None: this use is not a use of ``target`` at all.

    ``bound``: the name used is bound to ``target`` by an import (an alias of it);
    ``scope`` and ``line`` place a ``self.m()`` use among the file's classes; ``types``
    evaluates a Go receiver's type expression, ``classes`` a Python one's."""
    is_member = target.kind in MEMBER_KINDS
    if is_member and use_kind == "import" and graph.style_of(use_path) == "python":
        return None  # Python imports modules' names, never a class's method or field
    receiver, expr = split_receiver(receiver)
    if expr is not None and classes is not None and graph.style_of(use_path) == "python":
        if is_member:
            owner = classes.receiver_class(
                use_path, expr, scope.method_container(line) if scope is not None else None)
            found = classes.lookup(owner, target.name) if owner is not None else None
            if found is not None:  # the class (or a base) that defines the name decides
                return "resolved" if found and found[0].path == target.path and (
                    found[0].qualified == target.container) else None
        expr = None  # not settled: the receiver is judged by its name, as before
    if expr is not None and types is not None:
        typed = types.receiver_type(use_path, expr)
        if typed is not None:
            return _typed_label(types, typed, target)
    if (receiver is None and not is_member and scope is not None
            and graph.style_of(use_path) == "python" and scope.parameter(line, target.name)):
        return None  # a parameter of the function around it: a local of that name
    if use_kind in SCOPED_KINDS and receiver is None:
        if is_member:
            # a class body's names are its members (`@static_url_path.setter`)
            own = (use_path == target.path and scope is not None
                   and scope.class_body(line) == target.container)
            return "resolved" if own else None
        return "resolved" if bound or graph.resolves(use_path, target) else None
    if (receiver is None and is_member and use_kind in BARE_CALL_KINDS and scope is not None
            and graph.style_of(use_path) in IMPLICIT_SELF_CALLS):
        return _self_use(use_path, line, scope, target)
    if receiver is None:
        if is_member and graph.style_of(use_path) == "go":
            return None  # a bare Go name (a call, a type, a value) is never a member
        if (is_member and use_kind in BARE_CALL_KINDS
                and graph.style_of(use_path) in NO_BARE_METHOD_CALLS):
            return None
        return "resolved" if bound or graph.resolves(use_path, target) else "name"
    if receiver == "super" and is_member:
        return "name"  # the parent class's `m`: which one, the map does not know
    if receiver in SELF_RECEIVERS and is_member and scope is not None:
        return _self_use(use_path, line, scope, target)
    if receiver in SELF_RECEIVERS and not is_member:
        return None  # `self.close()` is no module-level `close`
    own_type = target.container.rsplit(".", 1)[-1] if target.container else None
    if receiver in SELF_RECEIVERS or (receiver and receiver == own_type):
        return "resolved" if graph.resolves(use_path, target) else "name"
    package = graph.qualifier_files(use_path, receiver)
    if package is not None:
        if is_member:
            return None
        return "resolved" if any(graph.exports(file, target) for file in package) else None
    if not is_member:
        # Python `a.b.f()` names its chain (``flask.json``), followed above: a module, or
        # an object (``current_app.json``) whose attribute is no module-level function;
        # what is left (``r.headers().get()``, ``x[0].f()``) is no module either.
        # A Go package imported from a path whose last element is no identifier
        # (`go-isatty`) binds a name we do not know: it may be what ``receiver`` names.
        return "name" if target.path in graph.unnamed_packages(use_path) else None
    if use_kind in SCOPED_KINDS:
        return None  # `f(x.field)` on a receiver of unknown type: attribute reads are everywhere
    return "name" if distinctive(target.name) else None


def _self_use(use_path: str, line: int, scope: Scope, target: Target) -> Label | None:
    """``self.m()`` / ``this.m()``: which class's method body it is in decides."""
    container = scope.method_container(line)
    if container is not None and container == target.container and use_path == target.path:
        return "resolved"
    if container is not None and scope.defines(container, target.name):
        return None
    return "name"


def _typed_label(types: GoTypes, typed: NamedType, target: Target) -> Label | None:
    """A Go receiver of known type: a use of ``target`` exactly when the type's method
    set (own members, then promoted ones) holds it; a type declared outside the
    workspace holds none of ours. A call through an interface is a ``name`` use of the
    methods of every type that implements it (which one runs is not known statically;
    gopls counts them too). An embedded type the index cannot find leaves room for
    doubt: then the name rule above applies."""
    if target.kind not in MEMBER_KINDS or typed is EXTERNAL:
        return None
    found = types.members(typed, target.name)
    if found is None:
        return "name" if distinctive(target.name) else None
    if any(s.path == target.path and s.container == target.container for s in found):
        return "resolved"
    owner = types.owner_of(target)
    if owner is None or not any(s.kind == "method" for s in found):
        return None
    if types.is_interface(typed) and types.implements(owner, typed):
        return "name"  # a call through an interface the target's type implements
    if types.is_interface(owner) and types.implements(typed, owner):
        return "name"  # a call of an implementation of the target interface method
    return None
