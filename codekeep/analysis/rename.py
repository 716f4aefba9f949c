"""Rename a symbol across files: its definition, resolved uses, imports and re-exports.

The index already knows every use the rename must touch: ``resolved`` references
include import lines (``from .mod import old``), ``export { old }`` and JSDoc ``{@link
old}``. Python's ``__all__`` lists names as strings, which the index does not read, so
the files the rename touches are searched for them here. ``name`` matches (a method of
the same name on a receiver of unknown type) are listed for confirmation and never
changed. A new name that is already bound in the definition's scope, or at the top of a
file the rename would make bind it, is refused before anything is written; every file's
bytes must still be what the index read, and each must still parse if it did.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codekeep.analysis.parsing import content_hash
from codekeep.analysis.symbol_edits import (
    SymbolEditError,
    locate,
    refuse_broken_parse,
    unified_diff,
)
from codekeep.common.atomic import PartialWriteError, write_all_or_none

if TYPE_CHECKING:
    from codekeep.analysis.codemap import CodeMap
    from codekeep.analysis.model import Reference, Symbol

IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")
QUOTED_NAME = re.compile(rb"(['\"])([A-Za-z_][A-Za-z0-9_]*)\1")
DUNDER_ALL = re.compile(rb"^\s*__all__\s*(?:\+=|=|:[^=]*=)\s*[\[(]", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Site:
    """One place the rename changes (``kind``: definition, use, import, __all__ ...)."""

    path: str
    line: int  # 0-based
    byte_col: int
    kind: str

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line + 1, "column": self.byte_col + 1,
                "kind": self.kind}


@dataclass(slots=True)
class RenamePlan:
    """What a rename would do: the sites per file, the diffs, the unconfirmed matches."""

    symbol: Symbol
    new_name: str
    sites: list[Site] = field(default_factory=list)
    unconfirmed: list[Reference] = field(default_factory=list)
    new_text: dict[str, bytes] = field(default_factory=dict)
    old_text: dict[str, bytes] = field(default_factory=dict)

    def diff(self) -> str:
        return "".join(unified_diff(path, self.old_text[path], self.new_text[path])
                       for path in sorted(self.new_text))

    def to_json(self, written: bool) -> dict[str, Any]:
        return {
            "symbol": self.symbol.id,
            "newName": self.new_name,
            "written": written,
            "files": sorted(self.new_text),
            "sites": [site.to_json() for site in self.sites],
            "unconfirmed": [{"path": r.path, "line": r.range.start.line + 1,
                             "column": r.range.start.byte_col + 1, "kind": r.kind}
                            for r in self.unconfirmed],
            "diff": self.diff(),
        }


def plan_rename(codemap: CodeMap, symbol: str, new_name: str) -> RenamePlan:
    """Every change the rename makes, checked, written nowhere yet."""
    target = locate(codemap, symbol)
    if not IDENTIFIER.match(new_name):
        raise SymbolEditError(f"{new_name!r} is not an identifier", "arguments")
    if new_name == target.name:
        raise SymbolEditError(f"{target.id} is already called {new_name}", "arguments")
    plan = RenamePlan(target, new_name)
    old = target.name.encode("utf-8")
    plan.sites.append(Site(target.path, target.selection_range.start.line,
                           target.selection_range.start.byte_col, "definition"))
    refs, _total = codemap.find_references(symbol_id=target.id)
    for ref in refs:
        if ref.confidence != "resolved":
            plan.unconfirmed.append(ref)
        elif ref.name == target.name:  # a use through an alias keeps the alias
            plan.sites.append(Site(ref.path, ref.range.start.line, ref.range.start.byte_col,
                                   ref.kind))
    for path in sorted({site.path for site in plan.sites}):
        data = _indexed_bytes(codemap, path)
        plan.old_text[path] = data
        plan.sites += _dunder_all_sites(path, data, old)
    _refuse_collisions(codemap, plan)
    for path, data in plan.old_text.items():
        plan.new_text[path] = _apply(data, [s for s in plan.sites if s.path == path], old,
                                     new_name.encode("utf-8"), path)
        refuse_broken_parse(path, data, plan.new_text[path])
    plan.sites.sort(key=lambda s: (s.path, s.line, s.byte_col))
    return plan


def apply_rename(codemap: CodeMap, plan: RenamePlan) -> None:
    """Write every file of ``plan`` as one change (all of them or none: a file that cannot
    be written leaves every file as it was), then let the index re-read them."""
    for path in plan.new_text:
        if content_hash((codemap.root / path).read_bytes()) != content_hash(plan.old_text[path]):
            raise SymbolEditError(f"{path} changed while the rename was planned", "stale")
    try:
        write_all_or_none({codemap.root / path: data for path, data in plan.new_text.items()},
                          keep_mode=True)
    except PartialWriteError as error:
        raise SymbolEditError(f"the rename failed half way: {error}; these files hold the "
                              "new name: " + ", ".join(map(str, error.left)), "write") from None
    except OSError as error:
        where = f" {error.filename}" if error.filename else ""
        raise SymbolEditError(f"cannot write{where}: {error.strerror or error}; nothing "
                              "renamed, every file is as it was", "write") from None
    for path in plan.new_text:
        codemap.refresh_file(path)


def _indexed_bytes(codemap: CodeMap, path: str) -> bytes:
    """The text the index holds for ``path``: an open editor buffer's (the index follows
    it keystroke by keystroke), else the disk's, refused when it changed since indexed."""
    if codemap.is_open(path):
        data = codemap.document_text(path)
        if data is not None:
            return data
    try:
        data = (codemap.root / path).read_bytes()
    except OSError as exc:
        raise SymbolEditError(f"cannot read {path}: {exc.strerror}", "not_found") from None
    if codemap.indexed_hash(path) != content_hash(data):
        raise SymbolEditError(f"{path} changed since it was indexed; run the rename again",
                              "stale")
    return data


def _dunder_all_sites(path: str, data: bytes, old: bytes) -> list[Site]:
    """The quoted ``old`` entries of a Python file's ``__all__`` lists."""
    if not path.endswith((".py", ".pyi")):
        return []
    sites = []
    entry = re.compile(rb"(['\"])" + re.escape(old) + rb"\1")
    for match in DUNDER_ALL.finditer(data):
        closer = b"]" if data[match.end() - 1:match.end()] == b"[" else b")"
        end = data.find(closer, match.end())
        for found in entry.finditer(data, match.end(), len(data) if end < 0 else end):
            at = found.start() + 1
            line = data.count(b"\n", 0, at)
            sites.append(Site(path, line, at - (data.rfind(b"\n", 0, at) + 1), "__all__"))
    return sites


def dunder_all_names(data: bytes) -> set[str]:
    """The names a Python file's ``__all__`` lists export."""
    names: set[str] = set()
    for match in DUNDER_ALL.finditer(data):
        closer = b"]" if data[match.end() - 1:match.end()] == b"[" else b")"
        end = data.find(closer, match.end())
        listed = data[match.end(): len(data) if end < 0 else end]
        names |= {m.group(2).decode() for m in QUOTED_NAME.finditer(listed)}
    return names


def _refuse_collisions(codemap: CodeMap, plan: RenamePlan) -> None:
    """The new name must be free in the definition's scope (same file, same container)
    and, for a top-level symbol, at the top of every file whose uses will name it."""
    target = plan.symbol
    for other in codemap.find_symbol(plan.new_name):
        same_scope = other.path == target.path and other.container == target.container
        binds_there = target.container is None and other.container is None and any(
            site.path == other.path for site in plan.sites)
        if same_scope or binds_there:
            raise SymbolEditError(
                f"{plan.new_name} is already defined in the same scope ({other.id}); "
                "nothing renamed", "collision")
    if target.container is None:
        for path in {site.path for site in plan.sites if site.kind == "import"}:
            for ref in codemap.find_references(name=plan.new_name)[0]:
                if ref.path == path and ref.kind == "import":
                    raise SymbolEditError(
                        f"{path} already imports a {plan.new_name}; nothing renamed",
                        "collision")


def _apply(data: bytes, sites: list[Site], old: bytes, new: bytes, path: str) -> bytes:
    """``old`` replaced by ``new`` at each site, checked to be there (last first)."""
    lines = data.splitlines(keepends=True)
    seen: set[tuple[int, int]] = set()
    for site in sorted(sites, key=lambda s: (s.line, s.byte_col), reverse=True):
        if (site.line, site.byte_col) in seen:
            continue
        seen.add((site.line, site.byte_col))
        line = lines[site.line]
        if line[site.byte_col:site.byte_col + len(old)] != old:
            raise SymbolEditError(
                f"{path}:{site.line + 1} does not read {old.decode()} where the index "
                "says; reindex and try again", "stale")
        lines[site.line] = line[:site.byte_col] + new + line[site.byte_col + len(old):]
    return b"".join(lines)
