"""The memory side of one task: what memory tells the model, and what the task leaves behind.

At the start the task's text is recorded as a ``user_message`` event (so a preference
the user stated can later be verified against their own words) and static memory goes
into the system prompt; each round gets the working memory within what the static part
left of the budget (seed 000, MemoryCoordinator). At the end the task's noted findings
are offered to long-term memory, the task summary is written, and the conversation is
mined for lasting facts (:mod:`codekeep.memory.extraction`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from codekeep.agent.exploration import Phase
from codekeep.agent.nudges import PHASE_INSTRUCTIONS
from codekeep.memory import MemoryService

log = logging.getLogger(__name__)

T = TypeVar("T")
# Runs a function where the workspace services live (the server's worker thread).
ServicesRunner = Callable[[Callable[[], Any]], Awaitable[Any]]
MEMORY_BUDGET_CAP = 4000  # seed 000: the coordinator's default total budget


class MemoryBridge:
    """Memory reads and writes of one task, on the services' thread when there is one."""

    def __init__(self, memory: MemoryService | None, task_id: str, profile: str,
                 budget: int, runner: ServicesRunner | None) -> None:
        self.memory = memory
        self.task_id = task_id
        self.profile = profile
        self.budget = budget
        self.runner = runner
        self.static_tokens = 0

    async def on_services(self, fn: Callable[[], T]) -> T:
        return fn() if self.runner is None else await self.runner(fn)

    async def start(self, task: str) -> str:
        """Record what the user asked; the static memory text for the system prompt."""
        memory = self.memory
        if memory is None:
            return ""

        def begin() -> tuple[str, int]:
            memory.record_event(self.task_id, "user_message", task)
            return memory.context_for_prompt(self.task_id, budget=self.budget,
                                             profile=self.profile, query=task)

        text, self.static_tokens = await self.on_services(begin)
        return text

    async def working(self, phase: Phase, step: int) -> str:
        """Dynamic memory for this round: its own share plus what the static part left."""
        memory = self.memory
        if memory is None:
            return ""
        budget = max(0, self.budget - self.static_tokens)

        def render() -> str:
            working = memory.working_memory(self.task_id)
            working.start_round(step)
            working.set_plan(f"{phase.value}: {PHASE_INSTRUCTIONS[phase]}")
            return str(working.render(budget))

        text = await self.on_services(render)
        return f"[Working memory]\n{text}" if text.strip() else ""

    async def record_event(self, event_type: str, summary: str, files: Sequence[str]) -> None:
        memory = self.memory
        if memory is None:
            return
        try:
            await self.on_services(lambda: memory.record_event(self.task_id, event_type,
                                                               summary, files=list(files)))
        except Exception:  # reporting the original failure matters more
            log.exception("could not record %s for %s", event_type, self.task_id)

    async def finish(self, summary: str, files: Sequence[str]) -> list[dict[str, Any]]:
        """Offer the findings, close the task in memory; the proposals and their fate."""
        memory = self.memory
        if memory is None:
            return []

        def close() -> list[dict[str, Any]]:
            proposals = self._propose_facts(memory, files)
            memory.end_task(self.task_id, summary)
            return proposals

        return await self.on_services(close)

    def _propose_facts(self, memory: MemoryService, files: Sequence[str]
                       ) -> list[dict[str, Any]]:
        """Offer the task's noted findings to long-term memory (its write path decides).

        Findings the agent wrote down with ``note_finding`` are the stable facts of a task;
        they enter as inferred (``source="agent"``, lower confidence) so anything the user
        stated wins over them, and consolidation merges repeats.
        """
        proposals = []
        for finding in memory.working_memory(self.task_id).scratchpad:
            written = memory.remember(finding.text, kind="fact", source="agent",
                                      confidence=0.7, files=list(files)[:10],
                                      task_id=self.task_id)
            proposals.append({"content": finding.text, "action": written.action,
                              "id": written.id, "reason": written.reason})
        return proposals
