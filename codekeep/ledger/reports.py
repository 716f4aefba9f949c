"""Turning aggregated totals into the report shape and a readable table.

JSON shape (CLI ``--json`` and ``codekeep/ledger/report``)::

    {"groupBy": "type", "since": "...", "taskId": null,
     "rows":   [{"key", "calls", "inputTokens", "outputTokens", "cachedTokens",
                 "reasoningTokens", "costUsd", "unpricedCalls", "estimatedCalls",
                 "share"}],                                     # share: % of tokens
     "byFile": [{"path", "calls", "tokens", "costUsd", "share"}],  # % of input tokens
     "overhead": [{"bucket", "label", "calls", "tokens", "costUsd", "share"}],
     "total":  {"calls", "inputTokens", "outputTokens", "cachedTokens", "reasoningTokens",
                "tokens", "costUsd", "unpricedCalls", "estimatedCalls"},
     "budget": {"task": {...} | null, "daily": {...} | null},
     "errors": {"total", "byKind": {"connection": 3, "api": 1}, "text": "3 failed connections"},
     "unpriced": [{"model", "calls"}],            # models the price table does not know
     "host": null,                                # the host the report is kept to, if any
     "hosts": [{"host", "calls", "tokens", "costUsd", "unpricedCalls"}],  # per agent host
     "reason": "no calls recorded for task T"}    # only for a task without calls

Rows and the total carry ``estimatedCalls``: calls whose endpoint reported no usage
(llama.cpp's streams, a ``ledger record`` from texts), so CodeKeep counted their tokens
itself — the whole request as sent, with tiktoken — and the server's own count may
differ; the text table marks their token cells ``~`` and a warning says how many there
are. Rows and the total carry ``unpricedCalls``: calls of a model the price table does not
know are booked at no cost, so a ``costUsd`` with unpriced calls is a lower bound and
the text table says so ("unpriced", or ">=" before a partial sum) — never a silent
$0.0000. Error events (a failed connection, an API error) are not calls: they are
counted apart under ``errors``.

A report of a task with no calls carries a ``reason``: an empty table would read as
"this task was free" when the task id is most likely a typo.

``byFile`` and ``overhead`` split the input tokens of the calls that said what their
prompt carried (the agent's calls do): each file is billed for the characters of its
text in each prompt, the rest goes to the buckets ``system`` (system prompt, memory,
nudges), ``tools`` (tool schemas) and ``conversation``. Together (all files, not only
the top ones) they add up to those calls' input tokens; shares are % of that sum.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from codekeep.ledger.attribution import OVERHEAD_BUCKETS
from codekeep.ledger.records import ERROR_KINDS
from codekeep.ledger.store import Totals

_BUCKET_OF = {key: bucket for bucket, key in OVERHEAD_BUCKETS.items()}


def build_report(*, group_by: str, since: datetime | None, task_id: str | None,
                 rows: Sequence[Totals], by_file: Sequence[Totals], overhead: Sequence[Totals],
                 total: Totals | None, file_total: int, budget: dict[str, Any],
                 errors: dict[str, int] | None = None, unpriced: Sequence[Totals] = ()
                 ) -> dict[str, Any]:
    total_tokens = total.tokens if total else 0
    errors = errors or {}
    report = {
        "groupBy": group_by,
        "since": since.isoformat() if since else None,
        "taskId": task_id,
        "rows": [_row_json(row, total_tokens if group_by != "file" else file_total)
                 for row in rows],
        "byFile": [
            {"path": row.key, "calls": row.calls, "tokens": row.input_tokens,
             "costUsd": round(row.cost_usd, 6), "share": _share(row.input_tokens, file_total)}
            for row in by_file
        ],
        "overhead": [
            {"bucket": _BUCKET_OF[row.key], "label": row.key.strip("<>"), "calls": row.calls,
             "tokens": row.input_tokens, "costUsd": round(row.cost_usd, 6),
             "share": _share(row.input_tokens, file_total)}
            for row in overhead
        ],
        "total": {
            "calls": total.calls if total else 0,
            "inputTokens": total.input_tokens if total else 0,
            "outputTokens": total.output_tokens if total else 0,
            "cachedTokens": total.cached_tokens if total else 0,
            "reasoningTokens": total.reasoning_tokens if total else 0,
            "tokens": total_tokens,
            "costUsd": round(total.cost_usd, 6) if total else 0.0,
            "unpricedCalls": total.unpriced if total else 0,
            "estimatedCalls": total.estimated if total else 0,
        },
        "budget": budget,
        "errors": {"total": sum(errors.values()), "byKind": dict(errors),
                   "text": error_text(errors)},
        "unpriced": [{"model": row.key, "calls": row.unpriced} for row in unpriced],
    }
    if task_id is not None and not (total and total.calls):
        window = f" since {since.isoformat()}" if since else ""
        report["reason"] = f"no calls recorded for task {task_id}{window}"
    return report


def _row_json(row: Totals, denominator: int) -> dict[str, Any]:
    return {
        "key": row.key, "calls": row.calls, "inputTokens": row.input_tokens,
        "outputTokens": row.output_tokens, "cachedTokens": row.cached_tokens,
        "reasoningTokens": row.reasoning_tokens, "costUsd": round(row.cost_usd, 6),
        "unpricedCalls": row.unpriced, "estimatedCalls": row.estimated,
        "share": _share(row.tokens, denominator),
    }


def host_rows(rows: Sequence[Totals]) -> list[dict[str, Any]]:
    """Totals per agent host (``claude-code``, ``codex``, ``codekeep``), largest first."""
    return [{"host": row.key, "calls": row.calls, "tokens": row.tokens,
             "costUsd": round(row.cost_usd, 6), "unpricedCalls": row.unpriced} for row in rows]


def error_text(errors: dict[str, int]) -> str:
    """``{"connection": 3, "api": 1}`` -> "3 failed connections, 1 API error"."""
    parts = []
    order = list(ERROR_KINDS)
    for kind, count in sorted(errors.items(), key=lambda item: (
            -item[1], order.index(item[0]) if item[0] in order else len(order))):
        one, many = ERROR_KINDS.get(kind, (kind, kind))
        parts.append(f"{count:,} {one if count == 1 else many}")
    return ", ".join(parts)


def cost_text(cost: float, calls: int, unpriced: int) -> str:
    """A cost cell: the sum, or what is missing from it when calls were unpriced."""
    if not unpriced:
        return f"{cost:.4f}"
    return "unpriced" if unpriced >= calls and not cost else f">={cost:.4f}"


def unpriced_warning(unpriced: Sequence[dict[str, Any]]) -> str | None:
    if not unpriced:
        return None
    calls = sum(entry["calls"] for entry in unpriced)
    models = ", ".join(entry["model"] for entry in unpriced)
    return (f"{calls:,} call{'s' if calls != 1 else ''} unpriced: the price table does not "
            f"know {models} (add it under the ledger.models setting); costs shown leave "
            "them out")


def estimated_warning(calls: int, estimated: int) -> str | None:
    """Say which share of the calls were counted by us, not by the endpoint."""
    if not estimated:
        return None
    share = (f"{estimated:,}" if estimated == 1 else f"all {estimated:,}") \
        if estimated >= calls else f"{estimated:,} of {calls:,}"
    return (f"{share} call{'s' if calls != 1 else ''} estimated (~): the endpoint reported "
            "no usage, so CodeKeep counted the request as sent and the reply itself; the "
            "server's own count may differ")


def tokens_text(tokens: int, estimated: int) -> str:
    """A token cell: ``~`` before a sum that holds tokens we counted ourselves."""
    return f"~{tokens:,}" if estimated else f"{tokens:,}"


def _share(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


_GROUP_TITLES = {"type": "call type", "file": "file", "task": "task", "day": "day (UTC)",
                 "model": "model", "host": "host"}


def render_text(report: dict[str, Any]) -> str:
    """The report: the by-call-type table plus top files and budget state."""
    lines: list[str] = []
    header = [_GROUP_TITLES[report["groupBy"]], "calls", "input", "output", "cached", "cost $",
              "share"]
    body = [
        [row["key"], f"{row['calls']:,}",
         tokens_text(row["inputTokens"], row.get("estimatedCalls", 0)),
         tokens_text(row["outputTokens"], row.get("estimatedCalls", 0)),
         f"{row['cachedTokens']:,}",
         cost_text(row["costUsd"], row["calls"], row.get("unpricedCalls", 0)),
         f"{row['share']:.1f}%"]
        for row in report["rows"]
    ]
    total = report["total"]
    footer = ["total", f"{total['calls']:,}",
              tokens_text(total["inputTokens"], total.get("estimatedCalls", 0)),
              tokens_text(total["outputTokens"], total.get("estimatedCalls", 0)),
              f"{total['cachedTokens']:,}",
              cost_text(total["costUsd"], total["calls"], total.get("unpricedCalls", 0)),
              "100.0%" if total["tokens"] else "0.0%"]
    lines.extend(_table(header, body, footer))
    if report["byFile"] or report.get("overhead"):
        lines += ["", "Input tokens by what the prompts carried (top files, then overhead)"]
        lines.extend(_table(
            ["file", "calls", "tokens", "share"],
            [[row["path"], f"{row['calls']:,}", f"{row['tokens']:,}", f"{row['share']:.1f}%"]
             for row in report["byFile"]]
            + [[f"({row['label']})", f"{row['calls']:,}", f"{row['tokens']:,}",
                f"{row['share']:.1f}%"] for row in report.get("overhead", [])],
        ))
    reread = (report.get("rereads") or {}).get("files") or []
    if reread:
        scope = report["rereads"]
        where = "in this task" if scope["scope"] == "task" else \
            f"across the last {scope['lastTasks']} tasks"
        lines += ["", f"Files read more than once {where}"]
        lines += [f"  {entry['text']}" for entry in reread[:10]]
    lines += [f"Warning: {warning['text']}" for warning in report.get("warnings") or []]
    hosts = report.get("hosts") or []
    if len(hosts) > 1 or any(row["host"] != "codekeep" for row in hosts):
        lines.append("By host: " + ", ".join(
            f"{row['host']} {row['calls']:,} calls "
            f"${cost_text(row['costUsd'], row['calls'], row['unpricedCalls'])}"
            for row in hosts))
    errors = report.get("errors") or {}
    if errors.get("total"):
        lines.append(f"Errors: {errors['text']} (requests without an answer, not calls)")
    lines += ["", *budget_lines(report["budget"])]
    return "\n".join(lines)


def budget_lines(budget: dict[str, Any]) -> list[str]:
    lines = []
    if budget.get("task"):
        state = budget["task"]
        lines.append(f"Budget (task {state['taskId']}): {state['used']:,} / {state['limit']:,} "
                     f"tokens ({state['ratio']:.0%}){' hard stop' if state['hardStop'] else ''}")
    if budget.get("daily"):
        state = budget["daily"]
        lines.append(f"Budget (day {state['day']} UTC): {state['used']:,} / {state['limit']:,} "
                     f"tokens ({state['ratio']:.0%}){' hard stop' if state['hardStop'] else ''}")
    return lines or ["Budget: none set"]


def _table(header: list[str], body: list[list[str]], footer: list[str] | None = None) -> list[str]:
    rows = [header, *body, *([footer] if footer else [])]
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]

    def line(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = [cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join([first, *rest]).rstrip()

    rule = "  ".join("-" * width for width in widths)
    out = [line(header), rule, *(line(row) for row in body)]
    if footer:
        out += [rule, line(footer)]
    return out
