"""The repository map: ranked by the reference graph, personalised, within the budget."""

from __future__ import annotations

import gc
import math
import random
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from codekeep.analysis import CodeMap
from codekeep.analysis.errors import IndexCancelled
from codekeep.analysis.imports import ImportGraph
from codekeep.analysis.rankgraph import build, pagerank
from codekeep.analysis.ranking import KIND_WEIGHT, RepoRanker
from codekeep.analysis.registry import default_registry
from codekeep.analysis.store import IndexStore
from codekeep.common.tokens import token_len

PROJECT = {
    "core/db.py": "class Database:\n    def query(self, sql: str) -> list:\n        return []\n",
    "core/cache.py": ("from core.db import Database\n\n\nclass Cache:\n"
                      "    def __init__(self, db: Database) -> None:\n        self.db = db\n"),
    "feature_a.py": ("from core.db import Database\n\n\ndef report(db: Database):\n"
                     "    return db.query('a')\n"),
    "feature_b.py": ("from core.db import Database\n\n\ndef export(db: Database):\n"
                     "    return db.query('b')\n"),
    "scripts/lonely.py": "def lonely_helper():\n    return 42\n",
}


def _map(workspace: Callable[..., Path], open_map: Callable[..., CodeMap]) -> CodeMap:
    codemap = open_map(workspace(PROJECT))
    codemap.index()
    return codemap


def test_most_used_file_comes_first_and_text_fits_the_budget(workspace, open_map) -> None:
    codemap = _map(workspace, open_map)
    repo_map = codemap.repo_map(token_budget=400)
    assert repo_map.files[0] == "core/db.py"
    assert repo_map.text.startswith("core/db.py:\n  class Database\n    def query(self, sql: str)")
    assert repo_map.tokens == token_len(repo_map.text) <= 400
    small = codemap.repo_map(token_budget=12)
    assert 0 < small.tokens <= 12
    assert small.text.splitlines()[0] == "core/db.py:"
    assert codemap.repo_map(token_budget=1).text == ""


def test_focus_files_pull_their_neighbourhood_up(workspace, open_map) -> None:
    codemap = _map(workspace, open_map)
    plain = codemap.repo_map(token_budget=30).text
    focused = codemap.repo_map(token_budget=30, focus=["scripts/lonely.py"])
    assert "lonely_helper" not in plain
    assert "lonely_helper" in focused.text


def test_pagerank_prefers_nodes_with_more_incoming_weight() -> None:
    # a -> c, b -> c: c gathers both
    ranks = pagerank(np.array([0, 1], np.int32), np.array([2, 2], np.int32),
                     np.array([1.0, 1.0]), np.array([1.0, 1.0, 1.0]))
    assert ranks[2] > ranks[0] == ranks[1]
    assert abs(ranks.sum() - 1.0) < 1e-6
    personal = pagerank(np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0),
                        np.array([1.0, 0.0]))
    assert personal[0] > personal[1]


def _tangled(count: int = 40) -> dict[str, str]:
    """Modules calling each other's functions unevenly (seeded): many ranks, many uses."""
    chance = random.Random(7)
    files = {}
    for i in range(count):
        lines = []
        for _ in range(chance.randint(0, 8)):
            j = min(count - 1, int(chance.paretovariate(1.2)) - 1)
            if j != i:
                lines.append(f"from m{j} import f{j}_{chance.randint(0, 3)}\n")
        body = "".join(f"def f{i}_{k}():\n    return {k}\n\n\n" for k in range(4))
        calls = "".join(f"    {line.split()[-1]}()\n" for line in lines)
        files[f"m{i}.py"] = "".join(lines) + body + (
            f"class C{i}:\n    size = {i}\n\n    def run(self):\n        return 1\n"
            f"\n\ndef main{i}():\n{calls or '    pass'}\n")
    return files


def test_the_walk_ranks_exactly_as_sorting_every_symbol(workspace, open_map) -> None:
    # the map reads only the files that can still place a symbol: the same ranking as
    # scoring every symbol of the index and sorting them all
    root = workspace(_tangled())
    open_map(root).index()
    store = IndexStore(root / ".codekeep" / "index.db")
    try:
        graph = build(store, ImportGraph(store, default_registry()))
        for focus, limit in (((), 25), ((), 400), (("m13.py",), 25)):
            ranks = graph.ranks([graph.at_path[p] for p in focus])
            every = []
            for at, path in enumerate(graph.paths):
                entries = store.outline_of(int(graph.file_ids[at]), path)
                boost = 2.0 if path in focus else 1.0
                for entry, used in zip(entries, graph.uses(at, [e.name for e in entries]),
                                       strict=True):
                    every.append((ranks[at] * boost * KIND_WEIGHT.get(entry.kind, 1.0)
                                  * (1.0 + math.log1p(used)), entry))
            every.sort(key=lambda c: (-c[0], c[1].path, c[1].line))
            walked, _ranks, _names = RepoRanker(store, default_registry()).ranked_symbols(
                focus, limit)
            assert walked == [entry for _importance, entry in every[:limit]]
        assert len(graph.sources) > 20 and max(graph.use_weights) > 1  # a real graph
    finally:
        store.close()


def test_a_saved_graph_is_used_only_while_the_index_is_unchanged(workspace, open_map) -> None:
    root = workspace(PROJECT)
    first = open_map(root)
    first.index()
    first.prepare_map()
    saved = root / ".codekeep" / "map-graph.npz"
    assert saved.is_file()
    expected = first.repo_map(token_budget=60)
    first.close()
    assert open_map(root).repo_map(token_budget=60) == expected  # loaded, not rebuilt
    for name in ("feature_a", "feature_b", "feature_c", "feature_d"):  # lonely is used now
        (root / f"{name}.py").write_text(
            "from scripts.lonely import lonely_helper\n\n\n"
            f"def {name}():\n    return lonely_helper() + lonely_helper()\n")
    changed = open_map(root)
    changed.index()
    assert "lonely_helper" in changed.repo_map(token_budget=60).text
    assert "lonely_helper" not in expected.text


def test_a_damaged_saved_graph_is_built_again(workspace, open_map) -> None:
    root = workspace(PROJECT)
    codemap = open_map(root)
    codemap.index()
    expected = codemap.repo_map(token_budget=400)
    codemap.close()
    (root / ".codekeep" / "map-graph.npz").write_bytes(b"PK\x03\x04 not a zip")
    assert open_map(root).repo_map(token_budget=400) == expected


def test_a_prepared_map_never_shows_a_symbol_that_is_gone(workspace, open_map) -> None:
    # after prepare_map a change rebuilds the graph in the background and maps answer
    # from the previous one meanwhile: its ranks may be behind, its symbols never are
    root = workspace(PROJECT)
    codemap = open_map(root)
    codemap.index()
    codemap.prepare_map()
    assert "class Database" in codemap.repo_map(token_budget=400).text
    (root / "core/db.py").write_text("class Storage:\n    def query(self, sql):\n"
                                     "        return []\n")
    codemap.refresh_file("core/db.py")
    text = codemap.repo_map(token_budget=400).text
    assert "class Database" not in text
    assert "lonely_helper" in text  # the rest of the map is still there


def test_a_cancelled_build_leaves_no_cursor_behind(workspace, open_map,
                                                   monkeypatch) -> None:
    # a server closing mid-build: its log must not end in "Exception ignored … Cannot
    # operate on a closed database" from a cursor the cancelled build left open
    codemap = _map(workspace, open_map)
    unraisable: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    reader = IndexStore.reading(codemap.root / ".codekeep" / "index.db")
    try:
        with pytest.raises(IndexCancelled) as cancelled:
            build(reader, ImportGraph(reader, default_registry()), stop=lambda: True)
    finally:
        reader.close()
    del cancelled
    gc.collect()
    assert unraisable == []
