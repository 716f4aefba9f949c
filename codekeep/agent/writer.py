"""What the model writes for memory, when one is configured.

* **Summaries**: the model is asked for the strict template (files, operations,
  result); an answer missing a field, or naming a file that does not exist, is
  rejected and asked for once more with the reason; then the rule-based summary is
  kept and the reason logged in its history. Whether a summary is due follows the 3×
  rule against the summary call's *real* cost: the tokens the last summary call spent
  beyond the backlog it read (instructions + answer), an estimate until one ran.
* **Level-2 distillation** of old rounds: one call that keeps file paths, symbol ids,
  decisions and open questions; without an answer the mechanical one-liners stay.
* **Extraction**: the model stage's structured candidates (checked by
  :mod:`codekeep.memory.extraction`).

Every call goes through the task's ledger (``summarize`` for summaries and
distillation, ``other`` for extraction), counts against its budget, and never fails the
task: a timeout or an error answer is a reason, not an exception.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from codekeep.agent.accounting import MIN_REPLY_TOKENS, Carriage, LedgerAccounting
from codekeep.agent.context_window import Round
from codekeep.agent.model_client import ChatResponse, ModelClient, ModelError
from codekeep.common.tokens import token_len

log = logging.getLogger(__name__)

# The reply allowance of a memory call (summary, distillation, extraction answer).
WRITER_ALLOWANCE = 1024
# Until a summary call ran: its instructions plus a short answer.
SUMMARY_COST_ESTIMATE = 300
DISTIL_INSTRUCTIONS = (
    "Distil these earlier rounds of a coding agent's work into a few lines that keep every "
    "file path, symbol id, decision and open question; drop raw file contents. Plain text, "
    "no preamble."
)


@dataclass(frozen=True, slots=True)
class Written:
    """A model's answer for memory, or why there is none."""

    text: str | None
    reason: str | None = None


class ModelWriter:
    """Model calls that write for memory, billed to the task's ledger."""

    def __init__(self, client: ModelClient, accounting: LedgerAccounting,
                 allowance: int = WRITER_ALLOWANCE) -> None:
        self.client = client
        self.accounting = accounting
        self.allowance = allowance  # a summary or distillation is short
        self.summary_cost = SUMMARY_COST_ESTIMATE

    async def ask(self, messages: Sequence[Mapping[str, Any]], kind: str) -> Written:
        """One call without tools, if the task's budget has room for it (asked first:
        past a budget, or when it would not fit, nothing is sent); its cost is recorded
        whatever happens, and its reply's allowance is bounded by the budget."""
        carriage = Carriage.of(messages, (), {})
        prompt = sum(carriage.overhead.values())
        room = self.accounting.room()
        allowance = self.allowance
        if room is not None:
            refusal = room.refusal(prompt + MIN_REPLY_TOKENS)
            if refusal is not None:
                return Written(None, f"not sent: {refusal}")
            allowance = room.reply_allowance(allowance, prompt)
        try:
            response = await self.client.complete([dict(m) for m in messages], (), None,
                                                  max_tokens=allowance)
        except ModelError as exc:
            self.accounting.record(exc.attempts, None, self.client.model, kind, carriage,
                                   messages)
            # no attempt: the client sent nothing (its reason says why)
            return Written(None, f"the model call failed: {exc}" if exc.attempts else str(exc))
        self.accounting.record(response.attempts, response, self.client.model, kind, carriage,
                               messages)
        self._learn_cost(messages, response, kind)
        if not response.content.strip():
            return Written(None, "the model answered nothing")
        return Written(response.content)

    def _learn_cost(self, messages: Sequence[Mapping[str, Any]], response: ChatResponse,
                    kind: str) -> None:
        """The real cost of a summary call beyond the events it read."""
        if kind != "summarize" or response.usage is None or len(messages) < 2:
            return
        events = token_len(str(messages[-1].get("content") or ""))
        self.summary_cost = max(1, response.usage.prompt_tokens - events
                                + response.usage.completion_tokens)

    async def distil(self, rounds: Sequence[Round]) -> Written:
        """One model-written distillation of ``rounds`` (level 2 of the context window)."""
        lines = []
        for index, round_ in enumerate(rounds, start=1):
            body = "\n".join(str(m.get("content") or "")[:1500] for m in round_.messages())
            lines.append(f"--- round {index}\n{round_.distilled()}\n{body}")
        return await self.ask([{"role": "system", "content": DISTIL_INSTRUCTIONS},
                               {"role": "user", "content": "\n".join(lines)[-24_000:]}],
                              "summarize")
