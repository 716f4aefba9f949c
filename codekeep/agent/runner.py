"""Running one agent task from a front door: settings, services, loop, cleanup.

The CLI calls :func:`run_task`; the language server builds its loop with
:func:`build_loop` on the services it already holds. Both take the model and the tools
from the same settings tree (``codekeep.settings``), so a setting means the same in
the editor and on the command line.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from codekeep.agent.exploration import ExplorationBudget
from codekeep.agent.loop import (
    AgentLoop,
    AgentResult,
    EventSink,
    ServicesRunner,
    checked_task,
)
from codekeep.analysis.codemap import CodeMap
from codekeep.docs import DocsIndex
from codekeep.ledger import Ledger
from codekeep.memory import MemoryService
from codekeep.services import WorkspaceServices
from codekeep.settings import Settings
from codekeep.settings.agent import ModelSettings
from codekeep.tools import ToolKit, ToolSettings


def build_loop(root: Path, model: ModelSettings, *, codemap: CodeMap | None,
               memory: MemoryService | None, ledger: Ledger | None,
               docs: DocsIndex | None = None,
               on_event: EventSink | None = None,
               services_runner: ServicesRunner | None = None,
               exploration_budget: ExplorationBudget | None = None,
               tool_settings: ToolSettings | None = None) -> AgentLoop:
    toolkit = ToolKit.open(root, codemap=codemap, memory=memory, ledger=ledger, docs=docs,
                           settings=tool_settings)
    return AgentLoop(toolkit, model, on_event=on_event, services_runner=services_runner,
                     exploration_budget=exploration_budget)


async def run_task(root: Path, task: str, *, settings: Settings, capability: str = "chat",
                   token_budget: int | None = None, on_event: EventSink | None = None,
                   exploration_budget: ExplorationBudget | None = None) -> AgentResult:
    """Open the workspace, bring the index up to date, run the task, close everything."""
    settings.agent.require_model()  # say how to configure a model before touching a store
    checked_task(task)
    services = WorkspaceServices.open(root, settings)  # the one code map, memory and ledger
    try:
        await asyncio.to_thread(services.codemap.index)
        await asyncio.to_thread(services.docs.index)
        loop = build_loop(services.root, settings.agent, codemap=services.codemap,
                          memory=services.memory, ledger=services.ledger, docs=services.docs,
                          on_event=on_event, exploration_budget=exploration_budget,
                          tool_settings=settings.tools)
        try:
            return await loop.run(task, capability, token_budget=token_budget)
        finally:
            loop.toolkit.close()
    finally:
        services.close()
