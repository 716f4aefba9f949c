"""Exploration signal: did this call show the agent something it had not seen in this task?

New files, new search patterns and new queries count as new information; the agent's
exploration tracker uses ``result.new_information`` and the ``unique_*`` sets to decide when
exploring has stopped paying off.
"""

from __future__ import annotations

from codekeep.tools.context import ToolContext
from codekeep.tools.middleware.contract import ToolCall, ToolMiddleware
from codekeep.tools.result import ToolResult

# Categories whose results are information about the project (not actions or meta).
INFORMATION_CATEGORIES = frozenset({"code_map", "files", "memory", "ledger", "forged"})


class ExplorationSignal(ToolMiddleware):
    name = "exploration"

    async def after(self, call: ToolCall, result: ToolResult, ctx: ToolContext) -> None:
        spec = call.spec
        if spec is None or not result.ok or result.cached or not spec.read_only:
            return
        if spec.category not in INFORMATION_CATEGORIES:
            return
        state = ctx.state
        new_files = set(result.files) - state.unique_files
        state.unique_files |= new_files
        new_query = False
        if result.query is not None:
            bucket = state.unique_patterns if spec.compression == "search" else state.unique_queries
            key = result.query if spec.compression == "search" else f"{spec.name}:{result.query}"
            new_query = key not in bucket
            bucket.add(key)
        result.new_information = bool(new_files) or new_query
