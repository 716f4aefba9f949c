"""The memory side of one task: what memory tells the model, and what the task leaves behind.

At the start the task's text is recorded as a ``user_message`` event (so a preference
the user stated can later be verified against their own words) and static memory goes
into the system prompt; each round gets the working memory within what the static part
left of the budget (MemoryCoordinator). At the end the task's noted findings
are offered to long-term memory, the task summary is written, and the conversation is
mined for lasting facts (:mod:`codekeep.memory.extraction`).

With a :class:`~codekeep.agent.writer.ModelWriter` (a model is configured and
``codekeep.memory.modelSummaries`` is on) the model writes the task's summaries — in
the middle of the task when the backlog is due, and at its end — and runs the model
stage of the extraction; without one the rule-based summary and the rule stage stay.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from codekeep.agent.exploration import Phase
from codekeep.agent.nudges import PHASE_INSTRUCTIONS
from codekeep.agent.writer import ModelWriter, Written
from codekeep.embeddings.embedders import Embedded
from codekeep.memory import MemoryService, extraction
from codekeep.memory.events import Event, model_summary, summary_request

log = logging.getLogger(__name__)

T = TypeVar("T")
# Runs a function where the workspace services live (the server's worker thread).
ServicesRunner = Callable[[Callable[[], Any]], Awaitable[Any]]
MEMORY_BUDGET_CAP = 4000  # the coordinator's default total budget


class MemoryBridge:
    """Memory reads and writes of one task, on the services' thread when there is one."""

    def __init__(self, memory: MemoryService | None, task_id: str, profile: str,
                 budget: int, runner: ServicesRunner | None,
                 writer: ModelWriter | None = None) -> None:
        self.memory = memory
        self.task_id = task_id
        self.profile = profile
        self.budget = budget
        self.runner = runner
        self.writer = writer if memory is not None else None
        self.static_tokens = 0

    async def on_services(self, fn: Callable[[], T]) -> T:
        return fn() if self.runner is None else await self.runner(fn)

    async def embedded(self, text: str) -> Embedded | None:
        """The embeddings a recall of ``text`` needs, sent off the services' thread when
        they live on one (the server's folder worker, which applies keystrokes, must
        never wait for the network); None: let the recall send it itself (no such
        thread), or it needs none."""
        memory = self.memory
        if memory is None or self.runner is None:
            return None
        job = await self.on_services(lambda: memory.recall_embedding(text))
        return await job.run_off_thread() if job is not None else None

    async def start(self, task: str) -> str:
        """Record what the user asked; the static memory text for the system prompt."""
        memory = self.memory
        if memory is None:
            return ""

        embedded = await self.embedded(task)

        def begin() -> tuple[str, int]:
            if self.writer is not None:
                memory.defer_summaries(self.task_id)
            memory.record_event(self.task_id, "user_message", task)
            return memory.context_for_prompt(self.task_id, budget=self.budget,
                                             profile=self.profile, query=task,
                                             embedded=embedded)

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

    async def close_failed(self, summary: str) -> None:
        """A task whose model failed: summarise what it asked and how it failed (the
        rule-based summary: the model is what failed), so the request is not lost."""
        memory = self.memory
        if memory is None:
            return
        try:
            await self.on_services(lambda: memory.end_task(self.task_id, summary))
        except Exception:  # reporting the original failure matters more
            log.exception("could not close the failed task %s", self.task_id)

    async def after_round(self) -> None:
        """Write a summary when the backlog is due (3× the model call's real cost)."""
        memory, writer = self.memory, self.writer
        if memory is None or writer is None:
            return
        backlog = await self.on_services(
            lambda: memory.summary_backlog(self.task_id, cost=writer.summary_cost))
        if backlog:
            await self._summary(memory, writer, backlog)

    async def _summary(self, memory: MemoryService, writer: ModelWriter,
                       backlog: list[Event]) -> str | None:
        """The model's template summary (one retry with the reason), else the rule one."""
        content, reason = await model_written_summary(writer, self.task_id, backlog,
                                                      memory.root)
        return await self.on_services(
            lambda: memory.write_summary(self.task_id, backlog, content,
                                         None if content else reason))

    async def finish(self, summary: str, files: Sequence[str]) -> dict[str, Any]:
        """Offer the findings, summarise, extract, close the task in memory.

        ``{"proposals", "summaryId", "extracted"}``: the findings and their fate, the
        task's summary memory, and what the extraction wrote or rejected (with reasons).
        """
        memory = self.memory
        if memory is None:
            return {"proposals": [], "summaryId": None, "extracted": None}

        def close() -> tuple[list[dict[str, Any]], list[Event] | None]:
            proposals = self._propose_facts(memory, files)
            memory.close_task_events(self.task_id, summary)
            backlog = memory.summary_backlog(self.task_id, force=True) if self.writer else None
            return proposals, backlog

        proposals, backlog = await self.on_services(close)
        summary_id = None
        if self.writer is not None and backlog and self._worth_a_call(backlog):
            summary_id = await self._summary(memory, self.writer, backlog)
        ended = await self.on_services(lambda: memory.end_task(self.task_id))
        summary_id = summary_id or ended["summaryId"]
        model_output = await self._extraction_answer(memory)

        def mine() -> dict[str, Any]:
            found = extraction.extract(memory, self.task_id, model_output.text, summary_id)
            if model_output.reason and summary_id:
                memory.log_task_note(summary_id, "EXTRACT_REJECTED",
                                     {"stage": "model", "reason": model_output.reason})
                found.rejected.append({"stage": "model", "reason": model_output.reason})
            return found.to_json()

        return {"proposals": proposals, "summaryId": summary_id,
                "extracted": await self.on_services(mine)}

    def _worth_a_call(self, backlog: Sequence[Event]) -> bool:
        assert self.memory is not None and self.writer is not None
        return worth_a_call(self.memory, self.writer, backlog)

    async def _extraction_answer(self, memory: MemoryService) -> Written:
        """The model stage's raw answer (no model: nothing, and no reason to report)."""
        if self.writer is None:
            return Written(None)
        events = await self.on_services(lambda: memory.events.events(self.task_id))
        return await self.writer.ask(extraction.model_prompt(events, memory.catalog), "other")

    def _propose_facts(self, memory: MemoryService, files: Sequence[str]
                       ) -> list[dict[str, Any]]:
        """Offer the task's noted findings to long-term memory (its write path decides).

        Findings the agent wrote down with ``note_finding`` are the stable facts of a task;
        they are the model's assertions (lower confidence, through the gate "no evidence,
        no knowledge": observed unless the user said so), so anything the user stated
        wins over them, and consolidation merges repeats.
        """
        proposals = []
        for finding in memory.working_memory(self.task_id).scratchpad:
            written = memory.remember_asserted(finding.text, confidence=0.7,
                                               files=list(files)[:10], task_id=self.task_id)
            proposals.append({"content": finding.text, "action": written.action,
                              "id": written.id, "reason": written.reason})
        return proposals


async def model_written_summary(writer: ModelWriter, task_id: str, backlog: Sequence[Event],
                                root: Path) -> tuple[str | None, str | None]:
    """``(summary, None)``: the model's template summary of ``backlog`` (asked once more
    with the reason when an answer is rejected); ``(None, reason)`` when there is none —
    the caller keeps the rule-based summary and logs the reason."""
    messages = summary_request(backlog)
    content: str | None = None
    reason: str | None = None
    for _ in range(2):
        written = await writer.ask(messages, "summarize")
        if written.text is None:
            return None, written.reason
        content, reason = model_summary(task_id, backlog, written.text, root)
        if content is not None:
            return content, None
        messages = [*messages, {"role": "assistant", "content": written.text},
                    {"role": "user", "content": f"Rejected: {reason}. Answer again with "
                                                "exactly the JSON template."}]
    return None, reason


def worth_a_call(memory: MemoryService, writer: ModelWriter, backlog: Sequence[Event]) -> bool:
    """The 3× rule at a task's end: a short remainder gets the free rule-based summary."""
    return sum(e.tokens for e in backlog) >= memory.settings.summary_min_ratio * writer.summary_cost
