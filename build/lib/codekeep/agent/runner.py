"""Running one agent task from a front door: settings, services, loop, cleanup.

The CLI calls :func:`run_task`; the language server builds its loop with
:func:`build_loop` on the services it already holds. Both get the model from
:func:`model_settings_from` so the editor settings and the environment mean the same.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from codekeep.agent.config import ModelSettings
from codekeep.agent.exploration import ExplorationBudget
from codekeep.agent.loop import (
    AgentLoop,
    AgentResult,
    EventSink,
    ServicesRunner,
    checked_task,
)
from codekeep.analysis.codemap import CodeMap
from codekeep.ledger import Ledger
from codekeep.memory import MemoryService
from codekeep.services import WorkspaceServices
from codekeep.tools import ToolKit, ToolSettings


def model_settings_from(section: Mapping[str, Any] | None = None,
                        env: Mapping[str, str] | None = None,
                        **overrides: Any) -> ModelSettings:
    """Settings section (``codekeep.agent``) over the environment; explicit values win."""
    settings = ModelSettings.from_settings(section, env)
    given = {key: value for key, value in overrides.items() if value is not None}
    return replace(settings, **given) if given else settings


def build_loop(root: Path, model: ModelSettings, *, codemap: CodeMap | None,
               memory: MemoryService | None, ledger: Ledger | None,
               on_event: EventSink | None = None,
               services_runner: ServicesRunner | None = None,
               exploration_budget: ExplorationBudget | None = None,
               tool_settings: ToolSettings | None = None) -> AgentLoop:
    toolkit = ToolKit.open(root, codemap=codemap, memory=memory, ledger=ledger,
                           settings=tool_settings)
    return AgentLoop(toolkit, model, on_event=on_event, services_runner=services_runner,
                     exploration_budget=exploration_budget)


async def run_task(root: Path, task: str, *, model: ModelSettings, capability: str = "chat",
                   token_budget: int | None = None, on_event: EventSink | None = None,
                   exploration_budget: ExplorationBudget | None = None) -> AgentResult:
    """Open the workspace, bring the index up to date, run the task, close everything."""
    model.require_model()  # say how to configure a model before touching any store
    checked_task(task)
    services = WorkspaceServices.open(root)  # the one code map, memory and ledger
    try:
        await asyncio.to_thread(services.codemap.index)
        loop = build_loop(services.root, model, codemap=services.codemap,
                          memory=services.memory, ledger=services.ledger, on_event=on_event,
                          exploration_budget=exploration_budget)
        try:
            return await loop.run(task, capability, token_budget=token_budget)
        finally:
            loop.toolkit.close()
    finally:
        services.close()
