"""Agent tools: registry, capability presets, the safety pipeline and the forge.

Typical use (the agent loop)::

    kit = ToolKit.open(root, codemap=codemap, memory=memory, ledger=ledger,
                       settings=settings.tools)    # codekeep.settings; None: defaults
    ctx = kit.context(task_id, "edit")
    tools = kit.pipeline.schemas(ctx)                  # OpenAI function-calling list
    result = await kit.pipeline.execute(name, arguments_json, ctx)
    result.content                                     # what the model sees
"""

from codekeep.settings.tools import ToolSettings
from codekeep.tools.capabilities import PRESETS, Capability, capability
from codekeep.tools.context import TaskToolState, ToolContext
from codekeep.tools.middleware.contract import ToolCall, ToolMiddleware
from codekeep.tools.pipeline import ToolPipeline
from codekeep.tools.registry import ToolRegistry
from codekeep.tools.result import ToolError, ToolOutput, ToolResult
from codekeep.tools.spec import Param, ToolSpec, tool
from codekeep.tools.toolkit import ToolKit, default_registry

__all__ = [
    "PRESETS",
    "Capability",
    "Param",
    "TaskToolState",
    "ToolCall",
    "ToolContext",
    "ToolError",
    "ToolKit",
    "ToolMiddleware",
    "ToolOutput",
    "ToolPipeline",
    "ToolRegistry",
    "ToolResult",
    "ToolSettings",
    "ToolSpec",
    "capability",
    "default_registry",
    "tool",
]
