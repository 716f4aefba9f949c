"""Read-side questions over the index: definitions, uses, neighbourhoods.

All functions take the store and the import graph explicitly; :class:`CodeMap` only
adds locking and the public signatures.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Literal, NamedTuple

from codekeep.analysis.encoding import decode_spans, encode_spans, has_scoped_uses
from codekeep.analysis.facts import RefFact
from codekeep.analysis.go_types import EXTERNAL, GoTypes
from codekeep.analysis.imports import ImportGraph, stub_companion, top_level_name
from codekeep.analysis.model import CallEdge, Confidence, Range, Reference, Related, Symbol
from codekeep.analysis.python_types import PythonTypes
from codekeep.analysis.receivers import (
    IMPLICIT_SELF_CALLS,
    MEMBER_KINDS,
    NO_BARE_METHOD_CALLS,
    SCOPED_KINDS,
    SELF_RECEIVERS,
    label_use,
    python_parameters,
    split_receiver,
)
from codekeep.analysis.store import DefinitionKey, IndexStore, RefRow
from codekeep.common.symbol_id import SymbolId

RELATED_LIMIT = 25
# Uses of these kinds are "what it calls"; the rest (types, classes...) are "related".
CALL_KINDS = frozenset({"call", "macro", "new"})
# A definition's declaration in its module's type stub, listed among its uses.
STUB_KIND = "stub"
# Uses of these kinds in a type's header name its bases and what it implements.
INHERITANCE_KINDS = frozenset({"class", "implementation"})
# Definitions whose bodies ``self`` / ``this`` is their container's instance in.
METHOD_KINDS = frozenset({"method", "function"})
def find_symbol(
    store: IndexStore, name: str, kind: str | None = None, limit: int | None = None
) -> list[Symbol]:
    """Exact name, ``Container.name`` (``::`` works too) or a full id ``path::Container.name``."""
    by_id = symbol_by_id(store, name)
    if by_id is not None:
        symbols = [by_id]
    elif "." in name or "::" in name:
        container, last = name.replace("::", ".").rsplit(".", 1)
        symbols = [
            s for s in store.symbols_named(last, kind)
            if s.container and (s.container == container or s.container.endswith("." + container))
        ]
    else:
        return store.symbols_named(name, kind, limit)
    return symbols[:limit] if limit is not None else symbols


def symbol_by_id(store: IndexStore, symbol_id: str) -> Symbol | None:
    sid = SymbolId.try_parse(symbol_id)
    return store.symbol(sid) if sid is not None else None


def _innermost(symbols: Iterable[Symbol], line: int, byte_col: int | None) -> Symbol | None:
    best: Symbol | None = None
    for s in symbols:
        r = s.range
        inside = (
            r.start.line <= line <= r.end.line if byte_col is None else r.contains(line, byte_col)
        )
        if inside and (best is None or (r.start.line, r.start.byte_col) >= (
                best.range.start.line, best.range.start.byte_col)):
            best = s
    return best


def enclosing(store: IndexStore, path: str,
              points: Sequence[tuple[int, int]]) -> list[Symbol | None]:
    """The innermost definition around each (line, byte column) of ``path``, as
    :func:`_innermost` chooses it, building a Symbol only for those found: the callers of
    a name used thousands of times need no whole outline per file."""
    extents = store.extents_in_file(path)
    starts = [(line, col) for line, col, _end_line, _end_col, _row in extents]
    rows: list[int | None] = []
    for point in points:
        at, row = bisect_right(starts, point), None
        while at > 0:  # the latest start before the point that still holds it
            at -= 1
            _line, _col, end_line, end_col, row_id = extents[at]
            if point <= (end_line, end_col):
                row = row_id
                break
        rows.append(row)
    symbols = store.symbols_by_row(sorted({row for row in rows if row is not None}))
    return [None if row is None else symbols[row] for row in rows]


def enclosing_refs(store: IndexStore, refs: Sequence[Reference]) -> list[Symbol | None]:
    """The innermost definition around each of ``refs`` (one :func:`enclosing` per file)."""
    by_file: dict[str, list[int]] = {}
    for at, ref in enumerate(refs):
        by_file.setdefault(ref.path, []).append(at)
    found: list[Symbol | None] = [None] * len(refs)
    for path, indexes in by_file.items():
        points = [(refs[i].range.start.line, refs[i].range.start.byte_col) for i in indexes]
        for i, symbol in zip(indexes, enclosing(store, path, points), strict=True):
            found[i] = symbol
    return found


def symbol_at(store: IndexStore, path: str, line: int, byte_col: int | None) -> Symbol | None:
    return _innermost(store.symbols_in_file(path), line, byte_col)


def _target_in(
    graph: ImportGraph, path: str, by_path: dict[str, list[DefinitionKey]],
    wanted: set[str] | None = None,
) -> str | None:
    """The one definition a use in ``path`` follows to (same file first), or None.

    Imports are followed as ``find_references`` of one definition follows them
    (through re-exporting ``__init__.py`` files and barrels), so a use is labelled the
    same whether the question names the definition or only its name."""
    local = by_path.get(path, [])
    if len(local) == 1:
        return local[0].id  # a definition in the same file shadows imported ones
    targets = list(local)
    imported = graph.imports_of(path)
    for file, names in imported.items():
        targets += [d for d in by_path.get(file, ())
                    if names is None or top_level_name(d) in names or d.name in names]
    if wanted is None:
        wanted = _top_level_names(by_path)
    if not targets and any(names is None or wanted & names for names in imported.values()):
        # an import of the name that leads to none directly: a re-export, followed
        targets = [d for file, definitions in by_path.items() if file != path
                   for d in definitions if graph.resolves(path, d)]
    return targets[0].id if len(targets) == 1 else None


def _top_level_names(by_path: dict[str, list[DefinitionKey]]) -> set[str]:
    """The names an import must take for a use to follow it to one of ``by_path``'s
    definitions (a question asks it of every file using the name: counted once)."""
    return {top_level_name(d) for definitions in by_path.values() for d in definitions}


def resolve_use(store: IndexStore, graph: ImportGraph, row: RefRow,
                definitions: list[DefinitionKey]) -> Reference:
    """Label one use with the single definition it follows to, if there is one."""
    target = _member_target(graph, Types.of(store, graph), row.path, row, _by_path(definitions),
                            FileScope(store, row.path))
    return row.as_reference(target, target is not None)


def _by_path(definitions: list[DefinitionKey]) -> dict[str, list[DefinitionKey]]:
    by_path: dict[str, list[DefinitionKey]] = {}
    for definition in definitions:
        by_path.setdefault(definition.path, []).append(definition)
    return by_path


# A file's uses of a name, labelled: (name-only?, path, how many, their decoder).
LabelledFiles = list[tuple[bool, str, int, Callable[[], list[Reference]]]]


def find_references(
    store: IndexStore, graph: ImportGraph, *, target: Symbol | None, name: str | None,
    limit: int | None, offset: int = 0,
) -> tuple[list[Reference], int]:
    """Uses resolved first, then name-only, each by path and position; the page of
    ``limit`` after the first ``offset`` (files wholly before it are not decoded)."""
    return page_of(labelled_files(store, graph, target=target, name=name), limit, offset)


def labelled_files(
    store: IndexStore, graph: ImportGraph, *, target: Symbol | None, name: str | None,
) -> LabelledFiles:
    """Every file using the name, labelled and in the order of :func:`find_references`
    (resolved files first, then by path), each with its count and a decoder of its uses:
    what each page of a name used 10k+ times needs, kept by the caller between pages.

    Whether a plain use resolves depends only on the file it is in, so such files are
    labelled whole and only the files needed to fill ``limit`` are decoded; ``total``
    is counted from the packed rows without decoding them. Files with member uses
    (``x.m()``) are decoded and labelled use by use (see ``receivers.label_use``).
    """
    wanted = target.name if target else name
    if not wanted:
        return []
    groups = [(path, wanted, spans) for path, spans in store.ref_groups_named(wanted)]
    aliases: list[tuple[str, str, str]] = []
    labelled: LabelledFiles = []
    if target is not None:
        aliases = _alias_groups(store, graph, target, [path for path, _n, _s in groups])
        others = _other_definitions(store, target)
        shadowed = {path for path, _n, _s in groups
                    if _bound_elsewhere(graph, path, others, target)}
        labelled += [_aliasing_imports(path, used, spans, target) for path, used, spans in groups
                     if path in shadowed and graph.aliases_of(path, target)]
        labelled += _stub_declarations(store, graph, target)
        groups = [kept for group in groups if group[0] not in shadowed
                  for kept in _without_imports(graph, group, target)]
    by_path = None if target is not None else _by_path(store.definition_keys(wanted))
    top_level = _top_level_names(by_path) if by_path is not None else set()
    types = Types.of(store, graph)  # receivers' types, memoised for this question
    for path, used, spans in groups + aliases:
        if target is None:
            if "^" in spans or has_scoped_uses(spans):
                labelled += _labelled_uses(store, graph, types, path,
                                           decode_spans(used, spans), None, by_path, "none")
                continue
            symbol_id = _target_in(graph, path, by_path or {}, top_level)
        else:
            binding = _binding(graph, path, used, target)
            if "^" in spans or _bare_calls_excluded(graph, path, target) or (
                    binding in ("none", "import-only") and (
                        binding == "import-only" or has_scoped_uses(spans))) or (
                    path == target.path and has_scoped_uses(spans)
                    and _parameter_named(store, graph, target)):
                labelled += _labelled_uses(store, graph, types, path, decode_spans(used, spans),
                                           target, by_path, binding)
                continue
            symbol_id = target.id if binding == "bound" else None
        labelled.append((symbol_id is None, path, spans.count(";") + 1,
                         _decoder(path, used, spans, symbol_id)))
    labelled.sort(key=lambda item: (item[0], item[1]))
    return labelled


def page_of(labelled: LabelledFiles, limit: int | None,
            offset: int = 0) -> tuple[list[Reference], int]:
    """The ``limit`` uses after the first ``offset``, and the exact total, decoding only
    the files of the page."""
    total = sum(count for _name, _path, count, _refs in labelled)
    refs: list[Reference] = []
    skip = offset
    for _name, _path, count, load in labelled:
        if limit is not None and len(refs) >= limit:
            break
        if skip >= count:
            skip -= count
            continue
        refs += load()[skip:]
        skip = 0
    return (refs[:limit] if limit is not None else refs), total


Binding = Literal["bound", "import-only", "none"]


def _binding(graph: ImportGraph, path: str, used: str, target: Symbol) -> Binding:
    """What ``used`` in ``path`` is bound to: ``target`` (same file, an import of it, an
    alias of it); only on its import line (``import { async as asyncScheduler }``: the
    line names ``target``, later ``async`` do not); or nothing known."""
    if used != target.name or graph.resolves(path, target):
        return "bound"
    return "import-only" if graph.aliases_of(path, target) else "none"


def _other_definitions(store: IndexStore, target: Symbol) -> dict[str, DefinitionKey]:
    """Other files' top-level definitions of ``target``'s name (none for members); the
    module's own type stub (``m.pyi`` next to ``m.py``) declares the same one."""
    if target.container is not None:
        return {}
    same = (target.path, stub_companion(target.path))
    return {key.path: key for key in store.definition_keys(target.name)
            if key.container is None and key.path not in same}


def _stub_declarations(
    store: IndexStore, graph: ImportGraph, target: Symbol,
) -> list[tuple[bool, str, int, Callable[[], list[Reference]]]]:
    """The declarations of ``target`` in its module's type stub (``def gt(...)`` in
    ``validators.pyi`` for ``validators.py``'s ``gt``, and the other way round): the
    same definition, typed, so a use of it (jedi counts them too)."""
    stub = stub_companion(target.path)
    if stub is None or not graph.is_indexed(stub):  # no query when there is none
        return []
    found = [Reference(stub, s.selection_range, target.id, s.name, STUB_KIND, "resolved")
             for s in store.symbols_in_file(stub)
             if s.name == target.name and s.container == target.container]
    return [(False, stub, len(found), lambda: found)] if found else []


def _bound_elsewhere(
    graph: ImportGraph, path: str, others: dict[str, DefinitionKey], target: Symbol,
) -> bool:
    """Whether the name in ``path`` is another definition's: ``path`` defines it (that
    shadows any import), imports it by name from another file that defines it, or its
    imports lead to another definition (through re-exports) and not to ``target``."""
    if path in others:
        return True
    if target.container is None and graph.outside_imports(path, target.name)[1] and (
            not graph.resolves(path, target)):
        return True  # `from json import loads`: the name is another package's here
    imported = graph.imports_of(path) if others else {}
    if any(file in others and names is not None and others[file].name in names
           for file, names in imported.items()):
        return True
    return any(graph.resolves(path, other) for other in others.values()) and (
        not graph.resolves(path, target))


def _without_imports(
    graph: ImportGraph, group: tuple[str, str, str], target: Symbol
) -> list[tuple[str, str, str]]:
    """A file's uses without the import lines of the name that name another definition:
    in the defining file, all of them (``from core import Option as CoreOption`` next to
    a ``class Option``: that line names core's); elsewhere, those from modules outside
    the workspace (``from werkzeug.wrappers import Request as BaseRequest``)."""
    path, used, spans = group
    if path == target.path:
        lines = graph.import_lines(path, used)
    elif target.container is None:
        lines = graph.outside_imports(path, used)[0]
    else:
        return [group]
    if not lines:
        return [group]
    kept = [fact for fact in decode_spans(used, spans)
            if not (fact.kind == "import" and fact.span.line in lines)]
    return [(path, used, encode_spans(kept))] if kept else []


def _aliasing_imports(
    path: str, used: str, spans: str, target: Symbol
) -> tuple[bool, str, int, Callable[[], list[Reference]]]:
    """In a file with a ``zip`` of its own, ``import { zip as zipStatic }`` still names
    ``target``: the import line is its use (the alias's uses are found as aliases)."""
    facts = [fact for fact in decode_spans(used, spans) if fact.kind == "import"]
    return (False, path, len(facts), lambda: [
        RefRow.of(path, fact).as_reference(target.id, True) for fact in facts])


def _alias_groups(
    store: IndexStore, graph: ImportGraph, target: Symbol, paths: list[str]
) -> list[tuple[str, str, str]]:
    """Uses under an import alias, in the files whose import line names ``target``."""
    found = []
    for path in paths:
        for alias in graph.aliases_of(path, target):
            spans = store.ref_spans(path, alias)
            if spans is not None:
                found.append((path, alias, spans))
    return found


def _decoder(
    path: str, name: str, spans: str, symbol_id: str | None
) -> Callable[[], list[Reference]]:
    return lambda: [RefRow.of(path, fact).as_reference(symbol_id, symbol_id is not None)
                    for fact in decode_spans(name, spans)]


def _bare_calls_excluded(graph: ImportGraph, path: str, target: Symbol) -> bool:
    """Go, Python: a bare call never calls a method; Ruby: it calls self's. Such files
    are labelled use by use."""
    return target.kind in MEMBER_KINDS and graph.style_of(path) in (
        NO_BARE_METHOD_CALLS | IMPLICIT_SELF_CALLS)


def _parameter_named(store: IndexStore, graph: ImportGraph, target: Symbol) -> bool:
    """Python: whether a function of ``target``'s own module has a parameter of its name
    (``def _add_hash(cls, attrs)`` next to ``def attrs``): then that file's bare values of
    the name are labelled use by use, so those inside such a function are seen as the
    local they are. Only there (a module's own functions are where its names are reused
    as locals) and only then (one lookup of the file's signatures that hold the name):
    labelling every file use by use would triple a question's cost."""
    return target.container is None and graph.style_of(target.path) == "python" and any(
        kind in METHOD_KINDS and target.name in python_parameters(signature)
        for kind, _first, _last, signature in store.signatures_naming(target.path, target.name))


class FileScope:
    """A file's methods, read once when a ``self.m()`` use there needs them."""

    def __init__(self, store: IndexStore, path: str):
        self._store = store
        self._path = path
        self._members: list[tuple[str, str, str, int, int]] | None = None
        self._parameters: dict[str, list[tuple[int, int, frozenset[str]]]] = {}
        self._spans: dict[str, tuple[int, int]] | None = None

    def _all(self) -> list[tuple[str, str, str, int, int]]:
        if self._members is None:
            self._members = self._store.members_in_file(self._path)
        return self._members

    def method_container(self, line: int) -> str | None:
        around = [(first, container) for container, _name, kind, first, last in self._all()
                  if kind in METHOD_KINDS and first <= line <= last]
        return max(around)[1] if around else None

    def defines(self, container: str, name: str) -> bool:
        return any(c == container and n == name for c, n, _kind, _first, _last in self._all())

    def parameter(self, line: int, name: str) -> bool:
        """Whether ``name`` is a parameter of a function around ``line`` (its own or,
        in a closure, an enclosing one's; read from their signatures): there it is that
        local, not a module's."""
        functions = self._parameters.get(name)
        if functions is None:  # only the functions whose signature holds the name
            functions = self._parameters[name] = [
                (first, last, python_parameters(signature))
                for kind, first, last, signature in self._store.signatures_naming(
                    self._path, name) if kind in METHOD_KINDS]
        return any(first <= line <= last and name in names for first, last, names in functions)

    def class_body(self, line: int) -> str | None:
        """The innermost class whose members span ``line`` outside any method's body
        (a decorator between two of them), read from the members alone."""
        if self.method_container(line) is not None:
            return None
        if self._spans is None:  # each class's lines, from its first to its last member
            self._spans = {}
            for container, _name, _kind, first, last in self._all():
                low, high = self._spans.get(container, (first, last))
                self._spans[container] = (min(low, first), max(high, last))
        around = [(low, container) for container, (low, high) in self._spans.items()
                  if low <= line <= high]
        return max(around)[1] if around else None


class Types(NamedTuple):
    """The receivers' type evaluators of one question (each memoises what it reads)."""

    go: GoTypes
    python: PythonTypes

    @classmethod
    def of(cls, store: IndexStore, graph: ImportGraph) -> Types:
        return cls(GoTypes(store, graph), PythonTypes(store, graph))


def _labelled_uses(
    store: IndexStore, graph: ImportGraph, types: Types, path: str, facts: list[RefFact],
    target: Symbol | None, by_path: dict[str, list[DefinitionKey]] | None, binding: Binding,
) -> list[tuple[bool, str, int, Callable[[], list[Reference]]]]:
    """One file's uses labelled one by one: (resolved ones), (name ones)."""
    sure: list[Reference] = []
    unsure: list[Reference] = []
    scope = FileScope(store, path)
    for fact in facts:
        row = RefRow.of(path, fact)
        if target is not None:
            bound = binding == "bound" or (binding == "import-only" and fact.kind == "import")
            label = label_use(graph, path, fact.receiver, fact.kind, target,
                              line=fact.span.line, scope=scope, bound=bound, types=types.go,
                              classes=types.python)
            if label is None:
                continue
            symbol_id = target.id if label == "resolved" else None
        else:
            symbol_id = _member_target(graph, types, path, fact, by_path or {}, scope)
            if symbol_id is None and fact.kind in SCOPED_KINDS:
                continue
        (sure if symbol_id is not None else unsure).append(
            row.as_reference(symbol_id, symbol_id is not None))
    return [(name_only, path, len(found), lambda found=found: found)  # type: ignore[misc]
            for name_only, found in ((False, sure), (True, unsure)) if found]


def _member_target(
    graph: ImportGraph, types: Types, path: str, use: RefFact | RefRow,
    by_path: dict[str, list[DefinitionKey]], scope: FileScope,
) -> str | None:
    """The definition a use follows to, given its receiver: a plain or ``self.`` use as
    any use; ``pkg.F`` only into that package's files; a Go or Python receiver of known
    type to that type's member; other receivers: none."""
    receiver, expr = split_receiver(use.receiver)
    if expr is not None and graph.style_of(path) == "python":
        line = use.span.line if isinstance(use, RefFact) else use.range.start.line
        owner = types.python.receiver_class(path, expr, scope.method_container(line))
        defining = types.python.lookup(owner, use.name) if owner is not None else None
        if defining is not None:
            ids = [d.id for file_defs in by_path.values() for d in file_defs
                   if defining and (d.path, d.container) == defining[0]]
            return ids[0] if len(ids) == 1 else None
        expr = None
    typed = types.go.receiver_type(path, expr) if expr is not None else None
    if typed is not None:
        members = types.go.members(typed, use.name) if typed is not EXTERNAL else []
        return members[0].id if members and len(members) == 1 else None
    if receiver is None or receiver in SELF_RECEIVERS:
        return _target_in(graph, path, by_path)
    package = graph.qualifier_files(path, receiver)
    if package is None:
        return None
    found = [d for file in package for d in by_path.get(file, ())
             if d.container is None]
    return found[0].id if len(found) == 1 else None


def reference_at(
    store: IndexStore, graph: ImportGraph, path: str, line: int, byte_col: int
) -> Reference | None:
    for row in store.refs_in_file(path):
        r = row.range
        if r.start.line == line and r.start.byte_col <= byte_col <= r.end.byte_col:
            return resolve_use(store, graph, row, store.definition_keys(row.name))
    return None


def _targets(
    store: IndexStore, graph: ImportGraph, path: str, uses: Iterable[RefRow], own: set[str],
    limit: int | None = RELATED_LIMIT, context: tuple[FileScope, Types] | None = None,
) -> list[tuple[Symbol, list[Range]]]:
    """Definitions the uses in ``path`` are of, each with its sites: resolved ones first,
    then by how often they are used. Each use is labelled as ``find_references`` labels
    it (receivers, scope, imports: ``receivers.label_use``), so ``file.close()`` is no
    call of your ``close`` here either; a name whose only matches are ``name`` ones and
    has more than three definitions is noise and left out."""
    keys_of: dict[str, list[DefinitionKey]] = {}
    found: dict[str, tuple[int, DefinitionKey, list[Range]]] = {}  # id -> best rank, sites
    scope, types = context or (FileScope(store, path), Types.of(store, graph))
    aliases: dict[str, bool] = {}  # use name -> whether it is an import alias here
    for use in uses:
        if use.name not in keys_of:
            keys_of[use.name] = _definitions_named(store, graph, path, use.name, own)
            aliases[use.name] = bool(keys_of[use.name]) and keys_of[use.name][0].name != use.name
        for key in keys_of[use.name]:
            label = label_use(graph, path, use.receiver, use.kind, key, line=use.range.start.line,
                              scope=scope, types=types.go, classes=types.python,
                              bound=aliases[use.name])
            if label is None:
                continue
            rank, _key, sites = found.get(key.id, (1, key, []))
            sites.append(use.range)
            found[key.id] = (min(rank, 0 if label == "resolved" else 1), key, sites)
    sure_names = {key.name for rank, key, _sites in found.values() if rank == 0}
    homonyms = Counter(key.name for _rank, key, _sites in found.values())
    ranked = sorted(
        (item for item in found.values()
         if item[0] == 0 or item[1].name in sure_names or homonyms[item[1].name] <= 3),
        key=lambda item: (item[0], -len(item[2]), item[1].path, item[1].id))
    if limit is not None:
        ranked = ranked[:limit]
    symbols = ((symbol_by_id(store, key.id), sites) for _rank, key, sites in ranked)
    return [(symbol, sites) for symbol, sites in symbols if symbol is not None]


def _definitions_named(
    store: IndexStore, graph: ImportGraph, path: str, name: str, own: set[str]
) -> list[DefinitionKey]:
    """The definitions a name used in ``path`` may be: of that name, or, when ``path``
    imports something under that alias, the ones that import leads to."""
    original = graph.aliased_name(path, name)
    if original is None:
        return [k for k in store.definition_keys(name) if k.id not in own]
    return [k for k in store.definition_keys(original)
            if k.id not in own and name in graph.aliases_of(path, k)]


def find_related(store: IndexStore, graph: ImportGraph, path: str, line: int) -> Related:
    symbols = store.symbols_in_file(path)
    symbol = _innermost(symbols, line, None)
    if symbol is not None:
        first, last = symbol.range.start.line, symbol.range.end.line
    else:
        first = last = line
    uses = [row for row in store.refs_in_file(path) if first <= row.range.start.line <= last]
    own = {symbol.id} if symbol else set()
    context = FileScope(store, path), Types.of(store, graph)  # one per question: its caches
    calls = [found for found, _sites in _targets(
        store, graph, path, [r for r in uses if r.kind in CALL_KINDS], own, context=context)]
    called_by = _callers(store, graph, symbol) if symbol else []
    related = [found for found, _sites in _targets(
        store, graph, path, [r for r in uses if r.kind not in CALL_KINDS], own,
        context=context)]
    if symbol is not None:
        # then its container (the class of a method) and its siblings, in source order
        parent_id = str(SymbolId(path, symbol.container)) if symbol.container else None
        family = [s for s in symbols if s.id != symbol.id
                  and (s.container == symbol.container or s.id == parent_id)]
        seen = {s.id for s in related}
        related += [s for s in family if s.id not in seen][: max(0, RELATED_LIMIT - len(related))]
    return Related(symbol, calls, called_by, related)


def _callers(store: IndexStore, graph: ImportGraph, symbol: Symbol) -> list[Symbol]:
    return [edge.symbol for edge in incoming_calls(store, graph, symbol, RELATED_LIMIT)]


def incoming_calls(
    store: IndexStore, graph: ImportGraph, symbol: Symbol, limit: int | None
) -> list[CallEdge]:
    """Enclosing definitions of every use of ``symbol`` with the uses, resolved first."""
    refs, _total = find_references(store, graph, target=symbol, name=None, limit=None)
    ranked: dict[str, tuple[int, Symbol, list[Range]]] = {}
    for ref, caller in zip(refs, enclosing_refs(store, refs), strict=True):
        if caller is None or caller.id == symbol.id or ref.kind == STUB_KIND:
            continue  # (a declaration in the type stub calls nothing)
        rank = 0 if ref.confidence == "resolved" else 1
        best, _caller, sites = ranked.get(caller.id, (rank, caller, []))
        sites.append(ref.range)
        ranked[caller.id] = (min(best, rank), caller, sites)
    ordered = sorted(ranked.values(), key=lambda item: (item[0], item[1].path,
                                                        item[1].range.start.line))
    return [CallEdge(caller, sites) for _rank, caller, sites in ordered[:limit]]


def callers(
    store: IndexStore, graph: ImportGraph, target: Symbol,
) -> list[tuple[Symbol, Confidence]]:
    """The definitions enclosing the uses of ``target``, each once, resolved first (what
    an impact follows, breadth-first).

    ``name`` matches (``x.save()`` on a receiver of unknown type) are kept, labelled, except
    for dunder names (``__init__``), which every class shares."""
    refs, _total = find_references(store, graph, target=target, name=None, limit=None)
    own = target.id.rsplit("::", 1)[-1].rsplit(".", 1)[-1]
    if own.startswith("__") and own.endswith("__"):
        refs = [ref for ref in refs if ref.confidence != "name"]
    found: dict[str, tuple[Symbol, Confidence]] = {}
    for ref, caller in zip(refs, enclosing_refs(store, refs), strict=True):
        if caller is not None and caller.id != target.id and (
                caller.id not in found or ref.confidence == "resolved"):
            found[caller.id] = (caller, ref.confidence)
    return sorted(found.values(), key=lambda pair: (pair[1] != "resolved", pair[0].path,
                                                    pair[0].range.start.line))


def outgoing_calls(
    store: IndexStore, graph: ImportGraph, symbol: Symbol, limit: int | None
) -> list[CallEdge]:
    """What ``symbol``'s body calls (resolved definitions first) and where it calls them."""
    first, last = symbol.range.start.line, symbol.range.end.line
    calls = [row for row in store.refs_in_file(symbol.path)
             if row.kind in CALL_KINDS and first <= row.range.start.line <= last]
    return [CallEdge(target, sites)
            for target, sites in _targets(store, graph, symbol.path, calls, {symbol.id}, limit)]


def supertypes(
    store: IndexStore, graph: ImportGraph, symbol: Symbol, limit: int | None
) -> list[Symbol]:
    """The bases and interfaces named in ``symbol``'s own header (not a nested type's)."""
    own = store.symbols_in_file(symbol.path)
    bases = []
    for row in store.refs_in_file(symbol.path):
        start = row.range.start
        if row.kind in INHERITANCE_KINDS and symbol.range.contains(start.line, start.byte_col):
            encloser = _innermost(own, start.line, start.byte_col)
            if encloser is not None and encloser.id == symbol.id:
                bases.append(row)
    return [base for base, _sites in _targets(store, graph, symbol.path, bases, {symbol.id},
                                              limit)]


def subtypes(
    store: IndexStore, graph: ImportGraph, symbol: Symbol, limit: int | None
) -> list[Symbol]:
    """The types whose header names ``symbol`` as a base or interface, resolved first."""
    refs, _total = find_references(store, graph, target=symbol, name=None, limit=None)
    by_file: dict[str, list[Symbol]] = {}
    found: dict[str, Symbol] = {}
    for ref in refs:
        if ref.kind not in INHERITANCE_KINDS:
            continue
        if ref.path not in by_file:
            by_file[ref.path] = store.symbols_in_file(ref.path)
        derived = _innermost(by_file[ref.path], ref.range.start.line, ref.range.start.byte_col)
        if derived is not None and derived.id != symbol.id:
            found.setdefault(derived.id, derived)
    return list(found.values())[:limit]
