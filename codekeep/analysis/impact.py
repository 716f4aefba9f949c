"""What a diff touches: the symbols it adds, changes or removes, who reaches them, which
tests run them, and how risky each change looks.

Both sides of every file the diff names are read by two git processes (``gitdiff``), their
definitions taken from the facts cache (or parsed with the code map's own extractor) and
compared by id and text (so a definition moved down by an edit above it is not
"changed"). Callers and type users come from the index (every use's enclosing
definition, as ``incoming_calls`` finds them; :meth:`CodeMap.callers` remembers them until
the index is next written, so asking again of an unchanged index is a lookup), followed
breadth-first to ``depth`` with the chain to each; a caller in a test file is a test that
reaches the symbol.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from codekeep.analysis.gitdiff import DiffSides, ImpactError, read_diff
from codekeep.analysis.parsing import definitions_of
from codekeep.analysis.registry import default_registry

if TYPE_CHECKING:
    from codekeep.analysis.codemap import CodeMap
    from codekeep.analysis.facts import SymbolFact
    from codekeep.analysis.model import Confidence

Change = Literal["added", "changed", "removed"]
DEFAULT_DEPTH = 3
MANY_CALLERS = 10
CONSTRUCTORS = frozenset({"__init__", "__new__", "constructor"})
# callers followed per changed symbol: a utility everything calls must not take seconds
REACH_LIMIT = 500
TEST_PATH = re.compile(
    r"(^|/)(tests?|__tests__|spec)/|(^|/)test_[^/]*\.py$|_test\.(py|go)$|(^|/)conftest\.py$"
    r"|\.(test|spec)\.[cm]?[jt]sx?$")


def is_test_path(path: str) -> bool:
    return TEST_PATH.search(path) is not None


@dataclass(slots=True)
class Caller:
    id: str
    path: str
    line: int  # 0-based
    depth: int
    via: list[str]  # the chain from the changed symbol to this caller, both excluded
    confidence: Confidence = "resolved"  # of the use that makes it a caller

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "path": self.path, "line": self.line + 1, "depth": self.depth,
                "via": self.via, "confidence": self.confidence}


@dataclass(slots=True)
class Impacted:
    id: str
    name: str
    kind: str
    path: str
    line: int  # 0-based, on the side that has it
    change: Change
    callers: list[Caller] = field(default_factory=list)
    test_files: list[str] = field(default_factory=list)
    test_functions: list[str] = field(default_factory=list)
    risk: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "kind": self.kind, "path": self.path,
                "line": self.line + 1, "change": self.change, "risk": self.risk,
                "callers": [c.to_json() for c in self.callers],
                "tests": {"files": self.test_files, "functions": self.test_functions}}


@dataclass(slots=True)
class Impact:
    base: str
    head: str
    files: list[str]
    symbols: list[Impacted]

    def to_json(self) -> dict[str, Any]:
        return {"base": self.base, "head": self.head, "files": self.files,
                "symbols": [s.to_json() for s in self.symbols]}


def _definitions(path: str, data: bytes | None) -> dict[str, tuple[SymbolFact, bytes]]:
    if data is None:
        return {}
    spec = default_registry().for_path(path)
    if spec is None:
        return {}
    spec = default_registry().refine(spec, path, data)
    lines = data.splitlines(keepends=True)
    out = {}
    for symbol in definitions_of(spec, data):
        span = symbol.span
        text = b"".join(lines[span.line:span.end_line + 1])
        out[symbol.qual] = (symbol, text.strip())
    return out


def diff_symbols(codemap: CodeMap, sides: DiffSides) -> tuple[list[str], list[Impacted]]:
    """The files the diff names and the definitions it adds, changes or removes."""
    read = read_diff(codemap.root, sides, lambda path: default_registry().for_path(path)
                     is not None)
    found: list[Impacted] = []
    for changed_file in read:
        path = changed_file.path
        before = _definitions(path, changed_file.before)
        after = _definitions(path, changed_file.after)
        changed = {qual for qual in before.keys() & after.keys()
                   if before[qual][1] != after[qual][1]}
        # a container counts as changed only when no member of it explains the change
        moved = changed | (before.keys() ^ after.keys())
        changed = {qual for qual in changed
                   if not any(other.startswith(qual + ".") for other in moved)}
        for qual, change, side in (
                *((q, "added", after) for q in after.keys() - before.keys()),
                *((q, "changed", after) for q in changed),
                *((q, "removed", before) for q in before.keys() - after.keys())):
            fact = side[qual][0]
            found.append(Impacted(f"{path}::{qual}", fact.name, fact.kind, path,
                                  fact.name_span.line, change))  # type: ignore[arg-type]
    found.sort(key=lambda s: (s.path, s.line))
    return [f.path for f in read], found


def reach(codemap: CodeMap, item: Impacted, depth: int) -> None:
    """Fill ``item``'s callers (breadth-first, shortest chain first) and its tests. A caller
    found only by name is listed but not followed further (its own callers would be
    guesses of guesses)."""
    seen = {item.id}
    queue: deque[tuple[str, int, list[str]]] = deque([(item.id, 0, [])])
    if item.name in CONSTRUCTORS and "." in item.id.rsplit("::", 1)[-1]:
        # whoever builds the class runs its constructor: ``Flask(...)`` calls __init__
        owner = item.id.rsplit(".", 1)[0]
        seen.add(owner)
        queue.append((owner, 0, [owner]))
    while queue and len(item.callers) < REACH_LIMIT:
        current, level, chain = queue.popleft()
        if level >= depth:
            continue
        for caller, confidence in codemap.callers(current):
            if caller.id in seen:
                continue
            seen.add(caller.id)
            item.callers.append(Caller(caller.id, caller.path, caller.selection_range.start.line,
                                       level + 1, chain, confidence))
            if confidence == "resolved":
                queue.append((caller.id, level + 1, [*chain, caller.id]))
    tests = [c for c in item.callers if is_test_path(c.path)]
    item.test_files = sorted({c.path for c in tests})
    item.test_functions = [c.id for c in tests if c.id.rsplit(".", 1)[-1].rsplit(
        "::", 1)[-1].lower().startswith("test")]


def classify(item: Impacted) -> None:
    """The risk classes: a public name outside tests, many direct callers, no tests."""
    direct = sum(1 for c in item.callers if c.depth == 1)
    if not item.name.startswith("_") and not is_test_path(item.path):
        item.risk.append("public API")
    if item.change == "removed":  # its callers are gone from the index with it
        return
    if direct >= MANY_CALLERS:
        item.risk.append("many callers")
    if not item.test_files and not is_test_path(item.path):
        item.risk.append("no tests")


def impact(codemap: CodeMap, sides: DiffSides, depth: int = DEFAULT_DEPTH) -> Impact:
    """The whole answer: changed symbols, callers to ``depth``, tests and risk.

    The diff is read from git and the disk as they are now, the callers from the index:
    the index is first brought in line with the disk (:meth:`CodeMap.refresh`, a stat
    walk when nothing changed), so a test saved a moment ago, whose watcher event has
    not arrived yet, still counts among the tests."""
    if depth < 0:
        raise ImpactError(f"depth must be 0 or more, got {depth}")
    codemap.refresh()
    files, symbols = diff_symbols(codemap, sides)
    for item in symbols:
        if item.change != "removed":
            reach(codemap, item, depth)
        classify(item)
    return Impact(sides.label(sides.base), sides.label(sides.head), files, symbols)
