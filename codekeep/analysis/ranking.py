"""The repository map: files and their most important symbols, ranked, fitted to a budget.

Files are ranked by PageRank over the reference graph (file A -> file B when A uses a
name B defines; edges followed through imports weigh more, names defined in many
places weigh less), personalised towards the focus files. A symbol's importance is its
file's rank times how much the rest of the code uses it. The rendered outline is the
largest prefix of that ranking whose text fits the token budget (tiktoken counts).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from codekeep.analysis.encoding import unpack_signature
from codekeep.analysis.imports import ImportGraph
from codekeep.analysis.model import RepoMap
from codekeep.analysis.store import IndexStore, OutlineEntry
from codekeep.common.symbol_id import qualify

DAMPING = 0.85
ITERATIONS = 40
IMPORTED_EDGE_WEIGHT = 5.0
NOISY_NAME_DEFINITIONS = 12  # names defined this often (get, __init__ ...) say little
KIND_WEIGHT = {"field": 0.4, "variable": 0.5, "constant": 0.6, "method": 0.8}


def pagerank(nodes: Sequence[str], edges: dict[str, dict[str, float]],
             personal: dict[str, float]) -> dict[str, float]:
    """Weighted PageRank with a personalisation vector (dangling mass goes to it too)."""
    if not nodes:
        return {}
    total = sum(personal.values()) or 1.0
    teleport = {n: personal.get(n, 0.0) / total for n in nodes}
    rank = dict(teleport)
    out_weight = {n: sum(targets.values()) for n, targets in edges.items()}
    for _ in range(ITERATIONS):
        incoming: dict[str, float] = defaultdict(float)
        dangling = 0.0
        for node in nodes:
            weight = out_weight.get(node, 0.0)
            if weight <= 0:
                dangling += rank[node]
                continue
            share = rank[node] / weight
            for target, w in edges[node].items():
                incoming[target] += share * w
        rank = {
            n: (1 - DAMPING) * teleport[n] + DAMPING * (incoming[n] + dangling * teleport[n])
            for n in nodes
        }
    return rank


class RepoRanker:
    def __init__(self, store: IndexStore, graph: ImportGraph):
        self._store = store
        self._graph = graph
        self._edges: dict[str, dict[str, float]] | None = None
        self._inbound: dict[tuple[str, str], float] = {}
        self._symbols: list[OutlineEntry] = []

    def invalidate(self) -> None:
        self._edges = None

    def _build(self) -> dict[str, dict[str, float]]:
        if self._edges is not None:
            return self._edges
        self._symbols = self._store.outline_entries()
        defined_in: dict[str, set[str]] = defaultdict(set)
        for symbol in self._symbols:
            defined_in[symbol.name].add(symbol.path)
        paths = {row.id: path for path, row in self._store.files().items()
                 if row.status == "indexed"}
        edges: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        inbound: dict[tuple[str, str], float] = defaultdict(float)
        for file_id, name, count in self._store.reference_edges():
            source = paths.get(file_id)
            targets = defined_in.get(name, set()) - {source}
            if source is None or not targets:
                continue
            imported = self._graph.imports_of(source)
            followed = [t for t in targets if t in imported]
            if not followed and len(targets) > NOISY_NAME_DEFINITIONS:
                continue
            for target in followed or targets:
                weight = math.sqrt(count) / len(followed or targets)
                if target in imported:
                    weight *= IMPORTED_EDGE_WEIGHT
                edges[source][target] += weight
                inbound[(target, name)] += weight
        self._inbound = inbound
        self._edges = {source: dict(targets) for source, targets in edges.items()}
        return self._edges

    def ranked_symbols(self, focus: Sequence[str]) -> tuple[list[OutlineEntry], dict[str, float]]:
        edges = self._build()
        nodes = sorted({s.path for s in self._symbols} | set(edges))
        focus_set = {f for f in focus if f in set(nodes)}
        personal = {n: (100.0 if n in focus_set else 1.0) for n in nodes}
        ranks = pagerank(nodes, edges, personal)

        def importance(symbol: OutlineEntry) -> float:
            used = self._inbound.get((symbol.path, symbol.name), 0.0)
            boost = 2.0 if symbol.path in focus_set else 1.0
            return ranks.get(symbol.path, 0.0) * boost * KIND_WEIGHT.get(symbol.kind, 1.0) * (
                1.0 + math.log1p(used))

        ordered = sorted(self._symbols, key=lambda s: (-importance(s), s.path, s.line))
        return ordered, ranks

    def render(self, token_budget: int, focus: Sequence[str]) -> RepoMap:
        # tiktoken loads its encoding on import: only the map pays for it, not every query
        from codekeep.common.tokens import token_len

        ordered, ranks = self.ranked_symbols(focus)
        ordered = ordered[: max(1, token_budget)]  # a symbol line costs at least a token
        by_name: dict[tuple[str, str], OutlineEntry] = {}
        for symbol in self._symbols:  # a container is its first definition of that name
            by_name.setdefault((symbol.path, qualify(symbol.name, symbol.container)), symbol)
        lo, hi = 0, len(ordered)
        best = RepoMap("", 0, [])
        while lo <= hi:  # the largest prefix of the ranking whose text fits
            middle = (lo + hi) // 2
            text, files = _render(ordered[:middle], ranks, by_name)
            tokens = token_len(text)
            if tokens <= token_budget:
                best = RepoMap(text, tokens, files)
                lo = middle + 1
            else:
                hi = middle - 1
        return best


def _with_containers(chosen: Sequence[OutlineEntry],
                     by_name: dict[tuple[str, str], OutlineEntry]) -> list[OutlineEntry]:
    """Add the enclosing definitions of chosen members so that the outline reads well."""
    picked = dict.fromkeys(chosen)
    for symbol in chosen:
        container = symbol.container
        while container:
            parent = by_name.get((symbol.path, container))
            if parent is None:
                break
            picked.setdefault(parent)
            container = parent.container
    return list(picked)


def _render(chosen: Sequence[OutlineEntry], ranks: dict[str, float],
            by_name: dict[tuple[str, str], OutlineEntry]) -> tuple[str, list[str]]:
    if not chosen:
        return "", []
    per_file: dict[str, list[OutlineEntry]] = defaultdict(list)
    for symbol in _with_containers(chosen, by_name):
        per_file[symbol.path].append(symbol)
    files = sorted(per_file, key=lambda p: (-ranks.get(p, 0.0), p))
    lines: list[str] = []
    for path in files:
        lines.append(f"{path}:")
        for symbol in sorted(per_file[path], key=lambda s: (s.line, s.col)):
            depth = 1 + (symbol.container.count(".") + 1 if symbol.container else 0)
            signature = unpack_signature(symbol.signature, symbol.name)
            lines.append(f"{'  ' * depth}{signature or symbol.name}")
    return "\n".join(lines) + "\n", files
