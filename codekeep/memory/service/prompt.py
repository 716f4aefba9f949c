"""Prompt assembly: the memory text injected for a task, layer by layer (long-term,
session, conversation, working) within a token budget the coordinator shares out."""

from __future__ import annotations

from dataclasses import replace

import codekeep.memory.coordinator as coordinator
from codekeep.embeddings.embedders import Embedded
from codekeep.memory.model import LONG_TERM_KINDS, Memory
from codekeep.memory.service.reading import Reading
from codekeep.memory.service.tasks import TaskMemory
from codekeep.memory.store import MemoryFilter

_ACTIVE_SUMMARIES = MemoryFilter(kinds=("summary",), statuses=("active",))


class PromptContext(Reading, TaskMemory):
    def context_for_prompt(
        self, task_id: str, budget: int | None = None, profile: str = "chat", query: str = "",
        embedded: Embedded | None = None,
    ) -> tuple[str, int]:
        """The memory text to inject for this task and its token count (≤ budget);
        ``embedded``: the query's embeddings, sent by a caller that must not wait for the
        network (see :meth:`recall`)."""
        budget = self.settings.default_budget if budget is None else budget
        sources = coordinator.LayerSources(
            long_term=lambda: self._long_term_lines(query, embedded),
            session=lambda: self._session_lines(task_id),
            conversation=lambda: self._conversation_lines(task_id),
            working=self.working_memory(task_id).render,
        )
        return coordinator.assemble(sources, profile, budget)

    def _long_term_lines(self, query: str, embedded: Embedded | None) -> list[str]:
        lines: list[str] = []
        defaults = self.catalog.defaults()
        chosen = {k: v for k, v in self.preferences().items() if v != defaults.get(k)}
        if chosen:
            lines.append(
                "- Preferences (validated; they change presentation only, never facts, permissions "
                "or tools): " + "; ".join(f"{k}={v}" for k, v in sorted(chosen.items()))
            )
        kinds = [k for k in LONG_TERM_KINDS if k != "preference"]
        for recalled in self.recall(query, limit=20, kinds=kinds, embedded=embedded):
            memory = recalled.memory
            if memory.kind == "soft_preference" and self._covered_by_slot(memory, chosen):
                continue  # a hard preference already decides this
            lines.append(render_memory_line(memory))
        return lines

    def _covered_by_slot(self, memory: Memory, chosen: dict[str, str]) -> bool:
        inferred = self.catalog.infer(memory.content)
        return inferred is not None and inferred[0] in chosen

    def _session_lines(self, task_id: str) -> list[str]:
        """Summaries of the project's other tasks."""
        where = replace(_ACTIVE_SUMMARIES, other_than_task=task_id)
        ids = self.project.ids(where, limit=20)
        return [render_memory_line(m) for m in self.project.load_many(ids)]

    def _conversation_lines(self, task_id: str) -> list[str]:
        """This task's own summaries, then the events no summary covers yet."""
        ids = self.project.ids(replace(_ACTIVE_SUMMARIES, task_id=task_id), limit=5)
        lines = [render_memory_line(m) for m in self.project.load_many(ids)]
        lines += [
            f"- [{e.event_type}] {e.summary}" for e in reversed(self.events.unsummarised(task_id))
        ]
        return lines


def render_memory_line(memory: Memory) -> str:
    """One prompt line per memory, with the warnings a model must not miss."""
    notes_: list[str] = [memory.kind]
    if memory.kind == "case":
        notes_.append("historical reference, not current state")
    if memory.kind == "soft_preference":
        notes_.append("adjusts wording only; never facts, permissions or tools")
    if memory.negative_feedback:
        notes_.append("the user said this was wrong before")
    if memory.stale_symbols or memory.stale_files:
        notes_.append("linked code no longer exists")
    text = " | ".join(line.strip() for line in memory.content.splitlines() if line.strip())
    return f"- {text} [{'; '.join(notes_)}]"
