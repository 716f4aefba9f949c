"""The folders a Python project declares its packages under: what ``pip install .``
would put on the search path, so an absolute import finds the project's own package
before a stray module that shares its name.

A project is a folder holding ``pyproject.toml``, ``setup.cfg`` or ``setup.py``. Its
roots are the folder itself and its ``src/`` (setuptools' automatic discovery), plus
what it declares: setuptools' ``package-dir`` (``[tool.setuptools.package-dir]`` in
``pyproject.toml``, ``package_dir`` under ``[options]`` in ``setup.cfg``) and
``packages.find``'s ``where`` (``[tool.setuptools.packages.find]``,
``[options.packages.find]``). Only the workspace root, the folders of indexed
``setup.py`` files and the folders two levels down are looked at (one ``stat`` each),
and a file is parsed only when its text names one of those keys: the resolver is built
per CLI query.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from pathlib import Path

CONFIG_FILES = ("pyproject.toml", "setup.cfg")
_KEYS = ("package-dir", "package_dir", "where")
PROJECT_DEPTH = 2  # folders below the workspace root searched for a project's config


def declared_roots(root: Path | None, folders: Iterable[str],
                   setups: Iterable[str]) -> frozenset[str]:
    """Workspace-relative posix folders ("" the root) that are package roots, given the
    folders holding indexed files and the indexed ``setup.py`` paths."""
    projects = {posixpath.dirname(path) for path in setups} | {""}
    found: set[str] = set()
    if root is not None:
        near = {"/".join(folder.split("/")[:PROJECT_DEPTH]) for folder in folders}
        for folder in sorted(near | projects):
            declared = _declared(root, folder)
            if declared is not None:
                projects.add(folder)
                found |= {_joined(folder, rel) for rel in declared}
    return frozenset(found | projects | {_joined(folder, "src") for folder in projects})


def _joined(folder: str, rel: str) -> str:
    joined = posixpath.normpath(posixpath.join(folder, rel.strip().strip("/")))
    return "" if joined == "." else joined


def _declared(root: Path, folder: str) -> list[str] | None:
    """The package folders the project at ``folder`` declares (relative to it), or
    None when no project config file is there."""
    seen = False
    declared: list[str] = []
    for name in CONFIG_FILES:
        try:
            text = (root / folder / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        seen = True
        if any(key in text for key in _KEYS):
            declared += _from_pyproject(text) if name == "pyproject.toml" else _from_setup_cfg(text)
    return declared if seen else None


def _from_pyproject(text: str) -> list[str]:
    import tomllib  # only for a file that names a key we read

    try:
        setuptools = tomllib.loads(text).get("tool", {}).get("setuptools", {})
    except tomllib.TOMLDecodeError:
        return []  # a broken pyproject.toml declares nothing; the defaults still hold
    found: list[str] = []
    package_dir = setuptools.get("package-dir")
    if isinstance(package_dir, dict) and isinstance(package_dir.get(""), str):
        found.append(package_dir[""])
    find = setuptools.get("packages")
    where = find.get("find", {}).get("where") if isinstance(find, dict) else None
    if isinstance(where, list):
        found += [w for w in where if isinstance(w, str)]
    return found


def _from_setup_cfg(text: str) -> list[str]:
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    found: list[str] = []
    for line in parser.get("options", "package_dir", fallback="").splitlines():
        key, equals, value = line.partition("=")
        if equals and not key.strip():
            found.append(value)
    found += parser.get("options.packages.find", "where", fallback="").split()
    return found
