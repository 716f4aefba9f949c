"""The middleware contract: what a middleware sees of a call and the two hooks it may use.

Its own module so that the pipeline (which runs the chain) and the middlewares (which
form it) both depend on this and not on each other.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from codekeep.tools.context import ToolContext
from codekeep.tools.result import ToolResult
from codekeep.tools.spec import ToolSpec


@dataclass(slots=True)
class ToolCall:
    """One call as it moves through the chain; middlewares may rewrite ``arguments``."""

    name: str
    raw_arguments: Any
    call_id: str
    spec: ToolSpec | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    started_at: float = field(default_factory=time.time)
    meta: dict[str, Any] = field(default_factory=dict)


class ToolMiddleware:
    """Base class: override ``before`` (may return a result to stop the chain) and/or ``after``."""

    name = "middleware"

    async def before(self, call: ToolCall, ctx: ToolContext) -> ToolResult | None:
        return None

    async def after(self, call: ToolCall, result: ToolResult, ctx: ToolContext) -> None:
        return None
