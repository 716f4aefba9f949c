"""Ledger accounting of one task: what each model call cost, what it was for, what it carried.

The loop hands every attempt of every model call here. A call's input tokens are split
over what its prompt actually carried: each file by
the tokens of its text inside the prompt's tool results, the rest by the tokens of the
system messages, the tool schemas and the conversation — all counted with the same
tokenizer, then scaled to the provider's reported input. (Tokens, not characters: tokens are
what is billed, and code and JSON schemas differ by ~10 % in characters per token,
which characters would misattribute.) The call
type says what the call was for:

* ``generate_code`` — the model answered with a write;
* ``read_code.file`` / ``.files`` / ``.directory`` — the prompt carries code read since
  the previous call: from one file, from several reads, or from one sweep (a search or
  reference listing) over several files;
* ``plan`` — only code-map and navigation lookups were asked for;
* ``tool`` — other tool calls (a read request, a command, a memory write ...);
* ``summarize`` — summaries and context distillation (:mod:`codekeep.agent.writer`);
* ``other`` — everything else, the final answer included.
"""

from __future__ import annotations

import json
import logging
from collections import deque
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from codekeep.agent.context_window import message_tokens
from codekeep.agent.model_client import Attempt, ChatResponse
from codekeep.common.tokens import function_tokens
from codekeep.ledger import BudgetEvent, BudgetExceeded, Ledger
from codekeep.ledger.records import READ_DIRECTORY, READ_SEVERAL, READ_SINGLE

log = logging.getLogger(__name__)

WRITE_TOOLS = frozenset({"write_file"})
PLAN_TOOLS = frozenset({"repo_map", "list_files", "recall", "find_symbol", "search_symbols",
                        "find_references", "find_related", "list_tool_categories",
                        "load_tools", "search_tools"})


def call_type(tool_names: Collection[str], fresh: Mapping[str, Mapping[str, int]]) -> str:
    """The ledger call type of a model call from what it was asked and what its prompt
    newly carries (``fresh``: tool call id -> path -> characters of new file text)."""
    names = set(tool_names)
    if names & WRITE_TOOLS:
        return "generate_code"
    if fresh:
        if any(len(files) > 1 for files in fresh.values()):
            return READ_DIRECTORY
        files = {path for per_call in fresh.values() for path in per_call}
        return READ_SINGLE if len(files) == 1 else READ_SEVERAL
    if names and names <= PLAN_TOOLS:
        return "plan"
    return "tool" if names else "other"


@dataclass(frozen=True, slots=True)
class Carriage:
    """What one prompt carried, in tokens (the ledger's weights): file text per path and
    the overhead buckets; ``fresh`` are the files it carries for the first time (reads)."""

    files: dict[str, int]
    overhead: dict[str, int]
    fresh: frozenset[str] = frozenset()

    @property
    def tokens(self) -> int:
        """The whole prompt as sent (messages, system text, tool schemas): what is booked,
        counted, when the endpoint reports no usage (llama.cpp's streams)."""
        return sum(self.files.values()) + sum(self.overhead.values())

    @classmethod
    def of(cls, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]],
           files: Mapping[str, int], fresh: Mapping[str, Mapping[str, int]] | None = None
           ) -> Carriage:
        system = sum(message_tokens(m) for m in messages if m.get("role") == "system")
        rest = sum(message_tokens(m) for m in messages if m.get("role") != "system")
        carried = {path: tokens for path, tokens in files.items() if tokens}
        return cls(carried, {"system": system,
                             "tools": function_tokens(tools),
                             "conversation": max(0, rest - sum(carried.values()))},
                   frozenset(path for per_call in (fresh or {}).values() for path in per_call))


# The least reply allowance a call is sent with, whatever little a budget has left.
MIN_REPLY_TOKENS = 256


@dataclass(frozen=True, slots=True)
class Room:
    """The tightest token budget in force for a task (its own or the day's)."""

    used: int
    limit: int
    hard: bool

    @property
    def spent(self) -> bool:
        return self.used >= self.limit

    def refusal(self, cost: int) -> str | None:
        """Why a call costing about ``cost`` tokens may not be sent, or None."""
        if self.used + cost <= self.limit:
            return None
        return (f"the token budget has no room for it (used {self.used:,} of "
                f"{self.limit:,}; this call needs about {cost:,})")

    def reply_allowance(self, want: int, prompt_tokens: int) -> int:
        """``want``, bounded by what the budget leaves after the prompt."""
        return min(want, max(MIN_REPLY_TOKENS, self.limit - self.used - prompt_tokens))


def budget_room(ledger: Ledger | None, task_id: str | None) -> Room | None:
    """The budget a call for ``task_id`` must fit (None: no budget in force)."""
    if ledger is None or task_id is None:
        return None
    state = ledger.budget_state(task_id)
    rooms = [Room(int(b["used"]), int(b["limit"]), bool(b["hardStop"]))
             for b in (state.get("task"), state.get("daily")) if b]
    return min(rooms, key=lambda r: r.limit - r.used, default=None)


class LedgerAccounting:
    """Opens the task on the ledger, records every attempt, relays budget crossings."""

    def __init__(self, ledger: Ledger | None, task_id: str, stream: bool) -> None:
        self.ledger = ledger
        self.task = task_id  # the ledger's id (a continuation once the task timed out)
        self.stream = stream
        self.events: deque[BudgetEvent] = deque()  # the ledger may append from its thread
        self.provider_tokens = 0
        self._listener: Callable[[BudgetEvent], None] | None = None

    def open(self, token_budget: int | None) -> None:
        ledger = self.ledger
        if ledger is None:
            return
        self.task = ledger.begin_task(self.task)
        if token_budget is not None:
            ledger.set_budget(self.task, token_budget)

        def listener(event: BudgetEvent) -> None:  # may run on the ledger's flush thread
            if event.task_id == self.task or event.scope == "daily":
                self.events.append(event)

        self._listener = listener
        ledger.subscribe(listener)

    def room(self) -> Room | None:
        """The budget this task's next call must fit (asked before every call)."""
        return budget_room(self.ledger, self.task)

    def close(self) -> None:
        ledger = self.ledger
        if ledger is None:
            return
        if self._listener is not None:
            ledger.unsubscribe(self._listener)
        try:
            ledger.end_task(self.task)  # also flushes
        except Exception:  # the task result matters more than a late flush
            log.exception("closing ledger task %s failed", self.task)

    def record(self, attempts: Sequence[Attempt], response: ChatResponse | None, model: str,
               kind: str, carriage: Carriage, messages: Sequence[Mapping[str, Any]]) -> bool:
        """Store every attempt of one call; True when a hard-stop budget is now exhausted.

        A failed attempt is booked as an error event (a failed connection or an API
        error), not a call; the one that answered is billed the provider's usage, split by
        ``carriage``.
        """
        exhausted = False
        for attempt in attempts:
            succeeded = attempt.error is None and response is not None
            usage = response.usage if succeeded and response is not None else None
            if usage is not None:
                self.provider_tokens += usage.prompt_tokens + usage.completion_tokens
            if self.ledger is None:
                continue
            try:
                if not succeeded or response is None:
                    # No answer: an error event, not a call (no HTTP status: no connection).
                    self.ledger.record_error(
                        task_id=self.task, model=model,
                        kind="api" if attempt.status else "connection",
                        detail=attempt.error or "no answer")
                    continue
                self.ledger.record(
                    task_id=self.task, call_type=kind, model=response.model,
                    input_tokens=usage.prompt_tokens if usage else carriage.tokens,
                    output_tokens=usage.completion_tokens if usage else None,
                    cached_tokens=usage.cached_tokens if usage else 0,
                    reasoning_tokens=usage.reasoning_tokens if usage else 0,
                    prompt_text=prompt_text(messages), completion_text=completion_text(response),
                    files=carriage.files or None, overhead=carriage.overhead,
                    fresh=carriage.fresh,
                    latency_ms=attempt.latency_ms, retry=attempt.retry, stream=response.stream)
            except BudgetExceeded:  # stored; a hard-stop budget ends the exploration now
                exhausted = True
        return exhausted


def prompt_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The prompt as text: counted when the provider reports no usage, stored on opt-in."""
    parts = []
    for message in messages:
        parts.append(str(message.get("content") or ""))
        for call in message.get("tool_calls") or []:
            parts.append(json.dumps(call.get("function") or {}))
    return "\n".join(parts)


def completion_text(response: ChatResponse) -> str:
    return "\n".join([response.content, *(f"{c.name}({c.arguments})"
                                          for c in response.tool_calls)])
