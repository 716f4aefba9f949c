"""Scoring shared by every language's truth harness, and the code map's side of it.

Uses are compared by line: a workspace-relative posix path and a 1-based line number.
A line the code map reports several times counts once, and it counts as ``resolved``
when any report on it is labelled ``resolved``.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from codekeep.analysis import CodeMap

Line = tuple[str, int]

_MAPS: dict[Path, CodeMap] = {}


def score(truth: Mapping[str, set[Line]],
          ours: Mapping[str, Sequence[tuple[str, int, str]]]) -> dict[str, Any]:
    """Mean recall over symbols, pooled recall and precision, and how many ``resolved``
    lines are right.

    ``truth``: symbol -> the lines the checker reports as its uses; symbols the checker
    finds no use of are left out (recall means nothing there). ``ours``: symbol -> the
    code map's uses as (path, line, label). ``per_symbol`` lists, per symbol, its
    missed lines, its extra lines and the extra lines labelled ``resolved``.
    """
    recalls: list[float] = []
    hits = reported = resolved = resolved_hits = expected_total = 0
    per_symbol: dict[str, Any] = {}
    for symbol, expected in sorted(truth.items()):
        if not expected:
            continue
        lines: dict[Line, bool] = {}
        for path, line, label in ours.get(symbol, ()):
            lines[(path, line)] = lines.get((path, line), False) or label == "resolved"
        found = expected & lines.keys()
        sure = {key for key, is_resolved in lines.items() if is_resolved}
        recalls.append(len(found) / len(expected))
        hits += len(found)
        expected_total += len(expected)
        reported += len(lines)
        resolved += len(sure)
        resolved_hits += len(sure & expected)
        per_symbol[symbol] = {
            "truth": len(expected), "ours": len(lines), "recall": _ratio(len(found), len(expected)),
            "missed": _listed(expected - lines.keys()),
            "extra": _listed(lines.keys() - expected),
            "resolved_wrong": _listed(sure - expected),
        }
    return {
        "symbols": len(recalls),
        "mean_recall": round(sum(recalls) / len(recalls), 3) if recalls else None,
        "pooled_recall": _ratio(hits, expected_total),
        "pooled_precision": _ratio(hits, reported),
        "resolved_right": _ratio(resolved_hits, resolved),
        "resolved_lines": resolved,
        "per_symbol": per_symbol,
    }


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def _listed(lines: set[Line]) -> list[str]:
    return [f"{path}:{line}" for path, line in sorted(lines)]


def codekeep_references(
    root: Path, symbol: str, path: str, line: int
) -> list[tuple[str, int, str]]:
    """The code map's uses of the definition of ``symbol`` (``name`` or
    ``Container.name``) declared at ``path``:``line`` (1-based), as (path, line, label).

    The map of ``root`` is opened and indexed once per process and reused.
    """
    codemap = _MAPS.get(root)
    if codemap is None:
        codemap = _MAPS[root] = CodeMap.open(root)
        codemap.index()
    candidates = [s for s in codemap.find_symbol(symbol)
                  if s.path == path and s.range.start.line <= line - 1 <= s.range.end.line]
    if not candidates:
        raise LookupError(f"the code map has no {symbol} at {path}:{line}")
    definition = min(candidates, key=lambda s: s.range.end.line - s.range.start.line)
    refs, _total = codemap.find_references(symbol_id=definition.id)
    return [(ref.path, ref.range.start.line + 1, ref.confidence) for ref in refs]


def close_maps() -> None:
    """Close every map :func:`codekeep_references` opened."""
    while _MAPS:
        _MAPS.popitem()[1].close()


# The goals every language and every Python package is held to.
GOALS = {"mean_recall": 0.97, "pooled_recall": 0.95, "pooled_precision": 0.95,
         "resolved_right": 0.98}


def meets_goals(figures: Mapping[str, Any]) -> bool:
    """Whether one language's figures reach every goal (a missing figure does not)."""
    return all((figures.get(key) or 0.0) >= bound for key, bound in GOALS.items())


def arguments(language: str) -> argparse.ArgumentParser:
    """The options every language takes: ``--cache DIR`` (where registries' downloads
    and the copied project live, never the repository) and ``--show-symbols``."""
    parser = argparse.ArgumentParser(prog=f"python -m bench.refs_truth {language}")
    parser.add_argument("--cache", type=Path, default=Path(os.environ.get(
        "CODEKEEP_REFS_TRUTH_CACHE", Path.home() / ".cache" / "codekeep" / "refs_truth")))
    parser.add_argument("--show-symbols", action="store_true",
                        help="include every symbol's missed and extra lines")
    return parser


def brief(result: dict[str, Any], show_symbols: bool) -> dict[str, Any]:
    """``score``'s result, with per-symbol rows cut to their counts and wrong
    ``resolved`` lines unless ``show_symbols``."""
    if not show_symbols:
        result["per_symbol"] = {
            name: {k: v for k, v in row.items()
                   if k in ("truth", "ours", "recall", "resolved_wrong")}
            for name, row in result["per_symbol"].items()}
    return result
