"""The Python packages the references harness checks against jedi, each chosen for a
shape of import that resolution must follow, and which of them are held out.

Held-out packages were chosen before any figure was measured on them and are never
used to tune resolution; the harness reports them apart. ``roots`` are the folders
(relative to the unpacked sdist) that Python would import the package from: jedi's
search path is pinned to them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Package:
    """One PyPI sdist: its name and version, the import name of the package whose
    module-level symbols are drawn, the folders it is imported from, and whether it is
    held out from tuning."""

    project: str
    version: str
    package: str
    roots: tuple[str, ...]
    shapes: str
    held_out: bool = False


PACKAGES = (
    Package("flask", "3.0.3", "flask", ("src",),
            "src/ layout, __init__.py re-export hub, TYPE_CHECKING imports, "
            "`import x as y`, a test tree with its own flask.py shadowing the package"),
    Package("click", "8.1.7", "click", ("src",),
            "src/ layout, __init__.py re-export hub, setup.cfg package-dir"),
    Package("requests", "2.31.0", "requests", (".",),
            "flat layout, conditional (try/except) imports in compat.py, "
            "`import x as y`, re-exports through compat"),
    Package("attrs", "23.2.0", "attr", ("src",),
            "src/ layout with two packages (attrs re-exports attr), star imports, __all__"),
    Package("pyparsing", "3.1.2", "pyparsing", (".",),
            "flat layout, `from .core import *` star-import hub with __all__"),
    Package("opentelemetry-api", "1.25.0", "opentelemetry", ("src",),
            "PEP 420 namespace package (src/opentelemetry has no __init__.py), "
            "re-export hubs per subpackage"),
    Package("httpx", "0.27.0", "httpx", (".",),
            "flat layout, __init__.py re-export hub with __all__, conditional imports",
            held_out=True),
    Package("jinja2", "3.1.4", "jinja2", ("src",),
            "src/ layout, __init__.py re-export hub, TYPE_CHECKING imports",
            held_out=True),
)
