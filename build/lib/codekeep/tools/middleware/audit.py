"""Audit record: every call, refused or not, lands in ``.codekeep/audit.db`` (secrets redacted)."""

from __future__ import annotations

from codekeep.tools.audit import AuditLog
from codekeep.tools.context import ToolContext
from codekeep.tools.middleware.contract import ToolCall, ToolMiddleware
from codekeep.tools.result import ToolResult


class AuditRecord(ToolMiddleware):
    name = "audit"

    def __init__(self, log: AuditLog) -> None:
        self.log = log

    async def after(self, call: ToolCall, result: ToolResult, ctx: ToolContext) -> None:
        self.log.record(
            task_id=ctx.task_id,
            actor=ctx.actor,
            tool=call.spec.name if call.spec else call.name,
            arguments=call.arguments or call.raw_arguments,
            outcome=result.outcome,
            rule=result.rule,
            reason=result.refused or result.error,
            duration_ms=result.duration_ms,
            call_id=result.call_id,
        )
