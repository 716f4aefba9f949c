"""Fixtures for the agent tests: a scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from codekeep.agent.exploration import ExplorationBudget
from codekeep.agent.loop import AgentLoop, AgentResult
from codekeep.agent.runner import build_loop
from codekeep.analysis.codemap import CodeMap
from codekeep.ledger import Ledger
from codekeep.memory import MemoryService, MemorySettings
from codekeep.settings.agent import ModelSettings
from codekeep.settings.tools import ToolSettings
from codekeep.testing.scripted_server import ScriptedModelServer
from tests.agent.projects import write_shop


@pytest.fixture
def model_server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        yield server


@pytest.fixture
def model_settings(model_server: ScriptedModelServer) -> ModelSettings:
    """Settings pointing at the scripted server, with retries fast enough for tests."""
    return ModelSettings(model="scripted-model", base_url=model_server.base_url,
                         api_key="test-key", backoff_base=0.01, backoff_max=0.05,
                         timeout=10.0)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return write_shop(tmp_path / "ws", generated_functions=400)


@dataclass
class AgentHarness:
    """Real services on a workspace, an agent loop wired to the scripted server."""

    root: Path
    server: ScriptedModelServer
    settings: ModelSettings
    codemap: CodeMap
    memory: MemoryService
    ledger: Ledger
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def loop(self, budget: ExplorationBudget | None = None, tools: ToolSettings | None = None,
             **model: Any) -> AgentLoop:
        settings = replace(self.settings, **model) if model else self.settings
        return build_loop(self.root, settings, codemap=self.codemap, memory=self.memory,
                          ledger=self.ledger, on_event=self._on_event,
                          exploration_budget=budget, tool_settings=tools)

    async def run(self, task: str, capability: str = "chat", **options: Any) -> AgentResult:
        budget = options.pop("budget", None)
        token_budget = options.pop("token_budget", None)
        tools = options.pop("tools", None)
        return await self.loop(budget, tools, **options).run(task, capability,
                                                      token_budget=token_budget)

    def _on_event(self, kind: str, payload: dict[str, Any]) -> None:
        self.events.append((kind, payload))

    def kinds(self, kind: str) -> list[dict[str, Any]]:
        return [payload for k, payload in self.events if k == kind]

    def ledger_rows(self, task_id: str) -> list[sqlite3.Row]:
        self.ledger.flush()
        with sqlite3.connect(self.root / ".codekeep" / "ledger.db") as conn:
            conn.row_factory = sqlite3.Row
            return conn.execute("SELECT * FROM calls WHERE task_id = ? ORDER BY ts, id",
                                (task_id,)).fetchall()


@pytest.fixture
def memory_settings() -> MemorySettings:
    """The model does not write summaries, distillations or extraction answers in the
    loop tests (their scripts end with the answer); tests that script those override this."""
    return MemorySettings(model_summaries=False)


@pytest.fixture
def harness(workspace: Path, model_server: ScriptedModelServer,
            model_settings: ModelSettings, memory_settings: MemorySettings
            ) -> Iterator[AgentHarness]:
    codemap = CodeMap.open(workspace)
    codemap.index()
    memory = MemoryService.open(workspace, settings=memory_settings)
    ledger = Ledger.open(workspace, start_flusher=False)
    try:
        yield AgentHarness(workspace, model_server, model_settings, codemap, memory, ledger)
    finally:
        ledger.close()
        memory.close()
        codemap.close()
