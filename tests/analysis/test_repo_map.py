"""The repository map: ranked by the reference graph, personalised, within the budget."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from codekeep.analysis import CodeMap
from codekeep.analysis.ranking import pagerank
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
    ranks = pagerank(["a", "b", "c"], {"a": {"c": 1.0}, "b": {"c": 1.0}}, {"a": 1, "b": 1,
                                                                          "c": 1})
    assert ranks["c"] > ranks["a"] == ranks["b"]
    assert abs(sum(ranks.values()) - 1.0) < 1e-6
    personal = pagerank(["a", "b"], {}, {"a": 1.0, "b": 0.0})
    assert personal["a"] > personal["b"]
