"""The message history the model sees, kept inside the model's context budget.

Three levels of compression, chosen by how full the window is (seed 000, ContextWindow):

* L1 (60–80 %): tool results of old rounds are cut to their first lines; the last 4
  rounds stay whole.
* L2 (80–95 %): old rounds are distilled to one line each; the last 2 stay whole.
* L3 (> 95 %): only the system prompt, the first user message, a note of what was
  produced so far and the last round remain.

Compression is applied when rendering, never to the stored history, so a later render
at a lower fill level loses nothing. Two invariants hold at every level: the first user
message is never dropped, and an assistant message with tool calls always travels with
all of its tool results (the API rejects one without the other).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from codekeep.common.tokens import token_len
from codekeep.ledger.models import ModelInfo, model_info

L1_THRESHOLD = 0.60
L2_THRESHOLD = 0.80
L3_THRESHOLD = 0.95
_MESSAGE_OVERHEAD = 4  # role and separators, per message (OpenAI's published estimate)
_TRUNCATED_CHARS = 400
_DISTILLED_CHARS = 160


def message_tokens(message: dict[str, Any]) -> int:
    """Tokens one chat message costs: content, tool-call names and arguments, overhead."""
    total = _MESSAGE_OVERHEAD + token_len(str(message.get("content") or ""))
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        total += token_len(str(function.get("name", ""))) + token_len(
            str(function.get("arguments", "")))
    return total


def window_for_model(model: str, override: int | None = None,
                     lookup: Callable[[str], ModelInfo] = model_info) -> int:
    """Context window of ``model`` from the ledger's model table, unless overridden.

    ``lookup`` is normally ``Ledger.model_info`` so the table's settings overrides apply.
    """
    return override if override is not None else lookup(model).context_window


@dataclass(slots=True)
class Round:
    """One model turn: the assistant message and the tool results answering its calls."""

    assistant: dict[str, Any]
    tool_results: list[dict[str, Any]] = field(default_factory=list)
    tokens: int = 0

    def __post_init__(self) -> None:
        self.tokens = sum(message_tokens(m) for m in self.messages())

    def messages(self) -> list[dict[str, Any]]:
        return [self.assistant, *self.tool_results]

    def truncated(self) -> list[dict[str, Any]]:
        """L1 form: the calls as made, each result cut to its head with a note."""
        return [self.assistant, *(_truncate_result(m) for m in self.tool_results)]

    def distilled(self) -> str:
        """L2 form: one line saying what was asked and what came back."""
        calls = self.assistant.get("tool_calls") or []
        if not calls:
            return "answered: " + _head(str(self.assistant.get("content") or ""), _DISTILLED_CHARS)
        results = {m.get("tool_call_id"): str(m.get("content") or "") for m in self.tool_results}
        parts = []
        for call in calls:
            function = call.get("function") or {}
            args = _head(str(function.get("arguments") or ""), 80)
            outcome = _head(results.get(call.get("id"), ""), _DISTILLED_CHARS)
            parts.append(f"{function.get('name')}({args}) -> {outcome}")
        return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class Rendered:
    """The messages to send, the compression level used and the fill before/after."""

    messages: list[dict[str, Any]]
    level: int
    tokens: int
    full_tokens: int
    budget: int

    @property
    def ratio(self) -> float:
        return self.tokens / self.budget if self.budget else 1.0


class ContextWindow:
    """Holds the task's conversation and renders it to fit ``budget`` tokens."""

    def __init__(self, system: str, task: str, budget: int) -> None:
        if budget <= 0:
            raise ValueError(f"the context budget must be positive, got {budget}")
        self.budget = budget
        self._system = {"role": "system", "content": system}
        self._task = {"role": "user", "content": task}
        self._head_tokens = message_tokens(self._system) + message_tokens(self._task)
        self.rounds: list[Round] = []
        self.produced: list[str] = []

    @classmethod
    def for_model(cls, model: str, system: str, task: str, *, context_window: int | None = None,
                  reserve_output: int | None = None) -> ContextWindow:
        """Budget = the model's window minus room for its answer (1/8, at most 8192)."""
        window = window_for_model(model, context_window)
        reserve = reserve_output if reserve_output is not None else min(8192, window // 8)
        return cls(system, task, max(1, window - reserve))

    def add_round(self, assistant: dict[str, Any], tool_results: Sequence[dict[str, Any]] = ()
                  ) -> None:
        """Append a turn; tool results must answer exactly the assistant's tool calls."""
        wanted = {call.get("id") for call in assistant.get("tool_calls") or []}
        given = {message.get("tool_call_id") for message in tool_results}
        if wanted != given:
            raise ValueError(f"tool results {sorted(map(str, given))} do not answer the "
                             f"calls {sorted(map(str, wanted))}")
        self.rounds.append(Round(dict(assistant), [dict(m) for m in tool_results]))

    def note_produced(self, item: str) -> None:
        """Remember something the agent produced; it survives even L3 compression."""
        self.produced.append(item)

    @property
    def full_tokens(self) -> int:
        return self._head_tokens + sum(r.tokens for r in self.rounds)

    def render(self, extra_system: Sequence[str] = (), reserved: int = 0) -> Rendered:
        """Messages for the next request; ``extra_system`` (nudges, working memory) go last.

        ``reserved`` is what else the request spends from the budget (tool schemas).
        """
        budget = max(1, self.budget - reserved)
        extras = [{"role": "system", "content": text} for text in extra_system if text]
        extra_tokens = sum(message_tokens(m) for m in extras)
        full = self.full_tokens + extra_tokens
        level = _level_for(full / budget)
        while True:
            messages = self._compose(level)
            tokens = sum(message_tokens(m) for m in messages) + extra_tokens
            if tokens <= budget or level == 3:
                break
            level += 1
        if tokens > budget:
            messages, tokens = self._squeeze_last_round(messages, budget - extra_tokens)
            tokens += extra_tokens
        return Rendered(messages + extras, level, tokens, full, budget)

    def _compose(self, level: int) -> list[dict[str, Any]]:
        head = [self._system, self._task]
        if level == 0:
            return head + [m for r in self.rounds for m in r.messages()]
        if level == 1:
            old, recent = _split(self.rounds, 4)
            return head + [m for r in old for m in r.truncated()] + [
                m for r in recent for m in r.messages()]
        if level == 2:
            old, recent = _split(self.rounds, 2)
            distilled = [_note("Earlier rounds, distilled (re-run a tool if you need the detail):\n"
                               + "\n".join(f"- round {i + 1}: {r.distilled()}"
                                           for i, r in enumerate(old)))] if old else []
            return head + distilled + [m for r in recent for m in r.messages()]
        old, recent = _split(self.rounds, 1)
        return head + [_note(self._produced_note(len(old)))] + [
            m for r in recent for m in r.messages()]

    def _produced_note(self, dropped_rounds: int) -> str:
        lines = [f"Context was compacted: {dropped_rounds} earlier rounds were removed."]
        if self.produced:
            lines.append("Produced so far:")
            lines += [f"- {item}" for item in self.produced]
        else:
            lines.append("Nothing has been produced yet.")
        return "\n".join(lines)

    def _squeeze_last_round(self, messages: list[dict[str, Any]], budget: int
                            ) -> tuple[list[dict[str, Any]], int]:
        """Last resort: cut the kept round's tool results (the round itself stays whole)."""
        squeezed = [_truncate_result(m) if m.get("role") == "tool" else m for m in messages]
        return squeezed, sum(message_tokens(m) for m in squeezed)


def _level_for(ratio: float) -> int:
    if ratio > L3_THRESHOLD:
        return 3
    if ratio >= L2_THRESHOLD:
        return 2
    if ratio >= L1_THRESHOLD:
        return 1
    return 0


def _split(rounds: list[Round], keep: int) -> tuple[list[Round], list[Round]]:
    cut = max(0, len(rounds) - keep)
    return rounds[:cut], rounds[cut:]


def _note(text: str) -> dict[str, Any]:
    return {"role": "system", "content": text}


def _head(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _truncate_result(message: dict[str, Any]) -> dict[str, Any]:
    content = str(message.get("content") or "")
    if len(content) <= _TRUNCATED_CHARS:
        return message
    note = (f"\n[… {len(content) - _TRUNCATED_CHARS} more characters of this old result were "
            "dropped to save context; call the tool again if you need them]")
    return {**message, "content": content[:_TRUNCATED_CHARS] + note}

