"""Trace record: the task's reasoning chain of tool calls, after the observation is recorded."""

from __future__ import annotations

from codekeep.common.secrets import redact_value
from codekeep.tools.context import ToolContext, TraceEntry
from codekeep.tools.middleware.contract import ToolCall, ToolMiddleware
from codekeep.tools.result import ToolResult

SUMMARY_CHARS = 200


class TraceRecord(ToolMiddleware):
    name = "trace"

    async def after(self, call: ToolCall, result: ToolResult, ctx: ToolContext) -> None:
        first_line = result.content.splitlines()[0] if result.content else ""
        ctx.state.trace.append(
            TraceEntry(
                tool=result.tool,
                arguments=redact_value(call.arguments or _raw(call)),
                outcome=result.outcome,
                summary=first_line[:SUMMARY_CHARS],
                duration_ms=result.duration_ms,
            )
        )


def _raw(call: ToolCall) -> dict[str, object]:
    raw = call.raw_arguments
    return raw if isinstance(raw, dict) else {"raw": raw} if raw else {}
