"""Go: evaluate a member call's receiver type expression (see ``go_scopes``) on the index.

The expression says how the receiver's type is written (``*Command``) or derived
(``NewFlagSet()``, ``*Command>Root()``, ``*Command>flags``, ``[]*Flag>[]``); other
files' signatures in the index supply the missing types: a function's or method's
first result, a field's declared type, a slice's element. A qualified name
(``pflag.FlagSet``) is looked up in the files of the package that name is imported
as, from the file where it is written; a type alias (``type A = B``) is followed to
``B``; a struct's or interface's embedded types lend it their members (promotion).

The answer is a :class:`NamedType`: the type's name and the workspace files it may be
declared in, empty when it is declared outside the workspace (``*os.File``, ``string``).
Anything the index cannot settle (an unknown function, a generic type parameter, a
type declared as another named type) gives None: the caller then knows nothing.
One instance serves one query; it memoises what it reads.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from codekeep.analysis.imports import Definition, ImportGraph
from codekeep.analysis.model import Symbol
from codekeep.analysis.store import IndexStore

PREDECLARED = frozenset({
    "any", "bool", "byte", "comparable", "complex64", "complex128", "error", "float32",
    "float64", "int", "int8", "int16", "int32", "int64", "rune", "string", "uint", "uint8",
    "uint16", "uint32", "uint64", "uintptr",
})
TYPE_KINDS = frozenset({"struct", "interface", "type"})
EMBEDDING_KINDS = frozenset({"class", "implementation"})
MAX_HOPS = 4  # alias and embedding chains followed at most this deep
_TYPE_TEXT = re.compile(r"[\w.*\[\]]+")
_FIELD = re.compile(r"\s*\w+(?:\s*,\s*\w+)*\s+([\w.*\[\]]+)")


class NamedType(NamedTuple):
    name: str
    files: frozenset[str]  # the files of its package; empty: outside the workspace


EXTERNAL = NamedType("", frozenset())


class GoTypes:
    def __init__(self, store: IndexStore, graph: ImportGraph):
        self._store = store
        self._graph = graph
        self._named_cache: dict[str, list[Symbol]] = {}
        self._refs: dict[str, list[tuple[int, str, str | None]]] = {}
        self._evaluated: dict[tuple[str, str], NamedType | None] = {}
        self._members: dict[tuple[NamedType, str, int], list[Symbol] | None] = {}
        self._methods: dict[NamedType, frozenset[str]] = {}
        self._implements: dict[tuple[NamedType, NamedType], bool] = {}
        self._packages: dict[str, frozenset[str]] = {}

    # ------------------------------------------------------------------ public

    def receiver_type(self, use_path: str, expr: str) -> NamedType | None:
        """The named type of a receiver whose type expression ``expr`` is written in
        ``use_path``; :data:`EXTERNAL` outside the workspace; None when unknown."""
        key = (use_path, expr)
        if key not in self._evaluated:
            value = self._evaluate(expr, use_path)
            self._evaluated[key] = None if value is None else (
                value if isinstance(value, NamedType) else self._named(*value, 0))
        return self._evaluated[key]

    def members(self, owner: NamedType, name: str, hops: int = 0) -> list[Symbol] | None:
        """Methods/fields ``name`` of ``owner``, its own first, else promoted from what it
        embeds; None when an embedded type is unknown and might hold it."""
        key = (owner, name, hops)
        if key not in self._members:
            self._members[key] = self._find_members(owner, name, hops)
        return self._members[key]

    def _find_members(self, owner: NamedType, name: str, hops: int) -> list[Symbol] | None:
        own = [s for s in self._symbols(name) if s.kind in ("method", "field")
               and s.path in owner.files and _last(s.container) == owner.name]
        if own or hops >= MAX_HOPS:
            return own
        found: list[Symbol] = []
        unknown = False
        for embedded in self._embedded(owner):
            if embedded is None:
                unknown = True
                continue
            inner = self.members(embedded, name, hops + 1)
            if inner is None:
                unknown = True
            else:
                found += inner
        return found if found or not unknown else None

    def implements(self, concrete: NamedType, interface: NamedType) -> bool:
        """Whether ``concrete`` has every method ``interface`` declares itself (methods
        it only embeds are not checked: a match by names)."""
        key = (concrete, interface)
        if key not in self._implements:
            wanted = self._interface_methods(interface)
            self._implements[key] = bool(wanted) and all(
                self.members(concrete, name) for name in wanted)
        return self._implements[key]

    def is_interface(self, named: NamedType) -> bool:
        return bool(self._interface_methods(named))

    def _interface_methods(self, interface: NamedType) -> frozenset[str]:
        found = self._methods.get(interface)
        if found is None:
            declared = [s for s in self._symbols(interface.name) if s.kind == "interface"
                        and s.container is None and s.path in interface.files]
            found = self._methods[interface] = frozenset(
                s.name for s in self._store.symbols_in_file(declared[0].path)
                if s.kind == "method" and s.container == interface.name) if declared else (
                frozenset())
        return found

    def owner_of(self, member: Definition) -> NamedType | None:
        """The type a method or field belongs to, as a :class:`NamedType`."""
        if not member.container:
            return None
        return NamedType(member.container.rsplit(".", 1)[-1],
                         self._package(member.path))

    # -------------------------------------------------------------- evaluation

    def _evaluate(self, expr: str, context: str) -> tuple[str, str] | NamedType | None:
        """(type text, file it is written in), or EXTERNAL, or None."""
        base, *steps = expr.split(">")
        current: tuple[str, str] | NamedType | None
        call, index = _call_of(base)
        current = self._call_result(call, index, context) if call else (base, context)
        for step in steps:
            if current is None or isinstance(current, NamedType):
                return current
            text, where = current
            if step == "[]":
                element = _element(text)
                if element is None:  # `type Commands []*Command`: its declaration says
                    text, where = self._underlying(text, where) or (text, where)
                    element = _element(text)
                current = (element, where) if element is not None else None
                continue
            owner = self._named(text, where, 0)
            if owner is None or owner is EXTERNAL:
                return owner
            method, index = _call_of(step)
            found = self.members(owner, method or step)
            if not found or len({s.signature for s in found}) != 1:
                return None
            symbol = found[0]
            declared = (_result(symbol.signature, index) if method
                        else _field_type(symbol.signature))
            current = (declared, symbol.path) if declared is not None else None
        return current

    def _call_result(self, function: str, index: int,
                     context: str) -> tuple[str, str] | NamedType | None:
        package, _dot, name = function.rpartition(".")
        files: frozenset[str] | set[str] = self._package(context)
        if package:
            imported = self._graph.qualifier_files(context, package)
            if imported is None:
                return None  # a method of a variable declared elsewhere
            if not imported:
                return EXTERNAL  # os.Open(): a type from outside the workspace
            files = imported
        found = [s for s in self._symbols(name) if s.kind == "function"
                 and s.container is None and s.path in files]
        if len(found) != 1:
            return None
        result = _result(found[0].signature, index)
        return (result, found[0].path) if result is not None else None

    def _named(self, text: str, context: str, hops: int) -> NamedType | None:
        """The named type ``text`` (pointers dropped) denotes where it is written."""
        text = text.lstrip("*")
        text = re.sub(r"\[.*\]$", "", text) if not text.startswith("[") else text
        if not text or text.startswith(("[", "map[")) or not _TYPE_TEXT.fullmatch(text):
            return None
        package, _dot, name = text.rpartition(".")
        if package:
            imported = self._graph.qualifier_files(context, package)
            if imported is None:
                return None
            files = frozenset(imported)
        elif name in PREDECLARED:
            return EXTERNAL
        else:
            files = self._package(context)
        if not files:
            return EXTERNAL
        declared = [s for s in self._symbols(name) if s.kind in TYPE_KINDS
                    and s.container is None and s.path in files]
        if not declared:
            return None
        alias = _aliased(declared[0].signature, name) if len(declared) == 1 else None
        if alias is not None and hops < MAX_HOPS:
            return self._named(alias, declared[0].path, hops + 1)
        # Methods may be declared in any file of the type's package.
        return NamedType(name, self._package(declared[0].path))

    def _underlying(self, text: str, context: str) -> tuple[str, str] | None:
        """The type a defined type is declared as (``Commands []*Command``)."""
        named = self._named(text, context, 0)
        if named is None or named is EXTERNAL:
            return None
        for s in self._symbols(named.name):
            if s.kind == "type" and s.container is None and s.path in named.files:
                declared = _field_type(s.signature)
                return (declared, s.path) if declared is not None else None
        return None

    def _embedded(self, owner: NamedType) -> list[NamedType | None]:
        """The types ``owner``'s declarations embed (None: one the index cannot find)."""
        found: list[NamedType | None] = []
        for declaration in self._symbols(owner.name):
            if declaration.path not in owner.files or declaration.kind not in (
                    "struct", "interface") or declaration.container is not None:
                continue
            first, last = declaration.range.start.line, declaration.range.end.line
            for line, name, package in self._embeddings(declaration.path):
                if not first <= line <= last:
                    continue
                scope = (self._graph.qualifier_files(declaration.path, package) or set()
                         if package else self._package(declaration.path))
                if package and not scope:
                    continue  # `sync.Mutex`: nothing of ours is promoted from it
                types = [s for s in self._symbols(name) if s.kind in TYPE_KINDS
                         and s.container is None and s.path in scope]
                found.append(NamedType(name, self._package(types[0].path)) if types else None)
        return found

    def _embeddings(self, path: str) -> list[tuple[int, str, str | None]]:
        """(line, type name, package qualifier) of the embedded types written in ``path``."""
        found = self._refs.get(path)
        if found is None:
            found = self._refs[path] = [
                (row.range.start.line, row.name, row.receiver)
                for row in self._store.refs_in_file(path) if row.kind in EMBEDDING_KINDS]
        return found

    def _package(self, path: str) -> frozenset[str]:
        found = self._packages.get(path)
        if found is None:
            found = self._packages[path] = frozenset(self._graph.package_files(path))
        return found

    def _symbols(self, name: str) -> list[Symbol]:
        found = self._named_cache.get(name)
        if found is None:
            found = self._named_cache[name] = self._store.symbols_named(name)
        return found


def _last(container: str | None) -> str | None:
    return container.rsplit(".", 1)[-1] if container else None


def _closing(text: str, start: int) -> int:
    """Index of the bracket closing the one at ``start`` (len(text) when unbalanced)."""
    opening, closing = text[start], {"(": ")", "[": "]", "{": "}"}[text[start]]
    depth = 0
    for index in range(start, len(text)):
        if text[index] == opening:
            depth += 1
        elif text[index] == closing:
            depth -= 1
            if depth == 0:
                return index
    return len(text)


def _call_of(text: str) -> tuple[str | None, int]:
    """``F()#1`` -> ("F", 1); ``F()`` -> ("F", 0); no call -> (None, 0)."""
    head, _mark, index = text.partition("#")
    if not head.endswith("()"):
        return None, 0
    return head[:-2], int(index) if index.isdigit() else 0


def _result(signature: str, index: int = 0) -> str | None:
    """Result ``index`` of ``func (r T) Name(params) results`` / ``Name(params) results``."""
    text = signature.strip()
    if text.startswith("func"):
        text = text[4:].lstrip()
        if text.startswith("("):
            text = text[_closing(text, 0) + 1:].lstrip()
    opening = text.find("(")
    if opening < 0:
        return None
    text = text[_closing(text, opening) + 1:].strip().rstrip("{").strip()
    if text.startswith("("):
        results = text[1:_closing(text, 0)].split(",")
        if index >= len(results):
            return None
        text = results[index].strip().rsplit(" ", 1)[-1]
    elif index:
        return None
    return text if text and _TYPE_TEXT.fullmatch(text) else None


def _field_type(signature: str) -> str | None:
    """The type of a field from its declaration ``name[, name] Type [tag]``."""
    match = _FIELD.match(signature)
    return match.group(1) if match else None


def _aliased(signature: str, name: str) -> str | None:
    """``B`` of ``type A = B`` (its signature reads ``A = B``)."""
    head, equals, rest = signature.partition("=")
    return rest.strip() if equals and head.strip().endswith(name) else None


def _element(text: str) -> str | None:
    """The element type of a slice, array or map type (pointers to them dropped)."""
    text = text.lstrip("*")
    if text.startswith("[]"):
        return text[2:]
    if text.startswith("map["):
        return text[_closing(text, 3) + 1:] or None
    if text.startswith("["):
        return text[_closing(text, 0) + 1:] or None
    return None
