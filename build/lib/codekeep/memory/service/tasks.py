"""A task's memory while it runs and when it ends: the event stream, the summaries that
replace it, the per-task working memory, and the facts a summary promotes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import codekeep.memory.layers as layers
from codekeep.memory.model import MemoryInputError
from codekeep.memory.scope import ScopeRequest
from codekeep.memory.service.core import ServiceCore
from codekeep.memory.working import WorkingMemory
from codekeep.memory.write import WriteRequest


class TaskMemory(ServiceCore):
    def record_event(
        self,
        task_id: str,
        event_type: str,
        summary: str,
        *,
        files: Sequence[str] = (),
        data: dict[str, Any] | None = None,
    ) -> layers.Event:
        """Append to the event stream; summarise the task's backlog when it is worth it."""
        self.scope_policy.resolve(ScopeRequest("event", None, task_id, "agent"))
        if not event_type or not summary.strip():
            raise MemoryInputError("an event needs a type and a summary")
        event = self.events.record(task_id, event_type, summary.strip(), files, data)
        self.summarise(task_id)
        return event

    def summarise(self, task_id: str, *, force: bool = False) -> str | None:
        """Write a summary of the unsummarised events if the 8,000-token / 3× rule allows it."""
        backlog = self.events.unsummarised(task_id)
        if not backlog or (not force and not self.events.over_threshold(backlog)):
            return None
        structured = layers.structured_summary(task_id, backlog)
        if not force and not self.events.should_summarise(backlog, structured):
            return None
        content = structured
        if self.summariser is not None:
            narrative = self.summariser(structured, [e.to_json() for e in backlog]).strip()
            if narrative:
                content = f"{structured}\nNarrative: {narrative}"
        files = sorted({path for event in backlog for path in event.files})
        result = self._write.insert_verbatim(
            "project",
            WriteRequest(
                content, "summary", importance=3, files=files, source="summary", task_id=task_id
            ),
        )
        if result.id is None:
            return None
        with self.project.transaction():
            self.events.cover(result.id, task_id, backlog, len(content))
        for event in layers.successful_commands(backlog):
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

    def end_task(self, task_id: str, summary: str | None = None) -> dict[str, Any]:
        """Close a task: summarise what is left (always), record the agent's own summary, decay."""
        wm = self._working.pop(task_id, None)
        if summary or (wm and wm.scratchpad):
            text = summary or (wm.distill() if wm else "")
            self.events.record(task_id, "task_end", text, (), None)
        summary_id = self.summarise(task_id, force=True)
        report = self.maintain()
        return {
            "taskId": task_id,
            "summaryId": summary_id,
            "maintenance": asdict(report),
        }

    def working_memory(self, task_id: str) -> WorkingMemory:
        if task_id not in self._working:
            self._working[task_id] = WorkingMemory(task_id, window=self.settings.observation_window)
        return self._working[task_id]
