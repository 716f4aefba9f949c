"""Duplicate-write check: the same memory or file write twice in one task is refused.

``after`` remembers the fingerprint of each successful write; ``before`` refuses a
write whose fingerprint was already recorded, so the repeat never executes. Whitespace
differences do not make a write new; ``ToolSpec.dedup_on`` names the arguments that
identify a write (a memory is the same memory whatever importance it is given).
"""

from __future__ import annotations

import hashlib

from codekeep.tools.context import ToolContext
from codekeep.tools.middleware.contract import ToolCall, ToolMiddleware
from codekeep.tools.result import ToolResult, dumps, refusal


class DuplicateWriteCheck(ToolMiddleware):
    name = "dedup"

    async def before(self, call: ToolCall, ctx: ToolContext) -> ToolResult | None:
        if call.spec is None or not call.spec.writes:
            return None
        fingerprint = write_fingerprint(call)
        call.meta["write_fingerprint"] = fingerprint
        if fingerprint in ctx.state.writes:
            return refusal(
                call.spec.name,
                "duplicate_write",
                f"this exact {call.spec.name} was already done in this task; nothing to do again",
            )
        return None

    async def after(self, call: ToolCall, result: ToolResult, ctx: ToolContext) -> None:
        fingerprint = call.meta.get("write_fingerprint")
        if fingerprint and result.ok and not result.cached:
            ctx.state.writes.add(fingerprint)


def write_fingerprint(call: ToolCall) -> str:
    assert call.spec is not None
    keys = call.spec.dedup_on
    canonical = {
        k: " ".join(v.split()).lower() if isinstance(v, str) else v
        for k, v in call.arguments.items()
        if keys is None or k in keys
    }
    digest = hashlib.sha256(dumps(canonical).encode("utf-8")).hexdigest()
    return f"{call.spec.name}:{digest}"
