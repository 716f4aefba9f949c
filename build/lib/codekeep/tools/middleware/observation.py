"""Observation record: what each call showed goes into the task's working memory.

Sinks are plain callables so other parts (and tests) can observe calls without
subclassing; the default sink writes to ``MemoryService`` when the context has one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from codekeep.common.secrets import redact_value
from codekeep.tools.context import ToolContext
from codekeep.tools.middleware.contract import ToolCall, ToolMiddleware
from codekeep.tools.result import ToolResult

ObservationSink = Callable[[ToolCall, ToolResult, ToolContext], None]


class ObservationRecord(ToolMiddleware):
    name = "observation"

    def __init__(self, sinks: Sequence[ObservationSink] | None = None) -> None:
        self.sinks: list[ObservationSink] = list(sinks) if sinks is not None else [memory_sink]

    async def after(self, call: ToolCall, result: ToolResult, ctx: ToolContext) -> None:
        for sink in self.sinks:
            sink(call, result, ctx)


def memory_sink(call: ToolCall, result: ToolResult, ctx: ToolContext) -> None:
    """Working-memory observation for every call; an event for file/command/search calls."""
    if ctx.memory is None:
        return
    ctx.memory.working_memory(ctx.task_id).observe(
        result.tool, redact_value(call.arguments), result.content
    )
    event = memory_event(call, result)
    if event is not None:
        event_type, summary, files, data = event
        ctx.memory.record_event(ctx.task_id, event_type, summary, files=files, data=data)


def memory_event(
    call: ToolCall, result: ToolResult
) -> tuple[str, str, list[str], dict[str, object] | None] | None:
    """The memory event type for a successful call, in the event log's vocabulary."""
    if not result.ok or result.cached:
        return None
    data = result.data if isinstance(result.data, dict) else {}
    if result.tool == "read_file":
        return "file_read", result.content.splitlines()[0], result.files, None
    if result.tool == "write_file":
        kind = "file_create" if data.get("created") else "file_edit"
        return kind, data.get("summary", "wrote file"), result.files, None
    if result.tool == "run_command":
        return (
            "command",
            f"{data.get('command')} -> exit {data.get('exit_code')}",
            [],
            {"command": data.get("command"), "exit_code": data.get("exit_code")},
        )
    if result.tool in ("search_code", "search_symbols", "find_symbol"):
        return (
            "search",
            f"{result.tool} {result.query!r}",
            result.files[:20],
            {"query": result.query},
        )
    return None
