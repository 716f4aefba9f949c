"""The references ground-truth harness scores as documented (bench/refs_truth/common.py)
and reads our answers through the public code map API."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bench.refs_truth.common import close_maps, codekeep_references, meets_goals, score


def test_score_averages_recall_and_pools_precision() -> None:
    truth = {"a": {("x.py", 1), ("x.py", 2)}, "b": {("y.py", 5)}}
    ours = {
        # one right resolved line, one wrong name line, two uses on one line count once
        "a": [("x.py", 1, "resolved"), ("x.py", 1, "name"), ("z.py", 9, "name")],
        "b": [("y.py", 5, "name"), ("y.py", 6, "resolved")],
    }
    figures = score(truth, ours)
    assert figures["symbols"] == 2
    assert figures["mean_recall"] == 0.75  # (1/2 + 1/1) / 2
    assert figures["pooled_recall"] == 0.667  # 2 of 3 lines
    assert figures["pooled_precision"] == 0.5  # 2 right of 4 lines
    assert figures["resolved_lines"] == 2
    assert figures["resolved_right"] == 0.5
    assert figures["per_symbol"]["b"]["resolved_wrong"] == ["y.py:6"]
    assert figures["per_symbol"]["a"]["missed"] == ["x.py:2"]
    assert not meets_goals(figures)
    assert meets_goals(score({"a": {("x.py", 1)}}, {"a": [("x.py", 1, "resolved")]}))


def test_our_references_come_from_the_code_map(workspace: Callable[..., Path]) -> None:
    root = workspace({
        "lib.py": "def helper():\n    return 1\n",
        "app.py": "from lib import helper\n\nhelper()\n",
    })
    try:
        assert sorted(codekeep_references(root, "helper", "lib.py", 1)) == [
            ("app.py", 1, "resolved"), ("app.py", 3, "resolved")]
    finally:
        close_maps()
