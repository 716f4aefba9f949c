"""The repository map: files and their most important symbols, ranked, fitted to a budget.

Files are ranked by PageRank over the reference graph (:mod:`.rankgraph`), personalised
towards the focus files. A symbol's importance is its file's rank times how much the
rest of the code uses it. The rendered outline is the largest prefix of that ranking
whose text fits the token budget (tiktoken counts).

Only the files that can still place a symbol in the map are read: they are visited in
the order of the most any of their symbols can score (rank x the largest use there),
and the walk stops once that bound falls below the last place of the map, so a map of
a kernel reads a few hundred files' symbols from SQLite, not millions held in memory.

The graph is a snapshot, saved beside the index (``map-graph.npz``, with a fingerprint
of the index's content: a process finding it current loads it instead of building it;
``codekeep index`` does not build it: 2.3 CPU-seconds on a 3.1M-line tree, a seventh of
its cold index and two thirds of an index from the shared facts cache). A
code map's first map loads or builds it; a long-lived one (the server,
:meth:`RepoRanker.prepare`) rebuilds it in the background after a change and answers
from the previous snapshot meanwhile (its symbols are always read fresh: a symbol that
is gone is never shown; only the ranks may be a change behind).
"""

from __future__ import annotations

import heapq
import logging
import math
import threading
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from codekeep.analysis.encoding import unpack_signature
from codekeep.analysis.errors import IndexCancelled
from codekeep.analysis.imports import ImportGraph
from codekeep.analysis.model import RepoMap
from codekeep.analysis.registry import LanguageRegistry
from codekeep.analysis.store import IndexStore, OutlineEntry
from codekeep.common.symbol_id import qualify

if TYPE_CHECKING:  # numpy loads with the first map: a CLI query does not pay for it
    from codekeep.analysis.rankgraph import RankGraph

logger = logging.getLogger(__name__)

SAVED_GRAPH = "map-graph.npz"  # beside index.db
FOCUS_BOOST = 2.0
KIND_WEIGHT = {"field": 0.4, "variable": 0.5, "constant": 0.6, "method": 0.8}

Ranked = tuple[list[OutlineEntry], dict[str, float], dict[tuple[str, str], OutlineEntry]]


class RepoRanker:
    """The map's graph snapshot and the maps drawn from it (the unfocused ones kept
    until the index changes: an agent asks for the same map again and again)."""

    def __init__(self, store: IndexStore, registry: LanguageRegistry,
                 stop: Callable[[], bool] = lambda: False):
        self._store = store
        self._registry = registry
        self._stop = stop  # the owner is closing: a build under way ends (IndexCancelled)
        self._state = threading.Lock()  # guards the fields below, never held for a build
        self._graph: RankGraph | None = None
        self._stale = True
        self._background = False
        self._build = threading.Lock()
        self._maps: dict[int, RepoMap] = {}

    def invalidate(self) -> None:
        with self._state:
            self._stale = True
            self._maps.clear()

    def prepare(self) -> None:
        """Load or build the graph now, on the calling thread, and from then on rebuild
        it in the background whenever a map finds it stale (for a long-lived owner)."""
        with self._state:
            self._background = True
        self._rebuild()

    def _rebuild(self) -> None:
        """Make the graph current: the one saved beside the index when it was built
        from the index as it is now (a server started on an unchanged index), else a
        new build, saved for the next process."""
        from codekeep.analysis.rankgraph import RankGraph, build

        with self._build:  # one build at a time; a map without a graph waits for it
            with self._state:
                if self._graph is not None and not self._stale:
                    return  # built meanwhile by whoever held the lock
                self._stale = False  # a change from now on makes this build stale again
            saved = self._store.path.with_name(SAVED_GRAPH)
            reader = IndexStore.reading(self._store.path)
            try:
                graph = RankGraph.load(saved, reader)
                if graph is None:
                    graph = build(reader, ImportGraph(reader, self._registry), self._stop)
                    try:
                        graph.save(saved)
                    except OSError as error:  # a read-only folder: only the next start pays
                        logger.warning("could not save the map's graph to %s: %s", saved, error)
            finally:
                reader.close()
            with self._state:
                self._graph = graph
                self._maps.clear()

    def _rebuild_quietly(self) -> None:
        try:
            self._rebuild()
        except IndexCancelled:
            pass  # closing: nobody asks for a map any more
        except Exception:  # the folder closed meanwhile ...: the next map tries again
            logger.exception("rebuilding the repository map's graph of %s failed",
                             self._store.path)
            with self._state:
                self._stale = True

    def _current(self) -> RankGraph:
        """The snapshot to answer from: loaded or built now when there is none (or, for
        a short-lived code map, when it is stale); otherwise the one there is, with a
        rebuild started in the background when it is stale."""
        with self._state:
            graph, stale = self._graph, self._stale
            if graph is not None and self._background:
                if stale and not self._build.locked():
                    threading.Thread(target=self._rebuild_quietly, name="repo-map-graph",
                                     daemon=True).start()
                return graph
            if graph is not None and not stale:
                return graph
        self._rebuild()
        with self._state:
            assert self._graph is not None
            return self._graph

    def ranked_symbols(self, focus: Sequence[str], limit: int) -> Ranked:
        """The ``limit`` most important symbols in order, the ranks of the files they
        were read from, and those files' definitions by qualified name (containers)."""
        import numpy as np

        graph = self._current()
        chosen = [i for path in focus if (i := graph.at_path.get(path)) is not None
                  and graph.nodes[i]]
        ranks = graph.ranks(chosen)
        boost = np.ones(len(ranks))
        boost[chosen] = FOCUS_BOOST
        bound = ranks * boost * (1.0 + np.log1p(graph.most_used))
        places: list[float] = []  # min-heap of the best ``limit`` importances so far
        candidates: list[tuple[float, OutlineEntry]] = []
        file_ranks: dict[str, float] = {}
        by_name: dict[tuple[str, str], OutlineEntry] = {}
        for at in np.argsort(-bound, kind="stable").tolist():
            if bound[at] <= 0 or (len(places) >= limit and bound[at] < places[0]):
                break
            path = graph.paths[at]
            entries = self._store.outline_of(int(graph.file_ids[at]), path)
            file_ranks[path] = float(ranks[at])
            scale = float(ranks[at] * boost[at])
            for entry, used in zip(entries, graph.uses(at, [e.name for e in entries]),
                                   strict=True):
                importance = scale * KIND_WEIGHT.get(entry.kind, 1.0) * (1.0 + math.log1p(used))
                candidates.append((importance, entry))
                # a container is its file's first definition of that name
                by_name.setdefault((path, qualify(entry.name, entry.container)), entry)
                if len(places) < limit:
                    heapq.heappush(places, importance)
                elif importance > places[0]:
                    heapq.heapreplace(places, importance)
        candidates.sort(key=lambda c: (-c[0], c[1].path, c[1].line))
        return [entry for _importance, entry in candidates[:limit]], file_ranks, by_name

    def render(self, token_budget: int, focus: Sequence[str]) -> RepoMap:
        # tiktoken loads its encoding on import: only the map pays for it, not every query
        from codekeep.common.tokens import token_len

        if not focus:
            with self._state:
                kept = self._maps.get(token_budget)
            if kept is not None:
                return kept
        # a symbol line costs at least a token
        ordered, ranks, by_name = self.ranked_symbols(focus, max(1, token_budget))
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
        if not focus:
            with self._state:
                if not self._stale:
                    self._maps[token_budget] = best
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
