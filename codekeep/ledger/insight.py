"""What the report tells a user to change: files read over and over, summaries that cost
too much.

JSON (under ``rereads`` and ``warnings`` of the report; keys are a contract the editors
read)::

    "rereads": {"scope": "task" | "recent", "lastTasks": N,
                "files": [{"path", "reads", "tasks", "tokens", "text",
                           "suggestion": {"tool": "find_symbol", "query", "path",
                                          "lines", "tokens"} | null}]},
    "warnings": [{"kind": "summaries", "taskId", "share", "summarizeTokens", "tokens",
                  "text"}]

A file counts as re-read when calls newly read it at least twice within one task, or
in at least two of the last ``lastTasks`` tasks (a task report looks at that task only).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any, Protocol

REREAD_TASKS = 5
SUMMARY_WARN_SHARE = 0.20


class SymbolReadLike(Protocol):
    """What a suggester returns: the tokens of the cheaper read, and its JSON."""

    @property
    def tokens(self) -> int: ...

    def to_json(self) -> dict[str, object]: ...


# path -> the cheaper symbol-level read the code map offers (None: nothing cheaper known)
Suggester = Callable[[str], SymbolReadLike | None]


def rereads(rows: Iterable[tuple[str, str, int, int]], suggest: Suggester | None
            ) -> list[dict[str, Any]]:
    """Files read more than once, most expensive first, each with a cheaper read if any."""
    reads: dict[str, int] = defaultdict(int)
    tokens: dict[str, int] = defaultdict(int)
    tasks: dict[str, int] = defaultdict(int)
    most: dict[str, int] = defaultdict(int)
    for _task, path, count, billed in rows:
        reads[path] += count
        tokens[path] += billed
        tasks[path] += 1
        most[path] = max(most[path], count)
    found = []
    for path in sorted(reads, key=lambda p: (-tokens[p], p)):
        if most[path] < 2 and tasks[path] < 2:
            continue
        cheaper = suggest(path) if suggest is not None else None
        if cheaper is not None and cheaper.tokens * reads[path] >= tokens[path]:
            cheaper = None  # reading the symbol each time would not be cheaper
        text = f"`{path}` read {reads[path]}× ({compact(tokens[path])} tokens)"
        suggestion = None
        if cheaper is not None:
            suggestion = cheaper.to_json()
            text += f" — `find_symbol {suggestion['query']}` is {compact(cheaper.tokens)}"
        found.append({"path": path, "reads": reads[path], "tasks": tasks[path],
                      "tokens": tokens[path], "suggestion": suggestion, "text": text})
    return found


def summary_warnings(rows: Iterable[tuple[str, str, int]], *, share: float = SUMMARY_WARN_SHARE
                     ) -> list[dict[str, Any]]:
    """Tasks whose summaries (and distillations) cost more than ``share`` of their spend."""
    spent: dict[str, int] = defaultdict(int)
    summarising: dict[str, int] = defaultdict(int)
    for task, call_type, tokens in rows:
        spent[task] += tokens
        if call_type == "summarize":
            summarising[task] += tokens
    warnings = []
    for task in sorted(summarising):
        ratio = summarising[task] / spent[task] if spent[task] else 0.0
        if ratio > share:
            warnings.append({
                "kind": "summaries", "taskId": task, "share": round(100 * ratio, 1),
                "summarizeTokens": summarising[task], "tokens": spent[task],
                "text": (f"summaries are {100 * ratio:.1f}% of task {task}'s spend (over "
                         f"{100 * share:.0f}%): raise codekeep.memory.summaryThresholdTokens "
                         "or turn codekeep.memory.modelSummaries off"),
            })
    return warnings


def compact(tokens: int) -> str:
    """``38k``, ``1.2k``, ``950``: token counts as a reader takes them in."""
    if tokens < 1000:
        return str(tokens)
    thousands = tokens / 1000
    if thousands >= 10:
        return f"{thousands:.0f}k"
    return f"{thousands:.1f}".rstrip("0").rstrip(".") + "k"
