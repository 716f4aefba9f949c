"""The agent loop: function calling over the tools pipeline, steered by the tracker.

One :class:`AgentLoop` serves a workspace; :meth:`AgentLoop.run` works on one task:

1. static memory context goes into the system prompt (memory coordinator profile);
2. each round: the most urgent nudge and the working memory are added as system
   messages, the context window renders the history within the model's budget, the
   model answers, every tool call runs through :class:`~codekeep.tools.ToolPipeline`
   (allow-list, safety, cache ...), and the exploration tracker reads the round's signals;
3. a text answer ends the task (unless the strategy moves on), at most 24 model calls;
4. the task's summary goes to memory, the ledger report comes back with the result.

Every model call and every retry is written to the ledger (:mod:`codekeep.agent.accounting`)
with what it was for and what its prompt carried; the memory side of a task lives in
:mod:`codekeep.agent.memory_bridge`. Cancellation propagates: the ledger is flushed and
the task closed on the way out.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from codekeep.agent.accounting import Carriage, LedgerAccounting, Room, call_type
from codekeep.agent.context_window import (
    ContextWindow,
    Rendered,
    output_reserve,
    window_for_model,
)
from codekeep.agent.docs_expansion import tool_expander
from codekeep.agent.endpoint_windows import EndpointWindows
from codekeep.agent.exploration import (
    ExplorationBudget,
    ExplorationTracker,
    Phase,
    RoundSignal,
    Transition,
)
from codekeep.agent.memory_bridge import MEMORY_BUDGET_CAP, MemoryBridge, ServicesRunner
from codekeep.agent.model_client import (
    ChatResponse,
    ContextOverflow,
    ModelClient,
    ModelError,
    ToolCall,
)
from codekeep.agent.nudges import Nudge, NudgeGenerator, NudgeType
from codekeep.agent.prompts import sent_schemas, system_prompt
from codekeep.agent.replies import (
    EMPTY_NUDGE,
    MAX_CUT_OFF_REASKS,
    REFUSAL_NUDGE,
    cut_off_answer,
    cut_off_assistant,
    cut_off_call,
    marked_cut_off,
    no_answer,
    refused,
)
from codekeep.agent.tool_arguments import coerce_to_schema, parse_tool_arguments
from codekeep.agent.writer import ModelWriter
from codekeep.common.tokens import token_len
from codekeep.ledger import Ledger, model_info
from codekeep.memory import MemoryService
from codekeep.settings.agent import ModelSettings
from codekeep.tools import ToolKit, ToolResult
from codekeep.tools.capabilities import capability as capability_preset

log = logging.getLogger(__name__)

EventSink = Callable[[str, dict[str, Any]], Awaitable[None] | None]

# Read-only tool calls of one round that run at once.
PARALLEL_READS = 4
# A prompt the endpoint refuses as too long is compressed harder and sent again at most
# this often per model call.
MAX_OVERFLOW_RETRIES = 2
# Old rounds worth a model-written distillation (fewer: the mechanical one-liners do).
DISTIL_MIN_TOKENS = 1_000

# Stop reasons of a task that ended without a complete answer: the CLI exits non-zero.
UNFINISHED_STOPS = frozenset({"cut_off", "no_answer", "refused", "model_error"})

# capability -> (exploration strategy, memory coordinator profile)
CAPABILITY_PLANS: dict[str, tuple[str, str]] = {
    "explore": ("analyst", "analyst"),
    "chat": ("analyst", "chat"),
    "edit": ("bootstrap", "producer"),
}


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
    summary_id: str | None = None
    extracted: dict[str, Any] | None = None  # {"written": [...], "rejected": [...]}

    @property
    def finished(self) -> bool:
        """The model gave a complete answer (not one cut off, empty or refused)."""
        return self.stop_reason not in UNFINISHED_STOPS

    def to_json(self) -> dict[str, Any]:
        return {
            "taskId": self.task_id, "answer": self.answer, "iterations": self.iterations,
            "tokens": self.tokens, "toolCalls": [call.to_json() for call in self.tool_calls],
            "phase": self.phase, "finished": self.finished,
            "stopReason": self.stop_reason, "nudges": self.nudges, "ledger": self.ledger,
            "proposedFacts": self.proposed_facts,
            "memory": {"summaryId": self.summary_id, "extracted": self.extracted},
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
    """The loop of one task; its ledger accounting and its memory side are their own parts."""

    def __init__(self, loop: AgentLoop, task: str, capability: str, task_id: str,
                 token_budget: int | None) -> None:
        self.loop = loop
        self.task = task
        self.capability = capability
        self.task_id = task_id
        self.token_budget = token_budget
        strategy, profile = CAPABILITY_PLANS[capability]
        self.tracker = ExplorationTracker(strategy, loop.exploration_budget)
        self.nudges = NudgeGenerator(self.tracker)
        self.ctx = loop.toolkit.context(task_id, capability)
        self.ctx.state.in_context = set()  # this loop tracks what its context still holds
        self.client = ModelClient(loop.model)
        # the window the endpoint itself named (in any earlier run) beats the setting and
        # the model table
        self.endpoint_windows = EndpointWindows(loop.root)
        self.context_window_tokens = self.endpoint_windows.window(
            loop.model.base_url, self.client.model) or window_for_model(
                self.client.model, loop.model.context_window,
                loop.ledger.model_info if loop.ledger is not None else model_info)
        # memory gets 12.5 % of the window, by default at most 4000 tokens
        self.accounting = LedgerAccounting(loop.ledger, task_id, self.client.settings.stream)
        self.ctx.expand_docs = tool_expander(self.client, loop.ledger,
                                             lambda: self.accounting.task)
        # the model writes summaries, distillations and extraction unless turned off
        self.writer = ModelWriter(self.client, self.accounting) if (
            loop.memory is None or loop.memory.settings.model_summaries) else None
        self.memory = MemoryBridge(loop.memory, task_id, profile,
                                   min(MEMORY_BUDGET_CAP, self.context_window_tokens // 8),
                                   loop.services_runner, self.writer)
        self.window: ContextWindow | None = None
        self.pending: Transition | None = None
        self.token_ratio = 0.0
        self.nudge_log: list[dict[str, str]] = []
        self.tool_calls: list[ToolCallRecord] = []
        self.last_level = 0
        # what the next request tells the model about the previous reply (cut off ...)
        self.notice = ""
        self.cut_offs = 0  # cut-off replies in a row
        self.nudged_for_answer = False  # an empty or refusing reply was asked again once
        self.wrapped_up = False  # the one call a soft budget allows past 100 % was made
        self.stop_override: str | None = None  # a stop reason the round decided itself
        self._round_records: list[tuple[str, ToolCallRecord]] = []  # (call id, record)
        # each reply's output allowance: the setting, else the room the window keeps
        self.output_allowance = loop.model.max_output_tokens or output_reserve(
            self.context_window_tokens)

    # ------------------------------------------------------------------ lifecycle

    async def execute(self) -> AgentResult:
        stop_reason = "error"
        try:
            self.accounting.open(self.token_budget)
            memory_text = await self.memory.start(self.task)
            self.window = ContextWindow.for_model(
                self.client.model,
                system_prompt(self.loop.root, self.capability, self.tracker.phase, memory_text,
                              [t["function"]["name"]
                               for t in self.loop.pipeline.schemas(self.ctx)]),
                self.task, context_window=self.context_window_tokens)
            answer, stop_reason = await self._work()
            return await self._finish(answer, stop_reason)
        except asyncio.CancelledError:
            stop_reason = "cancelled"
            await self.memory.record_event(
                "cancelled", f"cancelled during {self.tracker.phase.value} after "
                f"{self.tracker.metrics.iteration} model calls", self._files())
            raise
        except ModelError as exc:
            stop_reason = "model_error"
            await self.memory.record_event("failed", str(exc), self._files())
            # the request and the failure stay on record
            await self.memory.close_failed(self._structured_summary(str(exc), stop_reason))
            raise
        finally:
            self.accounting.close()
            await self.client.aclose()
            await self._emit("progress", {"phase": self.tracker.phase.value, "step":
                                          self.tracker.metrics.iteration, "done": True,
                                          "stopReason": stop_reason})

    async def _work(self) -> tuple[str, str]:
        budget = self.tracker.budget
        while self.tracker.metrics.iteration < budget.max_iterations:
            answer = await self._round()
            if answer is not None:
                if self.stop_override is not None:
                    return answer, self.stop_override
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
        tools = sent_schemas(self.loop.pipeline.schemas(self.ctx))
        extras = [await self.memory.working(self.tracker.phase, step), nudge.text if nudge else "",
                  self.notice]
        self.notice = ""
        reserved = token_len(json.dumps(tools))
        room = self.accounting.room()  # asked before anything is sent
        if room is not None and room.spent:
            if room.hard or self.wrapped_up:  # hard: nothing more; soft: one wrap-up only
                self.stop_override = "token_budget"
                return self._budget_answer(room)
            self.wrapped_up = True
        else:
            await self._distil(extras, reserved)
        for overflows in range(MAX_OVERFLOW_RETRIES + 1):
            rendered = self.window.render(extras, reserved=reserved)
            self.ctx.state.in_context = set(rendered.whole)
            if rendered.level != self.last_level:
                self.last_level = rendered.level
                await self._emit("context", {"level": rendered.level, "tokens": rendered.tokens,
                                             "budget": rendered.budget})
            carriage = Carriage.of(rendered.messages, tools, rendered.carried, rendered.fresh)
            try:
                allowance = self.output_allowance if room is None else \
                    room.reply_allowance(self.output_allowance, rendered.tokens + reserved)
                response = await self.client.complete(rendered.messages, tools,
                                                      self.tracker.tool_choice,
                                                      max_tokens=allowance)
                break
            except ContextOverflow as exc:
                self._record(exc.attempts, None, rendered, "other", carriage)
                await self._drain_budget_events()
                if overflows == MAX_OVERFLOW_RETRIES or not self._shrink(
                        exc, rendered.tokens + reserved + self.output_allowance):
                    raise
                extras[0] = await self.memory.working(self.tracker.phase, step)
            except ModelError as exc:
                self._record(exc.attempts, None, rendered, "other", carriage)
                await self._drain_budget_events()
                raise
        if response.usage is not None:
            self.window.calibrate(rendered.tokens + reserved, response.usage.prompt_tokens)
        kind = call_type([c.name for c in response.tool_calls], rendered.fresh)
        if response.cut_off:
            return await self._cut_off_round(response, rendered, kind, carriage,
                                             rendered.tokens + reserved)
        self.cut_offs = 0
        if response.tool_calls:
            return await self._tool_round(response, rendered, kind, carriage)
        return await self._text_round(response, rendered, kind, carriage)

    async def _tool_round(self, response: ChatResponse, rendered: Rendered, kind: str,
                          carriage: Carriage) -> str | None:
        assert self.window is not None
        tools_off = self.tracker.phase is Phase.SUMMARIZE
        messages: list[dict[str, Any]] = []
        spans = {}
        outcomes: list[tuple[str, bool, bool, list[str]]] = []
        for call, result in zip(response.tool_calls,
                                await self._run_calls(response.tool_calls, tools_off),
                                strict=True):
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result.content})
            spans[call.id] = result.spans
            outcomes.append((call.name, result.ok, result.new_information,
                             list(result.files)))
            if result.ok and call.name in ("write_file", "remember", "note_finding"):
                self.window.note_produced(f"{call.name}: {result.content[:200]}")
        self.window.add_round(response.assistant_message(), messages, spans)
        self._record(response.attempts, response, rendered, kind, carriage)
        self.pending = self.tracker.record_round(RoundSignal.from_results(outcomes))
        await self.memory.after_round()
        await self._drain_budget_events()
        if self.tracker.metrics.iteration >= self.tracker.budget.max_iterations:
            return response.content or self._fallback_answer()
        return None

    async def _run_calls(self, calls: Sequence[ToolCall], tools_off: bool
                         ) -> list[ToolResult]:
        """The round's calls, results in call order: consecutive read-only calls run
        concurrently (at most :data:`PARALLEL_READS` at once), every other call alone,
        in order, after the reads before it."""
        results: list[ToolResult | None] = [None] * len(calls)
        gate = asyncio.Semaphore(PARALLEL_READS)
        reads: list[int] = []

        async def run(index: int) -> None:
            call = calls[index]
            async with gate:
                results[index] = await self._run_tool(call.name, call.arguments, call.id,
                                                      tools_off)

        async def run_reads() -> None:
            await asyncio.gather(*(run(index) for index in reads))
            reads.clear()

        for index, call in enumerate(calls):
            spec = self.loop.pipeline.registry.get(call.name)
            if spec is not None and spec.read_only and not tools_off:
                reads.append(index)
                continue
            await run_reads()
            await run(index)
        await run_reads()
        self.tool_calls += self._pending_records(calls)
        return [result for result in results if result is not None]

    def _pending_records(self, calls: Sequence[ToolCall]) -> list[ToolCallRecord]:
        """The round's call records in call order (they finish in any order)."""
        order = {call.id: index for index, call in enumerate(calls)}
        records, self._round_records = self._round_records, []
        return [record for _, record in sorted(records, key=lambda r: order.get(r[0], 0))]

    async def _text_round(self, response: ChatResponse, rendered: Rendered, kind: str,
                          carriage: Carriage) -> str | None:
        assert self.window is not None
        self._record(response.attempts, response, rendered, kind, carriage)
        declined = refused(response)
        if declined is not None or not response.content.strip():
            return await self._no_answer_round(response, declined)
        transition = self.tracker.record_text_response()
        await self._drain_budget_events()
        if transition is None or self.tracker.metrics.iteration >= \
                self.tracker.budget.max_iterations:
            self.window.note_produced("answer: " + response.content[:300])
            return response.content
        self.window.add_round(response.assistant_message())
        self.pending = transition
        return None

    async def _no_answer_round(self, response: ChatResponse, declined: str | None
                                ) -> str | None:
        """An empty or refusing reply is no answer: asked again once with a nudge, then
        the task ends saying so (never with ``""`` as its answer)."""
        assert self.window is not None
        self.pending = self.tracker.record_round(RoundSignal())
        await self._drain_budget_events()
        outcome = "refused" if declined is not None else "no_answer"
        if self.nudged_for_answer or \
                self.tracker.metrics.iteration >= self.tracker.budget.max_iterations:
            self.stop_override = outcome
            return no_answer(outcome, declined)
        self.nudged_for_answer = True
        if declined is not None:
            self.window.add_round(response.assistant_message())
        nudge = Nudge(NudgeType.REFUSAL, REFUSAL_NUDGE) if declined is not None \
            else Nudge(NudgeType.EMPTY_REPLY, EMPTY_NUDGE)
        await self._send_nudge(nudge)
        self.notice = nudge.text
        return None

    async def _cut_off_round(self, response: ChatResponse, rendered: Rendered, kind: str,
                             carriage: Carriage, prompt_tokens: int) -> str | None:
        """A reply stopped at its output limit: none of its tool calls runs (their
        arguments are unterminated); the model is asked again with the reason and a
        larger allowance, at most :data:`MAX_CUT_OFF_REASKS` times in a row."""
        assert self.window is not None
        self._record(response.attempts, response, rendered, kind, carriage)
        self.cut_offs += 1
        reason = response.finish_reason
        calls = response.tool_calls
        if calls:
            results = [{"role": "tool", "tool_call_id": c.id,
                        "content": cut_off_call(c.name, len(c.arguments), reason)}
                       for c in calls]
            for c in calls:
                record = ToolCallRecord(c.name, "cut_off", 0.0)
                self.tool_calls.append(record)
                await self._note_call(record, c.id, ok=False, refused="the reply was cut off")
            self.window.add_round(cut_off_assistant(response), results)
        else:
            self.window.add_round(cut_off_assistant(response))
            self.notice = cut_off_answer(reason)
        self.pending = self.tracker.record_round(RoundSignal.from_results(
            (c.name, False, False, ()) for c in calls))
        await self._drain_budget_events()
        self.output_allowance = self._grown_allowance(prompt_tokens)
        if self.cut_offs > MAX_CUT_OFF_REASKS or \
                self.tracker.metrics.iteration >= self.tracker.budget.max_iterations:
            self.stop_override = "cut_off"
            return marked_cut_off(response.content, reason, len(calls))
        return None

    def _shrink(self, overflow: ContextOverflow, sent: int) -> bool:
        """The endpoint refused the prompt as too long: use the window it named from now
        on (for this endpoint and model, in every later task and run too) — or, when it
        named none, judge the window by 70 % of what was sent — render one level more
        compressed and halve memory's share; False when nothing can shrink any more."""
        assert self.window is not None
        window = overflow.window
        if window is not None:
            self.endpoint_windows.learn(self.loop.model.base_url, self.client.model, window)
        else:
            window = max(1, min(self.context_window_tokens, sent) * 7 // 10)
        shrunk = window < self.context_window_tokens
        self.context_window_tokens = min(self.context_window_tokens, window)
        self.window.resize(self.context_window_tokens)
        self.output_allowance = min(self.output_allowance,
                                    output_reserve(self.context_window_tokens))
        self.memory.budget //= 2
        log.info("context overflow (%s): compressing harder", overflow)
        return self.window.compress_harder() or shrunk

    def _grown_allowance(self, prompt_tokens: int) -> int:
        """Twice the allowance, within the setting's cap and the window's free room."""
        grown = self.output_allowance * 2
        cap = self.loop.model.max_output_tokens
        if cap is not None:
            grown = min(grown, cap)
        room = self.context_window_tokens - prompt_tokens
        return max(self.output_allowance, min(grown, room))

    async def _note_call(self, record: ToolCallRecord, call_id: str, *, ok: bool,
                         refused: str | None) -> None:
        """Tell the editor about a tool call as it completes."""
        await self._emit("tool", {**record.to_json(), "tool": record.name, "ok": ok,
                                  "refused": refused, "callId": call_id,
                                  "phase": self.tracker.phase.value,
                                  "step": self.tracker.next_iteration,
                                  "maxSteps": self.tracker.budget.max_iterations})

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
                arguments, coerced = self._coerced(name, parsed.value)
                result = await self._execute(name, arguments, call_id)
                if coerced:
                    log.info("coerced arguments of %s: %s", name, ", ".join(coerced))
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
        self._round_records.append((call_id, record))
        await self._note_call(record, call_id, ok=result.ok, refused=result.refused)
        return result

    def _coerced(self, name: str, arguments: dict[str, Any]
                 ) -> tuple[dict[str, Any], tuple[str, ...]]:
        """Arguments coerced to the tool's schema where it allows (``"5"`` -> 5)."""
        spec = self.loop.pipeline.registry.get(name)
        return coerce_to_schema(arguments, spec.parameters) if spec is not None \
            else (arguments, ())

    async def _distil(self, extras: Sequence[str], reserved: int) -> None:
        """Level 2 ahead: the model distils the old rounds no distillation covers yet,
        once they are worth a call (the mechanical one-liners stand in until then)."""
        assert self.window is not None
        if self.writer is None:
            return
        rounds = self.window.rounds_to_distil(extras, reserved)
        if sum(r.tokens for r in rounds) < DISTIL_MIN_TOKENS:
            return
        written = await self.writer.distil(rounds)
        if written.text is not None:
            self.window.add_distillation(len(rounds), written.text)
        else:
            log.info("context distillation by the model skipped: %s", written.reason)
        await self._drain_budget_events()

    # ------------------------------------------------------------------ ledger and budget

    def _record(self, attempts: Sequence[Any], response: ChatResponse | None,
                rendered: Rendered, kind: str, carriage: Carriage) -> None:
        if self.accounting.record(attempts, response, self.client.model, kind, carriage,
                                  rendered.messages):
            self.token_ratio = max(self.token_ratio, 1.0)
            self.pending = self.tracker.force_summarize("token_budget") or self.pending

    async def _drain_budget_events(self) -> None:
        events = self.accounting.events
        while events:  # a deque: the ledger may append from its flush thread
            event = events.popleft()
            self.token_ratio = max(self.token_ratio, float(event.ratio))
            await self._emit("budget", {**event.to_json(), "taskId": self.task_id})
            if event.ratio >= 1.0:
                moved = self.tracker.force_summarize("token_budget")
                self.pending = moved or self.pending

    # ------------------------------------------------------------------ the end

    async def _finish(self, answer: str, stop_reason: str) -> AgentResult:
        summary = self._structured_summary(answer, stop_reason)
        closed = await self.memory.finish(summary, self._files()[:10])
        ledger = self.loop.ledger
        report = ledger.report(task_id=self.accounting.task) if ledger else None
        tokens = int(report["total"]["tokens"]) if report else self.accounting.provider_tokens
        return AgentResult(self.task_id, answer, self.tracker.metrics.iteration, tokens,
                           self.tool_calls, self.tracker.phase.value, stop_reason,
                           self.nudge_log, report, summary, closed["proposals"],
                           closed["summaryId"], closed["extracted"])

    def _structured_summary(self, answer: str, stop_reason: str) -> str:
        m = self.tracker.metrics
        phases = " -> ".join([self.tracker.chain[0].value,
                              *(t.target.value for t in self.tracker.transitions)])
        files = ", ".join(sorted(m.unique_files)[:20]) or "none"
        task = self.task if len(self.task) <= 500 else self.task[:500] + " …"
        said = (f"Answer (the model's, unchecked): {answer[:1500]}"
                if stop_reason not in UNFINISHED_STOPS
                else f"Answer: none complete ({stop_reason})")
        return (f"Task: {task}\nCapability: {self.capability}; phases: {phases}; "
                f"stopped: {stop_reason}\nModel calls: {m.iteration}; tool calls: "
                f"{len(self.tool_calls)}\nFiles examined: {files}\n{said}")

    # ------------------------------------------------------------------ helpers

    def _files(self) -> list[str]:
        return sorted(self.tracker.metrics.unique_files)

    async def _execute(self, name: str, arguments: dict[str, Any], call_id: str) -> ToolResult:
        """One pipeline call, on the services' thread when they live on one."""
        pipeline, ctx = self.loop.pipeline, self.ctx
        if self.loop.services_runner is None:
            return await pipeline.execute(name, arguments, ctx, call_id=call_id)
        begun = await self.memory.on_services(
            lambda: asyncio.run(pipeline.begin(name, arguments, ctx, call_id=call_id)))
        spec, text = begun.call.spec, None
        if begun.stopped is None and spec is not None and spec.embeds:
            text = begun.call.arguments.get(spec.embeds)  # a refused or cached call sends none
        if isinstance(text, str) and (embedded := await self.memory.embedded(text)) is not None:
            ctx.embedded[text] = embedded
        try:
            return await self.memory.on_services(lambda: asyncio.run(pipeline.finish(begun, ctx)))
        finally:
            if isinstance(text, str):
                ctx.embedded.pop(text, None)  # the handler takes it; a failed one leaves it

    def _findings(self) -> str:
        if self.window is None:
            return ""
        recent = self.window.rounds[-5:]
        return "\n".join(f"- {r.distilled()}" for r in recent)

    def _budget_answer(self, room: Room) -> str:
        return (f"Stopped: the token budget is spent ({room.used:,} of {room.limit:,} "
                "tokens) before a final answer. What was found:\n"
                + (self._findings() or "- nothing"))

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
