"""Python: evaluate a member use's receiver type expression (see ``python_scopes``) on
the index, and look a member up in the class it names.

``Flask`` (an annotation) and ``Flask()`` (a call) are the class ``Flask`` as the use's
file binds it: defined there, imported (through re-exports), or ``mod.Flask`` through
an imported module; a call of a function is what its return annotation names, read
from its signature in the index (``def request_context(...) -> RequestContext``), and
``self.m()`` is what the method ``m`` of the class around the use returns. A class of
the standard library or of a package outside the workspace (``dict()``, ``Path``,
``werkzeug.Request``) is :data:`EXTERNAL`: it has none of the workspace's methods.
Anything not settled (an unknown name, a function with no annotation) gives None: the
caller then knows nothing and falls back to its name rules.

A member is looked up as Python does: in the class, then in its bases in order (read
from the class's signature, ``class Flask(App)``), first found wins. A base that is not
understood may hold the member: then the answer is None (unknown); a base outside the
workspace (``object``, ``werkzeug.Request``) holds none of the workspace's methods.
One instance serves one question; it memoises what it reads.
"""

from __future__ import annotations

import builtins
from typing import NamedTuple

from codekeep.analysis.imports import ImportGraph
from codekeep.analysis.model import Symbol
from codekeep.analysis.python_scopes import annotation_type, bracketed_parts
from codekeep.analysis.store import IndexStore

MAX_HOPS = 6  # bases followed at most this deep
# Classes every module sees without an import: their instances have none of our methods.
# (Builtin functions are left out: what `copy.copy(self)` or `getattr(...)` gives
# depends on its arguments.)
BUILTIN_CLASSES = frozenset(name for name, value in vars(builtins).items()
                            if isinstance(value, type) and not name.startswith("_"))


class ClassRef(NamedTuple):
    path: str
    qualified: str  # the class's qualified name in its file (its methods' container)


EXTERNAL = ClassRef("", "")


class PythonTypes:
    def __init__(self, store: IndexStore, graph: ImportGraph):
        self._store = store
        self._graph = graph
        self._named: dict[str, list[Symbol]] = {}
        self._evaluated: dict[tuple[str, str, str | None], ClassRef | None] = {}
        self._resolved: dict[tuple[str, str], Symbol | ClassRef | None] = {}
        self._members: dict[str, list[tuple[str, str, str, int, int]]] = {}
        self._classes: dict[ClassRef, Symbol | None] = {}
        self._lookups: dict[tuple[ClassRef, str, int], list[ClassRef] | None] = {}

    # ------------------------------------------------------------------ public

    def receiver_class(self, use_path: str, expr: str,
                       around: str | None = None) -> ClassRef | None:
        """The class of a receiver whose type expression ``expr`` is written in
        ``use_path`` (``around``: the class whose method body holds the use, for
        ``self.m()``); :data:`EXTERNAL` outside the workspace; None when unknown."""
        key = (use_path, expr, around)
        if key not in self._evaluated:
            self._evaluated[key] = self._evaluate(use_path, expr, around)
        return self._evaluated[key]

    def lookup(self, owner: ClassRef, name: str, hops: int = 0) -> list[ClassRef] | None:
        """The class in ``owner``'s bases (itself first) that defines ``name``, as a
        one-item list; empty when none does; None when a base not understood might."""
        key = (owner, name, hops)
        if key not in self._lookups:
            self._lookups[key] = self._lookup(owner, name, hops)
        return self._lookups[key]

    # ------------------------------------------------------------------ evaluation

    def _evaluate(self, path: str, expr: str, around: str | None) -> ClassRef | None:
        call = expr.endswith("()")
        name = expr[:-2] if call else expr
        if call and name.startswith(("self.", "cls.")) and name.count(".") == 1:
            if around is None:
                return None
            owner = ClassRef(path, around)
            found = self.lookup(owner, name.split(".", 1)[1])
            if not found:
                return None
            method = [s for s in self._symbols(name.split(".", 1)[1])
                      if s.path == found[0].path and s.container == found[0].qualified]
            return self._returned(method[0]) if len(method) == 1 else None
        resolved = self._resolve(path, name)
        if resolved is EXTERNAL and call and not _class_like(name):
            return None  # a function from outside: what it returns, we cannot tell
        if resolved is None or isinstance(resolved, ClassRef):
            return resolved
        if resolved.kind == "class":
            return self._class_ref(resolved)
        if call and resolved.kind in ("function", "method"):
            return self._returned(resolved)
        return None

    def _returned(self, function: Symbol) -> ClassRef | None:
        """The class a function's return annotation names, from its signature."""
        _params, arrow, annotation = function.signature.rpartition(")")[2].partition("->")
        if not arrow:
            return None
        named = annotation_type(annotation.strip().rstrip(":"))
        if named is None:
            return None
        resolved = self._resolve(function.path, named)
        if resolved is None or isinstance(resolved, ClassRef):
            return resolved
        return self._class_ref(resolved) if resolved.kind == "class" else None

    def _resolve(self, path: str, dotted: str) -> Symbol | ClassRef | None:
        """The top-level definition ``dotted`` names in ``path``, EXTERNAL, or None."""
        key = (path, dotted)
        if key not in self._resolved:
            self._resolved[key] = self._find(path, dotted)
        return self._resolved[key]

    def _find(self, path: str, dotted: str) -> Symbol | ClassRef | None:
        graph = self._graph
        head, _dot, last = dotted.rpartition(".")
        top = [s for s in self._symbols(last) if s.container is None]
        if head:
            files = graph.qualifier_files(path, head)
            if files is None:
                return None
            if not files:
                return EXTERNAL  # a package outside the workspace
            found = [s for s in top if any(graph.exports(file, s) for file in files)]
        else:
            found = [s for s in top if s.path == path] or [
                s for s in top if graph.resolves(path, s)]
            if not found:
                if graph.outside_imports(path, last)[1] or last in BUILTIN_CLASSES:
                    return EXTERNAL
                return None
        return found[0] if len(found) == 1 else None

    # ------------------------------------------------------------------ classes

    def _lookup(self, owner: ClassRef, name: str, hops: int) -> list[ClassRef] | None:
        if owner is EXTERNAL:
            return []
        if any(container == owner.qualified and member == name
               for container, member, _kind, _first, _last in self._file_members(owner.path)):
            return [owner]
        symbol = self._class(owner)
        if symbol is None or hops >= MAX_HOPS:
            return None
        unknown = False
        for base in _bases(symbol.signature):
            resolved = self._resolve(owner.path, base)
            if resolved is None or (not isinstance(resolved, ClassRef)
                                    and resolved.kind != "class"):
                unknown = True
                continue
            ref = resolved if isinstance(resolved, ClassRef) else self._class_ref(resolved)
            if ref is None:
                unknown = True
                continue
            found = self.lookup(ref, name, hops + 1)
            if found:
                return found
            unknown = unknown or found is None
        return None if unknown else []

    def _class(self, owner: ClassRef) -> Symbol | None:
        if owner not in self._classes:
            container, _dot, name = owner.qualified.rpartition(".")
            found = [s for s in self._symbols(name) if s.path == owner.path
                     and s.kind == "class" and (s.container or "") == container]
            self._classes[owner] = found[0] if len(found) == 1 else None
        return self._classes[owner]

    @staticmethod
    def _class_ref(symbol: Symbol) -> ClassRef:
        qualified = f"{symbol.container}.{symbol.name}" if symbol.container else symbol.name
        return ClassRef(symbol.path, qualified)

    def _symbols(self, name: str) -> list[Symbol]:
        found = self._named.get(name)
        if found is None:
            found = self._named[name] = self._store.symbols_named(name)
        return found

    def _file_members(self, path: str) -> list[tuple[str, str, str, int, int]]:
        found = self._members.get(path)
        if found is None:
            found = self._members[path] = self._store.members_in_file(path)
        return found


def _class_like(dotted: str) -> bool:
    """Whether a name from outside the workspace is a class's: a builtin class, or
    capitalised as PEP 8 names classes (``Path``, ``werkzeug.Request``; not
    ``copy.copy``, whose result is its argument's type)."""
    last = dotted.rsplit(".", 1)[-1]
    return last in BUILTIN_CLASSES or last.lstrip("_")[:1].isupper()


def _bases(signature: str) -> list[str]:
    """The bases a ``class`` signature names (``class A(B, mod.C, metaclass=M)`` -> B,
    mod.C); a subscripted one by its name (``Generic[T]`` -> Generic)."""
    names = (base.split("[", 1)[0].strip() for base in bracketed_parts(signature)
             if "=" not in base)
    return [name for name in names if name and not name.startswith("*")]
