"""Cache check: an identical read-only call in the same task returns the earlier result.

Any successful write in the task clears the cache, so a read after an edit is fresh.
"""

from __future__ import annotations

import dataclasses

from codekeep.tools.context import ToolContext
from codekeep.tools.pipeline import ToolCall, ToolMiddleware
from codekeep.tools.result import ToolResult, dumps

CACHED_NOTE = "[cached: identical call earlier in this task; nothing new]"


class CacheCheck(ToolMiddleware):
    name = "cache"

    async def before(self, call: ToolCall, ctx: ToolContext) -> ToolResult | None:
        assert call.spec is not None
        if not call.spec.cacheable:
            return None
        key = f"{call.spec.name}:{dumps(call.arguments)}"
        call.meta["cache_key"] = key
        hit = ctx.state.cache.get(key)
        if hit is None:
            return None
        return dataclasses.replace(
            hit,
            cached=True,
            content=f"{CACHED_NOTE}\n{hit.content}",
            new_information=False,
            files_read={},  # nothing was read again, nothing to attribute
        )

    async def after(self, call: ToolCall, result: ToolResult, ctx: ToolContext) -> None:
        if call.spec is None or not result.ok or result.cached:
            return
        if not call.spec.read_only:
            ctx.state.cache.clear()
            return
        key = call.meta.get("cache_key")
        if key:
            ctx.state.cache[key] = result
