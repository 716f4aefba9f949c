"""The message history the model sees, kept inside the model's context budget.

Three levels of compression, chosen by how full the window is (ContextWindow):

* L1 (60–80 %): tool results of old rounds are cut to their first lines; the last 4
  rounds stay whole.
* L2 (80–95 %): old rounds are distilled to one line each; the last 2 stay whole.
* L3 (> 95 %): only the system prompt, the first user message, a note of what was
  produced so far and the last round remain.

Compression is applied when rendering, never to the stored history, so a later render
at a lower fill level loses nothing. Two invariants hold at every level: the first user
message is never dropped, and an assistant message with tool calls always travels with
all of its tool results (the API rejects one without the other).

Each render also says what the prompt carries (``Rendered.carried``): the tokens of
every file's text inside the tool results it sends (from the results' ``FileSpan``s,
each counted as sent), so the ledger bills a call to the files its prompt actually
contains — a result cut at L1 carries only its head, a distilled or dropped round
carries nothing. L2 uses a
model-written distillation of the old rounds when the agent installed one
(:meth:`ContextWindow.set_distillation`), else one mechanical line per round.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from codekeep.common.tokens import token_len
from codekeep.ledger.prices import ModelInfo, model_info
from codekeep.tools.result import FileSpan

L1_THRESHOLD = 0.60
L2_THRESHOLD = 0.80
L3_THRESHOLD = 0.95
_MESSAGE_OVERHEAD = 4  # role and separators, per message (OpenAI's published estimate)
_TRUNCATED_CHARS = 400
_DISTILLED_CHARS = 160
Mode = Literal["whole", "truncated", "gone"]


def message_tokens(message: Mapping[str, Any]) -> int:
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


def output_reserve(window: int) -> int:
    """Room a window keeps for the model's answer: 1/8 of it, at most 8192 tokens."""
    return min(8192, window // 8)


@dataclass(slots=True)
class Round:
    """One model turn: the assistant message and the tool results answering its calls.

    ``spans`` maps a tool call id to where its result's content is file text.
    """

    assistant: dict[str, Any]
    tool_results: list[dict[str, Any]] = field(default_factory=list)
    spans: dict[str, tuple[FileSpan, ...]] = field(default_factory=dict)
    tokens: int = 0
    _carried: dict[Mode, dict[str, dict[str, int]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.tokens = sum(message_tokens(m) for m in self.messages())

    def messages(self) -> list[dict[str, Any]]:
        return [self.assistant, *self.tool_results]

    def truncated(self) -> list[dict[str, Any]]:
        """L1 form: the calls as made, each result cut to its head with a note."""
        return [self.assistant, *(_truncate_result(m) for m in self.tool_results)]

    def distilled(self) -> str:
        """L2 form: one line saying what was asked and what came back.

        Only the first line of each result is kept: it is the header (path and range of
        a read, match counts of a search), never file text, so a distilled round no
        longer carries — and is no longer billed to — the files it read.
        """
        calls = self.assistant.get("tool_calls") or []
        if not calls:
            return "answered: " + _head(str(self.assistant.get("content") or ""), _DISTILLED_CHARS)
        results = {m.get("tool_call_id"): str(m.get("content") or "") for m in self.tool_results}
        parts = []
        for call in calls:
            function = call.get("function") or {}
            args = _head(str(function.get("arguments") or ""), 80)
            first_line = results.get(call.get("id"), "").split("\n", 1)[0]
            parts.append(f"{function.get('name')}({args}) -> {_head(first_line, _DISTILLED_CHARS)}")
        return "; ".join(parts)

    def carried(self, mode: Mode) -> dict[str, dict[str, int]]:
        """``call id -> path -> tokens`` of file text this round sends in ``mode``
        (each span counted as the piece of text it is; counted once per mode)."""
        if mode == "gone":
            return {}
        known = self._carried.get(mode)
        if known is not None:
            return known
        carried: dict[str, dict[str, int]] = {}
        for message in self.tool_results:
            call_id = str(message.get("tool_call_id"))
            content = str(message.get("content") or "")
            limit = len(content) if mode == "whole" or len(content) <= _TRUNCATED_CHARS \
                else _TRUNCATED_CHARS
            for span in self.spans.get(call_id, ()):
                if span.clipped(limit):
                    tokens = token_len(content[span.start:min(span.end, limit)])
                    per_file = carried.setdefault(call_id, {})
                    per_file[span.path] = per_file.get(span.path, 0) + tokens
        self._carried[mode] = carried
        return carried

    def whole_results(self, mode: Mode) -> set[str]:
        """Call ids whose result this round sends uncut in ``mode``."""
        if mode == "gone":
            return set()
        return {str(m.get("tool_call_id")) for m in self.tool_results
                if mode == "whole" or len(str(m.get("content") or "")) <= _TRUNCATED_CHARS}


@dataclass(frozen=True, slots=True)
class Rendered:
    """The messages to send, the compression level used and the fill before/after.

    ``carried``: tokens of each file's text in the messages; ``fresh``: the part of
    it added since the previous render, per tool call (newly read code); ``whole``: the
    tool call ids whose results are sent uncut (the re-read check points at those only).
    """

    messages: list[dict[str, Any]]
    level: int
    tokens: int
    full_tokens: int
    budget: int
    carried: dict[str, int] = field(default_factory=dict)
    fresh: dict[str, dict[str, int]] = field(default_factory=dict)
    whole: frozenset[str] = frozenset()

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
        self._rendered_rounds = 0  # rounds that existed at the previous render
        self._distillations: list[tuple[int, int, str]] = []  # model text per round range
        # after the endpoint said the prompt does not fit: render at least this level
        self.min_level = 0
        # the endpoint's count of a prompt over ours (its tokenizer, its chat template)
        self.scale = 1.0

    @classmethod
    def for_model(cls, model: str, system: str, task: str, *, context_window: int | None = None,
                  reserve_output: int | None = None) -> ContextWindow:
        """Budget = the model's window minus room for its answer (1/8, at most 8192)."""
        window = window_for_model(model, context_window)
        reserve = reserve_output if reserve_output is not None else output_reserve(window)
        return cls(system, task, max(1, window - reserve))

    def add_round(self, assistant: dict[str, Any], tool_results: Sequence[dict[str, Any]] = (),
                  spans: Mapping[str, Sequence[FileSpan]] | None = None) -> None:
        """Append a turn; tool results must answer exactly the assistant's tool calls.

        ``spans`` (tool call id -> spans) says where each result's content is file text.
        """
        wanted = {call.get("id") for call in assistant.get("tool_calls") or []}
        given = {message.get("tool_call_id") for message in tool_results}
        if wanted != given:
            raise ValueError(f"tool results {sorted(map(str, given))} do not answer the "
                             f"calls {sorted(map(str, wanted))}")
        self.rounds.append(Round(dict(assistant), [dict(m) for m in tool_results],
                                 {k: tuple(v) for k, v in (spans or {}).items()}))

    @property
    def distilled_rounds(self) -> int:
        """How many leading rounds a model-written distillation covers."""
        return self._distillations[-1][1] if self._distillations else 0

    def rounds_to_distil(self, extra_system: Sequence[str] = (), reserved: int = 0
                         ) -> list[Round]:
        """The old rounds the next render distils (level 2 or more) that no model-written
        distillation covers yet; empty when the next render stays below level 2."""
        budget = max(1, self.budget - reserved)
        extra = sum(message_tokens({"role": "system", "content": t}) for t in extra_system if t)
        if _level_for((self.full_tokens + extra) / budget) < 2:
            return []
        old, _ = _split(self.rounds, 2)
        return old[self.distilled_rounds:]

    def add_distillation(self, rounds: int, text: str) -> None:
        """A model-written distillation of the next ``rounds`` uncovered rounds (level 2)."""
        start = self.distilled_rounds
        if rounds <= 0 or start + rounds > len(self.rounds) or not text.strip():
            raise ValueError("a distillation covers at least one existing round and says something")
        self._distillations.append((start, start + rounds, " ".join(text.split())))

    def note_produced(self, item: str) -> None:
        """Remember something the agent produced; it survives even L3 compression."""
        self.produced.append(item)

    @property
    def full_tokens(self) -> int:
        return self._head_tokens + sum(r.tokens for r in self.rounds)

    def resize(self, window: int) -> None:
        """The endpoint's real window (it named it refusing a prompt): budget from it."""
        self.budget = max(1, window - output_reserve(window))

    def calibrate(self, estimated: int, counted: int) -> None:
        """The endpoint counted ``counted`` tokens for a prompt we estimated at
        ``estimated``: judge the window by its count from now on (never below ours)."""
        if estimated > 0 and counted > 0:
            self.scale = max(1.0, counted / estimated)

    def compress_harder(self) -> bool:
        """The last prompt did not fit: render one level more compressed from now on;
        False when already at the last level."""
        if self.min_level >= 3:
            return False
        self.min_level += 1
        return True

    def render(self, extra_system: Sequence[str] = (), reserved: int = 0) -> Rendered:
        """Messages for the next request, under one system message that comes first
        (chat templates keep only one, or repeat the tool list for each): the prompt,
        the notes of compressed rounds, then ``extra_system`` (nudges, working memory).

        ``reserved`` is what else the request spends from the budget (tool schemas).
        """
        budget = max(1, int(self.budget / self.scale) - reserved)
        extras = [{"role": "system", "content": text} for text in extra_system if text]
        extra_tokens = sum(message_tokens(m) for m in extras)
        full = self.full_tokens + extra_tokens
        level = max(self.min_level, _level_for(full / budget))
        while True:
            modes = self._modes(level)
            messages = self._compose(level, modes)
            tokens = sum(message_tokens(m) for m in messages) + extra_tokens
            if tokens <= budget or level == 3:
                break
            level += 1
        if tokens > budget:
            messages, tokens = self._squeeze_last_round(messages, budget - extra_tokens)
            tokens += extra_tokens
            modes = ["truncated" if mode == "whole" else mode for mode in modes]
        return Rendered(one_system_message(messages + extras), level, tokens, full, budget,
                        *self._carriage(modes))

    def _modes(self, level: int) -> list[Mode]:
        """How each round travels at ``level``: whole, cut to its head, or not at all."""
        keep = {0: len(self.rounds), 1: 4, 2: 2, 3: 1}[level]
        cut = max(0, len(self.rounds) - keep)
        old: Mode = "truncated" if level == 1 else "gone"
        return [old if index < cut else "whole" for index in range(len(self.rounds))]

    def _carriage(self, modes: Sequence[Mode]
                  ) -> tuple[dict[str, int], dict[str, dict[str, int]], frozenset[str]]:
        carried: dict[str, int] = {}
        fresh: dict[str, dict[str, int]] = {}
        whole: set[str] = set()
        for index, (round_, mode) in enumerate(zip(self.rounds, modes, strict=True)):
            for call_id, per_file in round_.carried(mode).items():
                for path, chars in per_file.items():
                    carried[path] = carried.get(path, 0) + chars
                if index >= self._rendered_rounds:
                    fresh[call_id] = per_file
            whole |= round_.whole_results(mode)
        self._rendered_rounds = len(self.rounds)
        return carried, fresh, frozenset(whole)

    def _compose(self, level: int, modes: Sequence[Mode]) -> list[dict[str, Any]]:
        head = [self._system, self._task]
        kept = [r for r, mode in zip(self.rounds, modes, strict=True) if mode == "whole"]
        recent = [m for r in kept for m in r.messages()]
        if level == 0:
            return head + recent
        if level == 1:
            cut = [m for r, mode in zip(self.rounds, modes, strict=True) if mode == "truncated"
                   for m in r.truncated()]
            return head + cut + recent
        old = self.rounds[: len(self.rounds) - len(kept)]
        if level == 2:
            return head + ([_note(self._distilled_note(old))] if old else []) + recent
        return [*head, _note(self._produced_note(len(old))), *recent]

    def _distilled_note(self, old: Sequence[Round]) -> str:
        """The model's distillations of the rounds they cover, one mechanical line for the rest."""
        lines = ["Earlier rounds, distilled (re-run a tool if you need the detail):"]
        covered = 0
        for start, end, text in self._distillations:
            if end > len(old):
                break
            lines.append(f"- rounds {start + 1}-{end}: {text}" if end - start > 1
                         else f"- round {end}: {text}")
            covered = end
        lines += [f"- round {i + 1}: {r.distilled()}"
                  for i, r in enumerate(old) if i >= covered]
        return "\n".join(lines)

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


def one_system_message(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every system message's text in one system message, first, in their order."""
    system = [str(m.get("content") or "") for m in messages if m.get("role") == "system"]
    rest = [m for m in messages if m.get("role") != "system"]
    return [{"role": "system", "content": "\n\n".join(t for t in system if t)}, *rest] \
        if system else rest


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

