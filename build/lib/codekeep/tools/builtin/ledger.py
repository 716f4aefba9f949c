"""ledger_report: what this task (or the whole project) has spent on model calls."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal

from codekeep.ledger.reports import render_text
from codekeep.tools.context import ToolContext
from codekeep.tools.result import ToolOutput
from codekeep.tools.spec import Param, tool


@tool(category="ledger", read_only=True, cacheable=False, compression="text")
async def ledger_report(
    ctx: ToolContext,
    scope: Annotated[Literal["task", "all"], Param("This task only, or every task.")] = "task",
    group_by: Annotated[
        Literal["type", "file", "task", "day", "model"], Param("How to group the rows.")
    ] = "type",
    since_hours: Annotated[
        int | None, Param("Only the last N hours.", schema={"minimum": 1})
    ] = None,
) -> ToolOutput:
    """Token spending so far: calls, input/output/cached tokens, cost, top files, budget."""
    since = datetime.now(UTC) - timedelta(hours=since_hours) if since_hours else None
    report = ctx.require_ledger().report(
        task_id=ctx.task_id if scope == "task" else None, since=since, group_by=group_by
    )
    return ToolOutput(data=report, text=render_text(report))
