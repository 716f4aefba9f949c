"""The import graph of the workspace, and "does this use resolve to that definition?".

A use of a name in file F is *resolved* to a definition in file G when G is F, or F
imports G (and, when F imports specific names from G, the definition is one of them or
lives inside one of them — ``Cls.method`` counts when ``Cls`` was imported). Anything
else with the same name is a *name* match only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from codekeep.analysis.facts import ImportFact
from codekeep.analysis.registry import LanguageRegistry
from codekeep.analysis.resolve import ModuleResolver
from codekeep.analysis.store import IndexStore


class Definition(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def container(self) -> str | None: ...


def _is_module(target: str, name: str) -> bool:
    """Whether Python's ``from p import name`` found the module ``name`` in ``target``."""
    stem = name.rsplit(".", 1)[-1]
    return target.endswith((f"/{stem}.py", f"/{stem}.pyi", f"/{stem}/__init__.py")) or (
        target in (f"{stem}.py", f"{stem}/__init__.py"))


def stub_companion(path: str) -> str | None:
    """The other half of a Python module and its type stub (``m.py`` <-> ``m.pyi``):
    the stub declares the module's own names, so the two are one module's."""
    if path.endswith(".py"):
        return path + "i"
    return path[:-1] if path.endswith(".pyi") else None


def top_level_name(symbol: Definition) -> str:
    return symbol.container.split(".", 1)[0] if symbol.container else symbol.name


# Styles whose named imports may come through a re-exporting barrel file (index.ts,
# a Python package's ``__init__.py`` doing ``from .core import Command``, a Rust
# ``mod.rs`` / ``lib.rs`` doing ``pub use self::tcp::Stream``).
BARREL_STYLES = frozenset({"javascript", "typescript", "tsx", "python", "rust"})
BARREL_HOPS = 3


def qualifier_of(style: str, imp: ImportFact) -> str | None:
    """The name a whole-module import binds (``pkg`` of ``pkg.F()``), if it binds one.

    Go: the alias, else the last path element (``.../v2`` major versions skipped). Other
    styles: the alias of a whole-module import (``import * as pkg``, ``import m as pkg``).
    """
    if imp.alias in ("_", "."):
        return None
    if imp.alias:
        return imp.alias if imp.name in (None, "*") else None
    if style == "python":  # `import click.types` binds click (see ImportGraph.qualifier_files)
        return imp.module.split(".", 1)[0] if imp.name is None else None
    if style != "go":
        return None
    parts = imp.module.rstrip("/").split("/")
    if len(parts) > 1 and re.fullmatch(r"v\d+", parts[-1]):
        parts.pop()
    last = re.sub(r"\.v\d+$", "", parts[-1])  # gopkg.in/yaml.v3 is package yaml
    # `go-isatty` cannot be a package name: the package declares its own (unknown here)
    return last if re.fullmatch(r"[A-Za-z_]\w*", last) else None


class ImportGraph:
    """Lazily computed, cached per file; dropped whenever files or imports change.

    A file's imports are read when a question is about that file: ``codekeep refs``
    looks at the few files that use a name, and must not decode every file's imports.
    """

    def __init__(self, store: IndexStore, registry: LanguageRegistry,
                 root: Path | None = None):
        self._store = store
        self._registry = registry
        self._root = root  # the workspace: its project files declare Python package roots
        self._resolver: ModuleResolver | None = None
        self._ids: dict[str, int] = {}  # indexed path -> file id
        self._raw: dict[str, list[ImportFact]] = {}
        self._languages: dict[str, str] = {}
        self._styles: dict[str, str] = {}  # language -> its import style
        self._cache: dict[str, dict[str, set[str] | None]] = {}
        # (module file, definition's path, name, container) -> does the module export it;
        # depends on other files' imports too, so any change drops it all
        self._exported: dict[tuple[str, str, str, str | None], bool] = {}
        self._qualifiers: dict[tuple[str, str], set[str] | None] = {}  # (path, receiver)
        self._stars: dict[str, set[str]] = {}  # path -> files it star-imports
        self._named: dict[tuple[str, str], set[str]] = {}  # (path, name) -> files it is from
        self._outside: dict[tuple[str, str], tuple[set[int], bool]] = {}  # (path, name)

    def invalidate(self) -> None:
        """Files came or went: every resolution may change."""
        self._resolver = None
        self._raw.clear()
        self._cache.clear()
        self._exported.clear()
        self._qualifiers.clear()
        self._stars.clear()
        self._named.clear()
        self._outside.clear()

    def update_file(self, path: str, imports: Sequence[ImportFact]) -> None:
        """One file's imports changed: only that file's resolution is stale."""
        self._raw[path] = list(imports)
        self._cache.pop(path, None)
        self._exported.clear()
        self._qualifiers = {k: v for k, v in self._qualifiers.items() if k[0] != path}
        self._stars.pop(path, None)
        self._named = {k: v for k, v in self._named.items() if k[0] != path}
        self._outside = {k: v for k, v in self._outside.items() if k[0] != path}

    def _load(self) -> ModuleResolver:
        if self._resolver is None:
            indexed = self._store.indexed_files()
            self._ids = {path: file_id for path, file_id, _language in indexed}
            self._languages = {path: language for path, _id, language in indexed}
            self._resolver = ModuleResolver(self._ids, self._root)
        return self._resolver

    def _imports(self, path: str) -> list[ImportFact]:
        found = self._raw.get(path)
        if found is None:
            self._load()  # file ids come with the resolver
            file_id = self._ids.get(path)
            found = [] if file_id is None else self._store.imports_of(file_id)
            self._raw[path] = found
        return found

    def imports_of(self, path: str) -> dict[str, set[str] | None]:
        """Files ``path`` imports -> the names it takes from each (None: all of them)."""
        found = self._cache.get(path)
        if found is None:
            resolver = self._load()
            spec = self._registry.get(self._languages.get(path, ""))
            style = spec.import_style if spec else ""
            found = resolver.imported_names(style, path, self._imports(path))
            self._cache[path] = found
        return found

    def is_indexed(self, path: str) -> bool:
        """Whether ``path`` is a file of the index (known without a query)."""
        self._load()
        return path in self._ids

    def style_of(self, path: str) -> str:
        """The import style of ``path``'s language ("" when unknown)."""
        self._load()
        language = self._languages.get(path, "")
        style = self._styles.get(language)
        if style is None:  # (asked for every file that uses a name: once per language)
            spec = self._registry.get(language)
            style = self._styles[language] = spec.import_style if spec else ""
        return style

    def qualifier_files(self, path: str, receiver: str) -> set[str] | None:
        """Files of the package ``receiver`` names in ``path`` (``pkg`` in ``pkg.F()``:
        a Go import, a namespace import), or None when it names no imported package.
        An import of a package outside the workspace gives an empty set."""
        if not receiver:
            return None
        key = (path, receiver)
        if key not in self._qualifiers:
            self._qualifiers[key] = self._qualifier_files(path, receiver)
        return self._qualifiers[key]

    def _qualifier_files(self, path: str, receiver: str) -> set[str] | None:
        resolver = self._load()
        style = self.style_of(path)
        if style == "python" and "." in receiver:
            return self._chain_files(path, receiver)
        found: set[str] | None = None
        for imp in self._imports(path):
            if qualifier_of(style, imp) == receiver:
                if style == "python" and not imp.alias:  # the package the first name is
                    imp = ImportFact(receiver, None, None, imp.line)
                found = (found or set()) | set(resolver.targets(style, path, imp))
            elif style == "python" and imp.name and (imp.alias or imp.name) == receiver:
                # `from . import types` binds a module when the name is one
                modules = {target for target in resolver.targets(style, path, imp)
                           if _is_module(target, imp.name)}
                if modules:
                    found = (found or set()) | modules
        return found

    def _chain_files(self, path: str, receiver: str) -> set[str] | None:
        """Python ``a.b.c`` (the receiver of ``a.b.c.f()``): the module it names, when
        ``a`` is an imported module and each further name one of its submodules
        (``flask.json``, ``flask.helpers``); None when the chain leaves the modules
        (``current_app.json``, ``flask.Flask``): an object, not a package. A package
        outside the workspace gives an empty set all the way down."""
        head, *rest = receiver.split(".")
        if head in ("self", "cls"):
            return None  # an instance's or class's attribute: no module (and the most common)
        files = self.qualifier_files(path, head)
        resolver = self._load()
        for part in rest:
            if files is None or not files:
                return files
            files = {found for file in files for found in resolver.submodule(file, part)}
            if not files:
                return None
        return files

    def exports(self, path: str, definition: Definition) -> bool:
        """Whether ``definition`` is a name of the module ``path``: defined there, or
        re-exported (``__init__.py`` doing ``from .core import Command``, a barrel's
        ``export { x } from``), up to :data:`BARREL_HOPS` files deep."""
        if path == definition.path:
            return True
        key = (path, definition.path, definition.name, definition.container)
        found = self._exported.get(key)
        if found is None:
            found = self._exported[key] = (
                self.style_of(path) in BARREL_STYLES and self._reaches(path, definition, 1))
        return found

    def package_files(self, path: str) -> set[str]:
        """``path`` and the files of its own package (Go, Java, C#: its folder)."""
        resolver = self._load()
        return {path, *resolver.implicit(self.style_of(path), path)}

    def unnamed_packages(self, path: str) -> set[str]:
        """Files of whole-package imports of ``path`` whose bound name is not known
        (Go ``github.com/x/go-isatty`` without an alias)."""
        resolver = self._load()
        style = self.style_of(path)
        return {target for imp in self._imports(path)
                if imp.name is None and qualifier_of(style, imp) is None
                and imp.alias not in ("_", ".")
                for target in resolver.targets(style, path, imp)}

    def aliases_of(self, path: str, definition: Definition) -> set[str]:
        """Names ``path`` binds ``definition`` to (``import { a as b }``, ``from m import
        a as b``): uses of ``b`` there are uses of ``a``. Only top-level definitions."""
        if definition.container is not None:
            return set()
        resolver = self._load()
        style = self.style_of(path)
        return {imp.alias for imp in self._imports(path)
                if imp.alias and imp.name and imp.alias != definition.name
                and imp.name.rsplit(".", 1)[-1] == definition.name
                and definition.path in resolver.targets(style, path, imp)}

    def aliased_name(self, path: str, alias: str) -> str | None:
        """The name ``path`` imports under ``alias`` (``import { a as alias }``), if any."""
        for imp in self._imports(path):
            if imp.alias == alias and imp.name and imp.name != "*":
                return imp.name.rsplit(".", 1)[-1]
        return None

    def import_lines(self, path: str, name: str) -> set[int]:
        """Lines of ``path`` importing ``name`` from some module (0-based)."""
        return {imp.line for imp in self._imports(path)
                if imp.name and imp.name.rsplit(".", 1)[-1] == name}

    def outside_imports(self, path: str, name: str) -> tuple[set[int], bool]:
        """Python: lines of ``path`` importing ``name`` from a module no workspace file
        answers (``from werkzeug.wrappers import Request as BaseRequest``, ``from json
        import loads`` inside a package with its own ``json``), and whether one of them
        binds ``name`` itself (no alias): then the file's ``name`` is that module's."""
        found = self._outside.get((path, name))
        if found is None:
            found = self._outside[(path, name)] = self._outside_imports(path, name)
        return found

    def _outside_imports(self, path: str, name: str) -> tuple[set[int], bool]:
        if self.style_of(path) != "python":
            return set(), False
        resolver = self._load()
        lines: set[int] = set()
        binds = False
        for imp in self._imports(path):
            if (imp.name and (imp.name == name or imp.name.endswith("." + name))
                    and not imp.module.startswith(".")
                    and not resolver.targets("python", path, imp)):
                lines.add(imp.line)
                binds = binds or imp.alias in (None, name)
        return lines, binds

    def resolves(self, use_path: str, definition: Definition) -> bool:
        if use_path == definition.path or use_path == stub_companion(definition.path):
            return True
        return self._reaches(use_path, definition, 0)

    def _reaches(self, path: str, definition: Definition, hops: int) -> bool:
        """Does ``path`` import ``definition``, directly or (JS/TS) through barrels?

        ``import { x } from './index'`` only compiles when ``index`` exports ``x``; if it
        does not define ``x``, it re-exports it (``export { x } from``, ``export * from``),
        so a named import follows on through the barrel's named imports and, inside a
        barrel, its whole-module ones (``export * from``), up to :data:`BARREL_HOPS`
        files deep. A file's own whole-module imports (default imports) are not
        followed: they do not bring in names; a Python star import is.
        """
        imported = self.imports_of(path)
        top = top_level_name(definition)
        style = self.style_of(path)
        python = style == "python"
        starred = self._starred(path) if python else set()
        if definition.path in imported:
            names = imported[definition.path]
            if names is None:
                # a re-exporting module passes on a module it star-imports, never one
                # it merely binds (``from . import nodes`` exports ``nodes``, not its names)
                if hops == 0 or not python or definition.path in starred or (
                        definition.path in self._sources_of(path, top)
                        or definition.path in self._sources_of(path, definition.name)):
                    return True
            elif top in names or definition.name in names:
                return True
        if hops >= BARREL_HOPS or style not in BARREL_STYLES:
            return False
        return any(
            barrel != definition.path
            and (top in taken if taken is not None
                 # Python: a module imported whole may also give names by name
                 # (`import pyparsing` next to `from pyparsing import Literal`)
                 else barrel in starred or barrel in self._sources_of(path, top) if python
                 else hops > 0)
            and self._reaches(barrel, definition, hops + 1)
            for barrel, taken in imported.items()
        )

    def _sources_of(self, path: str, name: str) -> set[str]:
        """Files ``path`` imports ``name`` from by name (``from .json import jsonify``
        next to ``from . import json``, which takes the whole module); only the imports
        of that name are resolved, once per file and name until its imports change."""
        key = (path, name)
        found = self._named.get(key)
        if found is None:
            resolver = self._load()
            found = self._named[key] = {
                file for imp in self._imports(path)
                if imp.name and imp.name != "*" and imp.name.rsplit(".", 1)[-1] == name
                for file in resolver.targets("python", path, imp)}
        return found

    def _starred(self, path: str) -> set[str]:
        """Files ``path`` star-imports (Python ``from pyparsing import *``): every name
        they export, re-exports included, is bound in ``path``."""
        found = self._stars.get(path)
        if found is None:
            resolver = self._load()
            found = self._stars[path] = {
                target for imp in self._imports(path) if imp.name == "*"
                for target in resolver.targets("python", path, imp)}
        return found
