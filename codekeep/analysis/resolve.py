"""Which files does a file import? Module text -> workspace files, by path shape.

Resolution is deliberately language-agnostic: each ``import_style`` (a key of the
language table) only says how a module string turns into candidate paths — dotted
Python modules, relative JS/TS specifiers with extension and ``index`` probing, Go
package directories, Java/C# packages, Rust ``crate::`` paths, C/C++ ``#include``
files. Candidates are then matched against the indexed files either exactly (relative
imports) or by path suffix (absolute ones, so ``src/`` layouts and monorepos work
without configuration).
"""

from __future__ import annotations

import bisect
import functools
import posixpath
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from codekeep.analysis.facts import ImportFact
from codekeep.analysis.package_roots import declared_roots

JS_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
# Styles whose files see every file of their own folder without importing it.
PACKAGE_DIR_STYLES = frozenset({"go", "java", "csharp"})
# Styles where `x.h` and `x.c` describe the same module.
COMPANION_STYLES = frozenset({"c", "cpp"})
COMPANION_EXTENSIONS = (".h", ".hpp", ".hh", ".hxx", ".c", ".cc", ".cpp", ".cxx")

AnyName = None  # an import that brings in a whole module: any of its names may be used


class _Probe(NamedTuple):
    """A path to look for: exactly (relative imports) or as a suffix; a file or a folder.
    (A named tuple: a query makes and hashes hundreds.)"""

    path: str
    exact: bool
    folder: bool = False
    # Go: the import path is the module path + the folder, so the folder is its suffix.
    folder_is_suffix: bool = False


def _relative_base(importer: str, ups: int) -> str:
    base = posixpath.dirname(importer)
    for _ in range(ups):
        base = posixpath.dirname(base)
    return base


def _join(base: str, rel: str) -> str:
    joined = posixpath.normpath(posixpath.join(base, rel)) if rel else base
    return "" if joined == "." else joined


def _python_probes(importer: str, module: str, name: str | None) -> list[list[_Probe]]:
    """One group for the module itself and one for ``module.name`` (it may be a submodule)."""
    dots = len(module) - len(module.lstrip("."))
    dotted = module[dots:].replace(".", "/")
    stems = [dotted]
    if name and name != "*":
        stems.append(_join(dotted, name.replace(".", "/")) if dotted else name)
    groups = []
    for stem in stems:
        full = _join(_relative_base(importer, dots - 1), stem) if dots else stem
        prefix = f"{full}/" if full else ""
        files = [f"{full}.py", f"{full}.pyi"] if stem else []
        files += [f"{prefix}__init__.py", f"{prefix}__init__.pyi"]
        groups.append([_Probe(c, exact=bool(dots)) for c in files if full or dots])
    return groups


def _js_probes(importer: str, module: str, name: str | None) -> list[_Probe]:
    relative = module.startswith((".", "/"))
    if relative:
        stem = _join(posixpath.dirname(importer), module)
    else:
        stem = module[2:] if module.startswith(("@/", "~/")) else module
    bare = posixpath.splitext(stem)[0] if stem.endswith((".js", ".mjs", ".cjs", ".jsx")) else stem
    candidates = [stem]
    candidates += [bare + ext for ext in JS_EXTENSIONS]
    candidates += [f"{stem}/index{ext}" for ext in JS_EXTENSIONS]
    return [_Probe(c, exact=relative) for c in candidates if c]


def _dotted_package_probes(module: str, extension: str) -> list[_Probe]:
    parts = module.rstrip(".*").replace("::", ".").split(".")
    path = "/".join(p for p in parts if p)
    if not path:
        return []
    probes = [_Probe(path + extension, exact=False), _Probe(path, exact=False, folder=True)]
    if len(parts) > 1:  # `import a.b.C` names a class in a/b/
        probes.append(_Probe("/".join(parts[:-1]), exact=False, folder=True))
    return probes


def _rust_probes(importer: str, module: str, name: str | None) -> list[_Probe]:
    parts = [p for p in module.split("::") if p and p not in ("{", "}")]
    base = ""
    exact = False
    if parts and parts[0] in ("crate", "self", "super"):
        exact = parts[0] != "crate"
        # The folder holding this module's children: src/net/ for src/net/mod.rs (and
        # lib.rs, main.rs), src/net/tcp/ for src/net/tcp.rs.
        folder, file_name = posixpath.split(importer)
        stem = posixpath.splitext(file_name)[0]
        own = folder if stem in ("mod", "lib", "main") else _join(folder, stem)
        if parts[0] == "self":
            base = own
        elif parts[0] == "super":
            base = posixpath.dirname(own)
        parts = parts[1:]
    probes = []
    for length in range(len(parts), 0, -1):  # the tail may name items, not modules
        stem = _join(base, "/".join(parts[:length])) if exact else "/".join(parts[:length])
        probes += [_Probe(stem + ".rs", exact), _Probe(stem + "/mod.rs", exact)]
    return probes


def _include_probes(importer: str, module: str, name: str | None) -> list[_Probe]:
    local = _join(posixpath.dirname(importer), module)
    return [_Probe(local, exact=True), _Probe(module, exact=False)]


def _path_like_probes(importer: str, module: str, extension: str) -> list[_Probe]:
    relative = module.startswith(".")
    stem = _join(posixpath.dirname(importer), module) if relative else module
    stem = stem.replace("\\", "/").lstrip("/")
    candidates = [stem] if stem.endswith(extension) else [stem + extension, stem]
    return [_Probe(c, exact=relative) for c in candidates]


def probe_groups(style: str, importer: str, module: str, name: str | None) -> list[list[_Probe]]:
    """Alternatives to try in order, per group; every group that matches contributes."""
    if style == "python":
        return _python_probes(importer, module, name)
    return [_single_group(style, importer, module, name)]


def _single_group(style: str, importer: str, module: str, name: str | None) -> list[_Probe]:
    if style in ("javascript", "typescript", "tsx"):
        return _js_probes(importer, module, name)
    if style == "go":
        return [_Probe(module.strip("/"), exact=False, folder=True, folder_is_suffix=True)]
    if style == "java":
        return _dotted_package_probes(module, ".java")
    if style == "csharp":
        return _dotted_package_probes(module, ".cs")
    if style == "rust":
        return _rust_probes(importer, module, name)
    if style in ("c", "cpp"):
        return _include_probes(importer, module, name)
    if style == "ruby":
        return _path_like_probes(importer, module, ".rb")
    if style == "php":
        return _php_probes(importer, module, name)
    return []


def _php_probes(importer: str, module: str, name: str | None) -> list[_Probe]:
    """``use App\\Models\\User`` (a class per file), group uses ``use App\\S\\{A, B}``
    (module ``App\\S`` + name ``A``), and ``require __DIR__ . '/../x.php'`` (module
    ``/../x.php``, relative to the requiring file)."""
    path = module.replace("\\", "/")
    if path.startswith("/"):
        return _path_like_probes(importer, "." + path, ".php")
    probes = []
    if name and not path.endswith("/" + name) and path != name:
        probes += _path_like_probes(importer, f"{path}/{name}", ".php")
    return probes + _path_like_probes(importer, path, ".php")


class ModuleResolver:
    """Maps one file's imports to the workspace files they bring in."""

    def __init__(self, paths: Iterable[str], root: Path | None = None):
        self.paths = set(paths)
        self._root = root  # the workspace, whose project files declare package roots
        self._matched: dict[_Probe, list[str]] = {}
        self._resolved_cache: dict[tuple[str, str, str, str | None], list[tuple[str, bool]]] = {}

    # Built on first use: a CLI query builds a resolver per call over every path of the
    # tree, and most probes need one of the two lookups.
    @functools.cached_property
    def _by_reversed(self) -> tuple[list[str], list[str]]:
        """Every path lowered and reversed, sorted, and the paths in that order: a
        suffix lookup ("pkg/__init__.py" at any depth) is a prefix search by bisection
        (sorting in C costs a fraction of indexing every path in Python)."""
        pairs = sorted([(path.lower()[::-1], path) for path in self.paths])
        return [key for key, _ in pairs], [path for _, path in pairs]

    @functools.cached_property
    def _by_folder(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for path in self.paths:
            found.setdefault(path.rpartition("/")[0].rstrip("/"), []).append(path)
        return found

    def _match(self, probe: _Probe) -> list[str]:
        """Files a probe finds; memoised (files import the same modules over and over)."""
        found = self._matched.get(probe)
        if found is None:
            found = self._matched[probe] = self._find(probe)
        return found

    def _find(self, probe: _Probe) -> list[str]:
        if probe.folder_is_suffix:
            folders = [f for f in self._by_folder
                       if f and (probe.path == f or probe.path.endswith("/" + f))]
            longest = max(folders, key=len, default=None)
            return list(self._by_folder[longest]) if longest is not None else []
        if probe.folder:
            if probe.exact:
                return list(self._by_folder.get(probe.path, ()))
            return [
                path for folder, files in self._by_folder.items()
                if folder == probe.path or folder.endswith("/" + probe.path)
                for path in files
            ]
        if probe.exact:
            return [probe.path] if probe.path in self.paths else []
        wanted = probe.path.lower()[::-1]  # the path itself, or it after a "/"
        keys, paths = self._by_reversed
        found = []
        for at in range(bisect.bisect_left(keys, wanted), len(keys)):
            key = keys[at]
            if not key.startswith(wanted):
                break
            if len(key) == len(wanted) or key[len(wanted)] == "/":
                found.append(paths[at])
        return found

    def targets(self, style: str, importer: str, imp: ImportFact) -> list[str]:
        return [target for target, _whole in self._resolved(style, importer, imp)
                if target != importer]

    def _resolved(self, style: str, importer: str, imp: ImportFact) -> list[tuple[str, bool]]:
        """Files one import brings in, each with "the whole module?"; memoised.

        Absolute imports resolve the same from every file (but a Python one whose
        candidates rank differently from different folders, see ``_python_hits``) and
        relative ones the same from every file of a folder, so thousands of repeated
        imports cost one lookup each.
        """
        relative = imp.module.startswith((".", "/", "super", "self")) or style in (
            COMPANION_STYLES)
        folder = posixpath.dirname(importer)
        key = (style, folder if relative else "", imp.module, imp.name)
        found = self._resolved_cache.get(key)
        if found is None and not relative and style == "python":
            key = (style, folder, imp.module, imp.name)  # one of those that depend on it
            found = self._resolved_cache.get(key)
        if found is None:
            whole_import = imp.name is None or imp.name == "*"
            found = []
            everywhere = True
            for index, group in enumerate(probe_groups(style, importer, imp.module, imp.name)):
                if style == "python" and not relative:
                    hits, same_everywhere = self._python_hits(importer, group)
                    everywhere = everywhere and same_everywhere
                else:
                    hits = self._first_hits(group)
                # Python: the module itself brings in the names imported from it (an
                # ``__init__.py`` re-exporting them), the second group is a submodule
                found += [(target, whole_import or index > 0) for target in hits]
            if not relative:
                key = (style, "" if everywhere else folder, imp.module, imp.name)
            self._resolved_cache[key] = found
        return found

    def _first_hits(self, group: list[_Probe]) -> list[str]:
        """The files of the first probe of ``group`` that finds any."""
        for probe in group:
            matched = self._match(probe)
            if matched:
                return matched
        return []

    def _python_hits(self, importer: str, group: list[_Probe]) -> tuple[list[str], bool]:
        """The files an absolute Python import finds, as Python would import them.

        A file found by suffix sits under some folder R (``tests/apps/inner`` for
        ``tests/apps/inner/flask.py``); Python imports it under that name only when R
        is on its search path, and R is none when it is itself a package (holds an
        ``__init__.py``): then the file is ``cliapp.inner.flask``, and ``import json``
        in ``src/web/app.py`` is the standard library's, not ``src/web/json``. Of the
        rest, a declared package root wins (the workspace root, ``src/``, the folder
        of a ``setup.py`` and its ``src/``), then the importer's own folder or one
        above it (a script or test run from there), then any other. Second: whether
        every importer finds the same (a single candidate, or the best a declared root)."""
        ranked: list[tuple[int, int, str]] = []
        for order, probe in enumerate(group):
            for path in self._match(probe):
                root = path[:len(path) - len(probe.path)].rstrip("/")
                if self._is_package(root):
                    continue
                ranked.append((self._root_rank(importer, root), order, path))
        if not ranked:
            return [], True  # only modules inside other packages: `import json` is the stdlib's
        best = min(ranked)[:2]
        return ([path for rank, order, path in ranked if (rank, order) == best],
                len(ranked) == 1 or best[0] == 0)

    def _is_package(self, folder: str) -> bool:
        prefix = f"{folder}/" if folder else ""
        return bool(folder) and (f"{prefix}__init__.py" in self.paths
                                 or f"{prefix}__init__.pyi" in self.paths)

    @functools.cached_property
    def _python_roots(self) -> frozenset[str]:
        """Folders a Python project declares its packages under (see ``_python_hits``
        and :mod:`codekeep.analysis.package_roots`)."""
        setups = [path for path in self._by_folder.get("", ()) if path == "setup.py"]
        setups += [path for path in self.paths if path.endswith("/setup.py")]
        return declared_roots(self._root, self._by_folder, setups)

    def _root_rank(self, importer: str, root: str) -> int:
        if root in self._python_roots:
            return 0
        folder = posixpath.dirname(importer)
        return 1 if not root or folder == root or folder.startswith(root + "/") else 2

    def submodule(self, module: str, name: str) -> list[str]:
        """The file of Python module ``name`` inside the package whose ``__init__.py``
        is ``module`` (none when ``module`` is a plain module: it has no submodules)."""
        folder, base = posixpath.split(module)
        if base not in ("__init__.py", "__init__.pyi"):
            return []
        stem = _join(folder, name)
        for candidates in ((f"{stem}.py", f"{stem}.pyi"),
                           (f"{stem}/__init__.py", f"{stem}/__init__.pyi")):
            found = [path for path in candidates if path in self.paths]
            if found:
                return found[:1]
        return []

    def imported_names(
        self, style: str, importer: str, imports: Iterable[ImportFact]
    ) -> dict[str, set[str] | None]:
        """Target file -> names imported from it (``None``: the whole module)."""
        result: dict[str, set[str] | None] = {}
        for imp in imports:
            for target, whole in self._resolved(style, importer, imp):
                if target == importer:
                    continue
                current = result.get(target, set())
                if whole or current is None:
                    result[target] = None
                else:
                    name = imp.name.rsplit(".", 1)[-1]  # type: ignore[union-attr]
                    if imp.alias in (None, name):  # `import {a as b}` binds b, not a
                        current.add(name)
                    result[target] = current
        for companion in self.implicit(style, importer):
            result[companion] = None
        return result

    def implicit(self, style: str, importer: str) -> list[str]:
        """Files ``importer`` sees without importing them (its package, its header)."""
        folder = posixpath.dirname(importer)
        if style in PACKAGE_DIR_STYLES:
            extension = posixpath.splitext(importer)[1]
            return [p for p in self._by_folder.get(folder, ()) if p != importer
                    and p.endswith(extension)]
        if style in COMPANION_STYLES:
            stem = posixpath.splitext(importer)[0]
            return [stem + ext for ext in COMPANION_EXTENSIONS
                    if stem + ext in self.paths and stem + ext != importer]
        return []
