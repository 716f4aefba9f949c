"""A task's memory while it runs and when it ends: the event stream, the summaries that
replace it, the per-task working memory, and the facts a summary promotes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import codekeep.memory.events as events
from codekeep.memory.model import MemoryInputError
from codekeep.memory.scope import ScopeRequest
from codekeep.memory.service.core import ServiceCore
from codekeep.memory.working import WorkingMemory
from codekeep.memory.write import WriteRequest

# A task summary records what a task did and what its model answered: the answer is the
# model's word, so the summary is history to recall, never knowledge at full confidence.
SUMMARY_CONFIDENCE = 0.6


class TaskMemory(ServiceCore):
    def record_event(
        self,
        task_id: str,
        event_type: str,
        summary: str,
        *,
        files: Sequence[str] = (),
        data: dict[str, Any] | None = None,
    ) -> events.Event:
        """Append to the event stream; summarise the task's backlog when it is worth it
        (unless the agent writes this task's summaries itself, see :meth:`defer_summaries`)."""
        self.scope_policy.resolve(ScopeRequest("event", None, task_id, "agent"))
        if not event_type or not summary.strip():
            raise MemoryInputError("an event needs a type and a summary")
        event = self.events.record(task_id, event_type, summary.strip(), files, data)
        if task_id not in self._deferred:
            self.summarise(task_id)
        return event

    def defer_summaries(self, task_id: str, deferred: bool = True) -> None:
        """The agent writes ``task_id``'s summaries (with its model): events no longer
        trigger the rule-based one; it asks :meth:`summary_backlog` when to write."""
        if deferred:
            self._deferred.add(task_id)
        else:
            self._deferred.discard(task_id)

    def summarise(self, task_id: str, *, force: bool = False) -> str | None:
        """Write a summary of the unsummarised events if the 8,000-token / 3× rule allows it."""
        backlog = self.summary_backlog(task_id, force=force)
        return None if backlog is None else self.write_summary(task_id, backlog)

    def summary_backlog(self, task_id: str, *, force: bool = False,
                        cost: int | None = None) -> list[events.Event] | None:
        """The events a summary would replace now, or None when it is not worth it yet.

        Over ``summary_threshold_tokens`` *and* at least 3× the cost of summarising them
        (``cost``: what the model's summary call really costs; default the size of the
        rule-based summary); ``force`` takes whatever is left (task end).
        """
        backlog = self.events.unsummarised(task_id)
        if not backlog or (not force and not self.events.over_threshold(backlog)):
            return None
        if force:
            return backlog
        if cost is None:
            return backlog if self.events.should_summarise(
                backlog, events.structured_summary(task_id, backlog)) else None
        worth = sum(e.tokens for e in backlog) >= self.settings.summary_min_ratio * cost
        return backlog if worth else None

    def write_summary(self, task_id: str, backlog: Sequence[events.Event],
                      model_summary: str | None = None, rejected: str | None = None
                      ) -> str | None:
        """Store the summary of ``backlog``: the model's (already checked) when given, else
        the rule-based one; ``rejected`` says why a model summary was not used (history)."""
        content = model_summary or events.structured_summary(task_id, backlog)
        files = sorted({path for event in backlog for path in event.files})
        result = self._write.insert_verbatim(
            "project",
            WriteRequest(
                content, "summary", importance=3, files=files,
                source="model_summary" if model_summary else "summary",
                confidence=SUMMARY_CONFIDENCE, task_id=task_id
            ),
        )
        if result.id is None:
            return None
        with self.project.transaction():
            self.events.cover(result.id, task_id, backlog, len(content))
        if rejected:
            self.log_task_note(result.id, "MODEL_SUMMARY_REJECTED", {"reason": rejected})
        for event in events.successful_commands(backlog):
            command = str((event.data or {})["command"])
            self._write.remember(
                "project",
                WriteRequest(
                    f"`{command}` runs successfully in this project",
                    "fact",
                    importance=4,
                    evidence={"event": event.id, "quote": command},
                    source="summary",
                    task_id=task_id,
                ),
            )
        return result.id

    def close_task_events(self, task_id: str, summary: str | None = None) -> None:
        """Record how the task ended (the agent's summary, else its scratchpad findings)
        and drop its working memory; what is left to summarise stays in the backlog."""
        wm = self._working.pop(task_id, None)
        if summary or (wm and wm.scratchpad):
            text = summary or (wm.distill() if wm else "")
            self.events.record(task_id, "task_end", text, (), None)

    def end_task(self, task_id: str, summary: str | None = None) -> dict[str, Any]:
        """Close a task: summarise what is left (always), record the agent's own summary, decay."""
        self._deferred.discard(task_id)
        self.close_task_events(task_id, summary)
        summary_id = self.summarise(task_id, force=True)
        report = self.maintain()
        return {
            "taskId": task_id,
            "summaryId": summary_id,
            "maintenance": asdict(report),
        }

    def log_task_note(self, memory_id: str, action: str, detail: dict[str, Any]) -> None:
        """Note in a memory's history something that happened around it (a rejected
        extraction or model summary of its task), so ``history`` shows the reason."""
        store = self._store_for_id(memory_id)
        if store is None:
            raise MemoryInputError(f"there is no memory {memory_id!r}")
        with store.transaction():
            store.log(memory_id, self.settings.clock(), action, detail)

    def working_memory(self, task_id: str) -> WorkingMemory:
        if task_id not in self._working:
            self._working[task_id] = WorkingMemory(task_id, window=self.settings.observation_window)
        return self._working[task_id]
