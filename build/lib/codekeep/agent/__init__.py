"""The CodeKeep agent: model client, loop, exploration tracker, nudges, context window.

Typical use (what ``codekeep agent`` and ``codekeep/agent/run`` do)::

    settings = model_settings_from(editor_settings.get("agent"))   # or the environment
    loop = build_loop(root, settings, codemap=codemap, memory=memory, ledger=ledger,
                      on_event=lambda kind, payload: ...)          # progress, nudge, budget
    result = await loop.run("Where is X defined?", "explore")      # AgentResult
    result.to_json()  # {taskId, answer, iterations, tokens, toolCalls: [{name, outcome,
                      #  durationMs, files}], ...}
"""

from codekeep.agent.config import ModelNotConfigured, ModelSettings
from codekeep.agent.context_window import ContextWindow
from codekeep.agent.exploration import ExplorationBudget, ExplorationTracker, Phase
from codekeep.agent.loop import AgentLoop, AgentResult, ToolCallRecord
from codekeep.agent.model_client import ChatResponse, ModelClient, ModelError
from codekeep.agent.nudges import Nudge, NudgeGenerator, NudgeType
from codekeep.agent.runner import build_loop, model_settings_from, run_task

__all__ = [
    "AgentLoop",
    "AgentResult",
    "ChatResponse",
    "ContextWindow",
    "ExplorationBudget",
    "ExplorationTracker",
    "ModelClient",
    "ModelError",
    "ModelNotConfigured",
    "ModelSettings",
    "Nudge",
    "NudgeGenerator",
    "NudgeType",
    "Phase",
    "ToolCallRecord",
    "build_loop",
    "model_settings_from",
    "run_task",
]
