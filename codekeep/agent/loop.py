"""The agent loop: function calling over the tools pipeline, steered by the tracker.

One :class:`AgentLoop` serves a workspace; :meth:`AgentLoop.run` works on one task:

1. static memory context goes into the system prompt (memory coordinator profile);
2. each round: the most urgent nudge and the working memory are added as system
   messages, the context window renders the history within the model's budget, the
   model answers, every tool call runs through :class:`~codekeep.tools.ToolPipeline`
   (allow-list, safety, cache ...), and the exploration tracker reads the round's signals;
3. a text answer ends the task (unless the strategy moves on), at most 24 model calls;
4. the task's summary goes to memory, the ledger report comes back with the result.

Every model call and every retry is written to the ledger with the call type the round
turned out to be and the files its tools read. Cancellation propagates: the ledger is
flushed and the task closed on the way out.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from codekeep.agent.config import ModelSettings
from codekeep.agent.context_window import ContextWindow, Rendered, window_for_model
from codekeep.agent.exploration import (
    ExplorationBudget,
    ExplorationTracker,
    Phase,
    RoundSignal,
    Transition,
)
from codekeep.agent.json_repair import parse_tool_arguments
from codekeep.agent.model_client import Attempt, ChatResponse, ModelClient, ModelError, Usage
from codekeep.agent.nudges import PHASE_INSTRUCTIONS, Nudge, NudgeGenerator
from codekeep.agent.prompts import system_prompt
from codekeep.common.tokens import token_len
from codekeep.ledger import BudgetEvent, BudgetExceeded, Ledger, model_info
from codekeep.memory import MemoryService
from codekeep.tools import ToolKit, ToolResult
from codekeep.tools.capabilities import capability as capability_preset

log = logging.getLogger(__name__)

EventSink = Callable[[str, dict[str, Any]], Awaitable[None] | None]
T = TypeVar("T")
# Runs a function where the workspace services live (the server's worker thread).
ServicesRunner = Callable[[Callable[[], Any]], Awaitable[Any]]

# capability -> (exploration strategy, memory coordinator profile)
CAPABILITY_PLANS: dict[str, tuple[str, str]] = {
    "explore": ("analyst", "analyst"),
    "chat": ("analyst", "chat"),
    "edit": ("bootstrap", "producer"),
}

_WRITE_TOOLS = frozenset({"write_file"})
_READ_TOOLS = frozenset({"read_file", "search_code", "find_symbol", "find_references",
                         "find_related", "search_symbols"})
_PLAN_TOOLS = frozenset({"repo_map", "list_files", "recall", "list_tool_categories",
                         "load_tools", "search_tools"})
_MEMORY_BUDGET_CAP = 4000  # seed 000: the coordinator's default total budget


def infer_call_type(tool_names: Sequence[str], answered: bool) -> str:
    """The ledger call type of a round, from what the model asked its tools to do."""
    names = set(tool_names)
    if names & _WRITE_TOOLS:
        return "generate_code"
    if names & _READ_TOOLS:
        return "read_code"
    if names & _PLAN_TOOLS:
        return "plan"
    if names:
        return "tool"
    return "summarize" if answered else "other"


def checked_task(task: str) -> str:
    """The task text, or a clear error when there is nothing to do."""
    if not task.strip():
        raise ValueError("the task is empty: say what the agent should do")
    return task.strip()


def new_task_id() -> str:
    return time.strftime("agent-%Y%m%d-%H%M%S-", time.gmtime()) + secrets.token_hex(3)


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """One tool call of a task, as editors list it under the answer.

    ``outcome`` is the pipeline's word (ok, cached, refused, error); ``duration_ms`` is
    the wall time the agent waited for it (queueing on the services' thread included);
    ``files`` are the workspace files the result is about, in the tool's order.
    """

    name: str
    outcome: str
    duration_ms: float
    files: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "outcome": self.outcome,
                "durationMs": round(self.duration_ms, 1), "files": list(self.files)}


@dataclass(slots=True)
class AgentResult:
    """What a task produced; ``to_json`` is the shape both entry points return."""

    task_id: str
    answer: str
    iterations: int
    tokens: int
    tool_calls: list[ToolCallRecord]
    phase: str
    stop_reason: str
    nudges: list[dict[str, str]] = field(default_factory=list)
    ledger: dict[str, Any] | None = None
    summary: str = ""
    proposed_facts: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "taskId": self.task_id, "answer": self.answer, "iterations": self.iterations,
            "tokens": self.tokens, "toolCalls": [call.to_json() for call in self.tool_calls],
            "phase": self.phase,
            "stopReason": self.stop_reason, "nudges": self.nudges, "ledger": self.ledger,
            "proposedFacts": self.proposed_facts,
        }


class AgentLoop:
    """Runs tasks in one workspace with its services; cheap to create."""

    def __init__(self, toolkit: ToolKit, model: ModelSettings, *,
                 exploration_budget: ExplorationBudget | None = None,
                 on_event: EventSink | None = None,
                 services_runner: ServicesRunner | None = None) -> None:
        self.toolkit = toolkit
        self.root = toolkit.root
        self.model = model
        self.pipeline = toolkit.pipeline
        self.memory: MemoryService | None = toolkit.memory
        self.ledger: Ledger | None = toolkit.ledger
        self.exploration_budget = exploration_budget or ExplorationBudget()
        self.on_event = on_event
        self.services_runner = services_runner

    async def run(self, task: str, capability: str = "chat", *, task_id: str | None = None,
                  token_budget: int | None = None) -> AgentResult:
        """Work on ``task``; raises ``ModelNotConfigured`` before doing anything if no model."""
        self.model.require_model()
        preset = capability_preset(capability)  # clear error for an unknown capability
        run = _TaskRun(self, checked_task(task), preset.name, task_id or new_task_id(),
                       token_budget)
        return await run.execute()


class _TaskRun:
    """The state of one task while it runs."""

    def __init__(self, loop: AgentLoop, task: str, capability: str, task_id: str,
                 token_budget: int | None) -> None:
        self.loop = loop
        self.task = task
        self.capability = capability
        self.task_id = task_id
        self.token_budget = token_budget
        strategy, self.profile = CAPABILITY_PLANS[capability]
        self.tracker = ExplorationTracker(strategy, loop.exploration_budget)
        self.nudges = NudgeGenerator(self.tracker)
        self.ctx = loop.toolkit.context(task_id, capability)
        self.client = ModelClient(loop.model)
        self.context_window_tokens = window_for_model(
            self.client.model, loop.model.context_window,
            loop.ledger.model_info if loop.ledger is not None else model_info)
        # seed 000: memory gets 12.5 % of the window, by default at most 4000 tokens
        self.memory_budget = min(_MEMORY_BUDGET_CAP, self.context_window_tokens // 8)
        self.static_memory_tokens = 0
        self.window: ContextWindow | None = None
        self.ledger_task = task_id
        self._listener: Callable[[Any], None] | None = None
        self.pending: Transition | None = None
        self.token_ratio = 0.0
        self.budget_events: deque[BudgetEvent] = deque()
        self.nudge_log: list[dict[str, str]] = []
        self.tool_calls: list[ToolCallRecord] = []
        self.provider_tokens = 0
        self.last_level = 0

    # ------------------------------------------------------------------ lifecycle

    async def execute(self) -> AgentResult:
        stop_reason = "error"
        try:
            self._open_ledger_task()
            self.window = ContextWindow.for_model(
                self.client.model, await self._system_prompt(), self.task,
                context_window=self.context_window_tokens)
            answer, stop_reason = await self._work()
            return await self._finish(answer, stop_reason)
        except asyncio.CancelledError:
            stop_reason = "cancelled"
            await self._record_event("cancelled", f"cancelled during {self.tracker.phase.value} "
                               f"after {self.tracker.metrics.iteration} model calls")
            raise
        except ModelError as exc:
            stop_reason = "model_error"
            await self._record_event("failed", str(exc))
            raise
        finally:
            self._close_ledger_task()
            await self.client.aclose()
            await self._emit("progress", {"phase": self.tracker.phase.value, "step":
                                          self.tracker.metrics.iteration, "done": True,
                                          "stopReason": stop_reason})

    async def _work(self) -> tuple[str, str]:
        budget = self.tracker.budget
        while self.tracker.metrics.iteration < budget.max_iterations:
            answer = await self._round()
            if answer is not None:
                return answer, ("answered" if self.tracker.phase is not Phase.SUMMARIZE
                                else self._summarize_reason())
        return self._fallback_answer(), "iterations"

    def _summarize_reason(self) -> str:
        reasons = [t.reason for t in self.tracker.transitions if t.target is Phase.SUMMARIZE]
        return reasons[-1] if reasons and reasons[-1] in ("iterations", "token_budget") \
            else "answered"

    # ------------------------------------------------------------------ one round

    async def _round(self) -> str | None:
        """One model call and its tools; returns the final answer when the task is done."""
        assert self.window is not None
        nudge = self.nudges.next(self.pending, self.token_ratio, self._findings())
        self.pending = None
        if nudge is not None:
            await self._send_nudge(nudge)
        step = self.tracker.next_iteration
        await self._emit("progress", {"phase": self.tracker.phase.value, "step": step,
                                      "maxSteps": self.tracker.budget.max_iterations,
                                      "message": f"{self.tracker.phase.value}: model call {step}"})
        tools = self.loop.pipeline.schemas(self.ctx)
        extras = [await self._working_memory(), nudge.text if nudge else ""]
        rendered = self.window.render(extras, reserved=token_len(json.dumps(tools)))
        if rendered.level != self.last_level:
            self.last_level = rendered.level
            await self._emit("context", {"level": rendered.level, "tokens": rendered.tokens,
                                         "budget": rendered.budget})
        try:
            response = await self.client.complete(rendered.messages, tools,
                                                  self.tracker.tool_choice)
        except ModelError as exc:
            self._record_attempts(exc.attempts, None, rendered, "other", {})
            await self._drain_budget_events()
            raise
        if response.tool_calls:
            return await self._tool_round(response, rendered)
        return await self._text_round(response, rendered)

    async def _tool_round(self, response: ChatResponse, rendered: Rendered) -> str | None:
        assert self.window is not None
        tools_off = self.tracker.phase is Phase.SUMMARIZE
        messages: list[dict[str, Any]] = []
        outcomes: list[tuple[str, bool, bool, list[str]]] = []
        files_read: dict[str, int] = {}
        for call in response.tool_calls:
            result = await self._run_tool(call.name, call.arguments, call.id, tools_off)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result.content})
            outcomes.append((call.name, result.ok, result.new_information,
                             list(result.files)))
            for path, chars in result.files_read.items():
                files_read[path] = files_read.get(path, 0) + chars
            if result.ok and call.name in ("write_file", "remember", "note_finding"):
                self.window.note_produced(f"{call.name}: {result.content[:200]}")
        self.window.add_round(response.assistant_message(), messages)
        self._record_attempts(response.attempts, response, rendered,
                              infer_call_type([c.name for c in response.tool_calls], False),
                              files_read)
        self.pending = self.tracker.record_round(RoundSignal.from_results(outcomes))
        await self._drain_budget_events()
        if self.tracker.metrics.iteration >= self.tracker.budget.max_iterations:
            return response.content or self._fallback_answer()
        return None

    async def _text_round(self, response: ChatResponse, rendered: Rendered) -> str | None:
        assert self.window is not None
        self._record_attempts(response.attempts, response, rendered,
                              infer_call_type((), True), {})
        transition = self.tracker.record_text_response()
        await self._drain_budget_events()
        if transition is None or self.tracker.metrics.iteration >= \
                self.tracker.budget.max_iterations:
            self.window.note_produced("answer: " + response.content[:300])
            return response.content
        self.window.add_round(response.assistant_message())
        self.pending = transition
        return None

    async def _run_tool(self, name: str, raw_arguments: str, call_id: str,
                        tools_off: bool) -> ToolResult:
        """Run one call through the pipeline; arguments that cannot be read are sent back."""
        started = time.perf_counter()
        if tools_off:
            result = ToolResult(tool=name, ok=False, rule="summarize", content=(
                "REFUSED [summarize]: tools are off in the SUMMARIZE phase. Answer the task "
                "now in plain text with what you already know."), refused="tools are off")
        else:
            parsed = parse_tool_arguments(raw_arguments)
            if parsed.value is not None:
                result = await self._execute(name, parsed.value, call_id)
                if parsed.repairs:
                    log.info("repaired arguments of %s: %s", name, ", ".join(parsed.repairs))
            else:
                result = ToolResult(tool=name, ok=False, rule="arguments", error=parsed.error,
                                    content=(
                    f"ERROR [arguments]: the arguments of your {name} call are not valid JSON "
                    f"({parsed.error}). Nothing was run. Resend the call with the arguments "
                    "as one JSON object matching the tool's schema."))
        record = ToolCallRecord(name, result.outcome, (time.perf_counter() - started) * 1000,
                                tuple(dict.fromkeys(result.files)))
        self.tool_calls.append(record)
        await self._emit("tool", {**record.to_json(), "tool": name, "ok": result.ok,
                                  "refused": result.refused, "callId": call_id,
                                  "phase": self.tracker.phase.value,
                                  "step": self.tracker.next_iteration,
                                  "maxSteps": self.tracker.budget.max_iterations})
        return result

    # ------------------------------------------------------------------ ledger and budget

    def _open_ledger_task(self) -> None:
        ledger = self.loop.ledger
        if ledger is None:
            return
        self.ledger_task = ledger.begin_task(self.task_id)
        if self.token_budget is not None:
            ledger.set_budget(self.ledger_task, self.token_budget)

        def listener(event: BudgetEvent) -> None:  # may run on the ledger's flush thread
            if event.task_id == self.ledger_task or event.scope == "daily":
                self.budget_events.append(event)

        self._listener = listener
        ledger.subscribe(listener)

    def _close_ledger_task(self) -> None:
        ledger = self.loop.ledger
        if ledger is None:
            return
        if self._listener is not None:
            ledger.unsubscribe(self._listener)
        try:
            ledger.end_task(self.ledger_task)  # also flushes
        except Exception:  # the task result matters more than a late flush
            log.exception("closing ledger task %s failed", self.ledger_task)

    async def _drain_budget_events(self) -> None:
        while self.budget_events:  # a deque: the ledger may append from its flush thread
            event = self.budget_events.popleft()
            self.token_ratio = max(self.token_ratio, float(event.ratio))
            await self._emit("budget", {**event.to_json(), "taskId": self.task_id})
            if event.ratio >= 1.0:
                moved = self.tracker.force_summarize("token_budget")
                self.pending = moved or self.pending

    def _record_attempts(self, attempts: Sequence[Attempt], response: ChatResponse | None,
                         rendered: Rendered, call_type: str, files: Mapping[str, int]) -> None:
        ledger = self.loop.ledger
        for attempt in attempts:
            succeeded = attempt.error is None and response is not None
            usage = response.usage if succeeded and response is not None else None
            if usage is not None:
                self.provider_tokens += usage.prompt_tokens + usage.completion_tokens
            if ledger is None:
                continue
            try:
                self._record_one(ledger, attempt, response if succeeded else None, usage,
                                 rendered, call_type, files)
            except BudgetExceeded:  # stored; a hard-stop budget ends the exploration now
                self.token_ratio = max(self.token_ratio, 1.0)
                self.pending = self.tracker.force_summarize("token_budget") or self.pending

    def _record_one(self, ledger: Ledger, attempt: Attempt, response: ChatResponse | None,
                    usage: Usage | None, rendered: Rendered, call_type: str,
                    files: Mapping[str, int]) -> None:
        if response is None:  # a failed attempt is recorded (it is a retry) but billed nothing
            ledger.record(task_id=self.ledger_task, call_type=call_type,
                          model=self.client.model, input_tokens=0, output_tokens=0,
                          latency_ms=attempt.latency_ms, retry=attempt.retry,
                          stream=self.client.settings.stream)
            return
        ledger.record(
            task_id=self.ledger_task, call_type=call_type, model=response.model,
            input_tokens=usage.prompt_tokens if usage else None,
            output_tokens=usage.completion_tokens if usage else None,
            cached_tokens=usage.cached_tokens if usage else 0,
            reasoning_tokens=usage.reasoning_tokens if usage else 0,
            prompt_text=_prompt_text(rendered.messages),
            completion_text=_completion_text(response),
            files=dict(files) or None, latency_ms=attempt.latency_ms,
            retry=attempt.retry, stream=response.stream)

    # ------------------------------------------------------------------ memory

    async def _system_prompt(self) -> str:
        memory_text = ""
        memory = self.loop.memory
        if memory is not None:
            memory_text, self.static_memory_tokens = await self._on_services(
                lambda: memory.context_for_prompt(self.task_id, budget=self.memory_budget,
                                                  profile=self.profile, query=self.task))
        return system_prompt(self.loop.root, self.capability, self.tracker.phase, memory_text)

    async def _working_memory(self) -> str:
        """Dynamic memory for this round: its own share plus what the static part left."""
        memory = self.loop.memory
        if memory is None:
            return ""
        phase = self.tracker.phase
        step = self.tracker.next_iteration
        budget = max(0, self.memory_budget - self.static_memory_tokens)

        def render() -> str:
            working = memory.working_memory(self.task_id)
            working.start_round(step)
            working.set_plan(f"{phase.value}: {PHASE_INSTRUCTIONS[phase]}")
            return str(working.render(budget))

        text = await self._on_services(render)
        return f"[Working memory]\n{text}" if text.strip() else ""

    async def _record_event(self, event_type: str, summary: str) -> None:
        memory = self.loop.memory
        if memory is None:
            return
        files = sorted(self.tracker.metrics.unique_files)
        try:
            await self._on_services(lambda: memory.record_event(self.task_id, event_type,
                                                                summary, files=files))
        except Exception:  # reporting the original failure matters more
            log.exception("could not record %s for %s", event_type, self.task_id)

    async def _finish(self, answer: str, stop_reason: str) -> AgentResult:
        summary = self._structured_summary(answer, stop_reason)
        memory = self.loop.memory
        proposals: list[dict[str, Any]] = []
        if memory is not None:
            proposals = await self._on_services(lambda: self._propose_facts(memory))
            await self._on_services(lambda: memory.end_task(self.task_id, summary))
        report = self.loop.ledger.report(task_id=self.ledger_task) if self.loop.ledger else None
        tokens = int(report["total"]["tokens"]) if report else self.provider_tokens
        return AgentResult(self.task_id, answer, self.tracker.metrics.iteration, tokens,
                           self.tool_calls, self.tracker.phase.value, stop_reason,
                           self.nudge_log, report, summary, proposals)

    def _propose_facts(self, memory: MemoryService) -> list[dict[str, Any]]:
        """Offer the task's noted findings to long-term memory (its write path decides).

        Findings the agent wrote down with ``note_finding`` are the stable facts of a task;
        they enter as inferred (``source="agent"``, lower confidence) so anything the user
        stated wins over them, and consolidation merges repeats.
        """
        files = sorted(self.tracker.metrics.unique_files)[:10]
        proposals = []
        for finding in memory.working_memory(self.task_id).scratchpad:
            written = memory.remember(finding.text, kind="fact", source="agent",
                                      confidence=0.7, files=files, task_id=self.task_id)
            proposals.append({"content": finding.text, "action": written.action,
                              "id": written.id, "reason": written.reason})
        return proposals

    def _structured_summary(self, answer: str, stop_reason: str) -> str:
        m = self.tracker.metrics
        phases = " -> ".join([self.tracker.chain[0].value,
                              *(t.target.value for t in self.tracker.transitions)])
        files = ", ".join(sorted(m.unique_files)[:20]) or "none"
        return (f"Task: {self.task}\nCapability: {self.capability}; phases: {phases}; "
                f"stopped: {stop_reason}\nModel calls: {m.iteration}; tool calls: "
                f"{len(self.tool_calls)}\nFiles examined: {files}\nAnswer: {answer[:1500]}")

    # ------------------------------------------------------------------ helpers

    async def _on_services(self, fn: Callable[[], T]) -> T:
        runner = self.loop.services_runner
        return fn() if runner is None else await runner(fn)

    async def _execute(self, name: str, arguments: dict[str, Any], call_id: str) -> ToolResult:
        """One pipeline call, on the services' thread when they live on one."""
        pipeline, ctx = self.loop.pipeline, self.ctx
        if self.loop.services_runner is None:
            return await pipeline.execute(name, arguments, ctx, call_id=call_id)
        return await self._on_services(
            lambda: asyncio.run(pipeline.execute(name, arguments, ctx, call_id=call_id)))

    def _findings(self) -> str:
        if self.window is None:
            return ""
        recent = self.window.rounds[-5:]
        return "\n".join(f"- {r.distilled()}" for r in recent)

    def _fallback_answer(self) -> str:
        return ("Stopped after the iteration limit without a final answer. What was found:\n"
                + (self._findings() or "- nothing"))

    async def _send_nudge(self, nudge: Nudge) -> None:
        self.nudge_log.append(nudge.to_json())
        await self._emit("nudge", nudge.to_json())

    async def _emit(self, kind: str, payload: dict[str, Any]) -> None:
        sink = self.loop.on_event
        if sink is None:
            return
        try:
            outcome = sink(kind, {"taskId": self.task_id, **payload})
            if inspect.isawaitable(outcome):
                await outcome
        except asyncio.CancelledError:
            raise
        except Exception:  # an editor that stopped listening must not stop the agent
            log.exception("agent event sink failed for %s", kind)


def _prompt_text(messages: Sequence[Mapping[str, Any]]) -> str:
    parts = []
    for message in messages:
        parts.append(str(message.get("content") or ""))
        for call in message.get("tool_calls") or []:
            parts.append(json.dumps(call.get("function") or {}))
    return "\n".join(parts)


def _completion_text(response: ChatResponse) -> str:
    return "\n".join([response.content, *(f"{c.name}({c.arguments})"
                                          for c in response.tool_calls)])
