"""One name's definitions read straight from a parsed tree, without extracting the file.

After a keystroke the buffer's tree is new but its facts may not be extracted yet (a
keystroke that opens a string or breaks a definition changes facts across the whole
file, and extracting a 2,500-line file costs 10-20 ms). A lookup by name does not need
them all: every definition called ``name`` has that text at its name, so the tags
query is run only at the nodes enclosing each place the text occurs (matches rooted
exactly there, as ``edge_keys`` does), which yields those definitions and every
definition around them, and they are nested and numbered as the full extraction
nests and numbers them. The result equals the full extraction's symbols of that name
(tests/analysis/test_lookup.py checks it edit after edit in every language).
"""

from __future__ import annotations

import tree_sitter as ts

from codekeep.analysis.extract import Definition, Positions, add_definition, nest
from codekeep.analysis.facts import SymbolFact
from codekeep.analysis.registry import DEFINITION, LanguageSpec

# Past this many occurrences of the name in the text, extracting the file is cheaper.
MAX_OCCURRENCES = 64


def definitions_named(
    spec: LanguageSpec, src: bytes, tree: ts.Tree, name: str
) -> list[SymbolFact] | None:
    """The symbols called ``name`` in ``src``, exactly as ``extract`` gives them; None
    when the name occurs more than :data:`MAX_OCCURRENCES` times."""
    needle = name.encode("utf-8", "surrogatepass")
    if not needle:
        return []
    root = tree.root_node
    cursor = ts.QueryCursor(spec.query)
    cursor.set_max_start_depth(0)
    found: dict[tuple[int, int, int], tuple[int, Definition]] = {}
    visited: set[int] = set()
    occurrences = 0
    at = src.find(needle)
    while at >= 0:
        occurrences += 1
        if occurrences > MAX_OCCURRENCES:
            return None
        node: ts.Node | None = root.descendant_for_byte_range(at, at + len(needle))
        while node is not None and node.id not in visited:  # its ancestors were too
            visited.add(node.id)
            _definitions_at(spec, src, node, cursor, found)
            node = node.parent
        at = src.find(needle, at + 1)
    defs = [d for _pattern, d in found.values()]
    targets = [(d.start, d.end) for d in defs if d.name == name]
    # Only the definitions called ``name`` and those around them decide what the full
    # extraction makes of them (containers, kinds, ``#2``): the others (every
    # module-level name, met at the root) are left out before their signatures are read.
    relevant = [d for d in defs if d.name == name or any(
        d.start <= start and end <= d.end for start, end in targets)]
    return [s for s in nest(spec, src, relevant, Positions(src)) if s.name == name]


def _definitions_at(
    spec: LanguageSpec, src: bytes, node: ts.Node, cursor: ts.QueryCursor,
    found: dict[tuple[int, int, int], tuple[int, Definition]],
) -> None:
    """Add the definitions of the matches rooted at ``node`` (as ``run_query`` does)."""
    roles = spec.roles
    for pattern, captures in cursor.matches(node):
        info = roles[pattern]
        names = captures.get("name")
        if info is None or info[0] != DEFINITION or not names:
            continue
        if names[0].start_byte == names[0].end_byte:
            continue  # a zero-width MISSING node that error recovery inserted
        add_definition(spec, src, pattern, info[1], captures, names[0], found)
