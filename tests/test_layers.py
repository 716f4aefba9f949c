"""The layering the architecture map promises (CONTRIBUTING.md, docs/design.md): the
service areas import only areas below them, services never import a door or the agent,
and the doors never import each other.

Checked on every import statement, lazy ones inside functions included, so a door can't
sneak back in through a function-level import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "codekeep"

#: The service areas, bottom tier first: everything a door is a thin door onto. An area may
#: import only areas in the tiers below its own — never a peer in its tier, never one above
#: (memory declares what it needs of the team scope instead of importing ``team``; memory
#: and docs both take their vectors from ``embeddings``).
SERVICE_ORDER: tuple[tuple[str, ...], ...] = (
    ("common",),
    ("settings",),
    ("analysis", "embeddings", "ledger"),
    ("docs", "memory"),
    ("team",),
    ("services", "tools"),
    ("hosting",),
)
SERVICES = tuple(area for tier in SERVICE_ORDER for area in tier)
#: ``hosts`` is the door into agent hosts (``codekeep install``, Claude Code's hooks).
DOORS_AND_AGENT = ("server", "mcp", "cli", "agent", "hosts")

FORBIDDEN: dict[str, tuple[str, ...]] = {
    **{service: DOORS_AND_AGENT for service in SERVICES},
    "mcp": ("server", "cli", "hosts"),
    "server": ("mcp", "hosts"),
    "agent": ("server", "mcp", "cli", "hosts"),
    # hosts is a door like the server: it may use the agent's model writer (a session
    # summary written by the model), never another door
    "hosts": ("server", "mcp", "cli"),
}


def _modules(area: str) -> list[Path]:
    folder = PACKAGE / area
    return sorted(folder.rglob("*.py")) if folder.is_dir() else [PACKAGE / f"{area}.py"]


def _imported_areas(path: Path) -> set[str]:
    """The top-level ``codekeep.<area>`` names a module imports, anywhere in it."""
    areas: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
            if node.module == "codekeep":
                names = [f"codekeep.{alias.name}" for alias in node.names]
        areas.update(name.split(".")[1] for name in names
                     if name.startswith("codekeep.") and name.count(".") >= 1)
    return areas


@pytest.mark.parametrize("area", sorted(FORBIDDEN))
def test_area_never_imports_what_sits_above_it(area: str) -> None:
    offenders = {
        f"{path.relative_to(PACKAGE.parent)} imports codekeep.{imported}"
        for path in _modules(area)
        for imported in _imported_areas(path) & set(FORBIDDEN[area])
    }
    assert not offenders, sorted(offenders)


def _below(area: str) -> set[str]:
    tier = next(i for i, areas in enumerate(SERVICE_ORDER) if area in areas)
    return {below for areas in SERVICE_ORDER[:tier] for below in areas}


@pytest.mark.parametrize("area", SERVICES)
def test_service_area_imports_only_the_areas_below_it(area: str) -> None:
    not_below = set(SERVICES) - _below(area) - {area}
    offenders = {
        f"{path.relative_to(PACKAGE.parent)} imports codekeep.{imported}"
        for path in _modules(area)
        for imported in _imported_areas(path) & not_below
    }
    assert not offenders, sorted(offenders)


def test_every_area_is_placed() -> None:
    """A new top-level area must be given a place in the layering above."""
    areas = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()
             if (p.is_dir() and (p / "__init__.py").exists()) or
             (p.suffix == ".py" and p.stem not in {"__init__", "__main__"})}
    unplaced = areas - set(FORBIDDEN) - {"cli", "testing", "doctor"}
    assert not unplaced, sorted(unplaced)
