"""What the ledger stores per model call, and the events it emits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from codekeep.common.tokens import TokenSource

READ_SINGLE = "read_code.file"
READ_SEVERAL = "read_code.files"
READ_DIRECTORY = "read_code.directory"

# "read_code" alone is split by how much was read.
CALL_TYPES = (
    READ_SINGLE,
    READ_SEVERAL,
    READ_DIRECTORY,
    "generate_code",
    "summarize",
    "plan",
    "tool",
    "other",
)
CALL_TYPE_INPUTS = ("read_code", *CALL_TYPES)


def classify_call_type(call_type: str, file_count: int) -> str:
    """The stored call type: ``read_code`` becomes ``.file`` or ``.files`` by file count."""
    if call_type == "read_code":
        return READ_SINGLE if file_count <= 1 else READ_SEVERAL
    if call_type not in CALL_TYPES:
        raise ValueError(
            f"unknown call type {call_type!r}; expected one of {', '.join(CALL_TYPE_INPUTS)}"
        )
    return call_type


@dataclass(slots=True)
class CallRecord:
    """One model call: counts, attribution and the price it was billed at.

    Treat it as immutable; it is not ``frozen`` only because a frozen dataclass spends
    ~2 µs per construction on ``object.__setattr__``, a tenth of the recording budget.
    """

    id: str
    ts: float
    day: str                       # UTC day of ts (YYYY-MM-DD), the roll-up key
    task_id: str                   # the task the call landed on (X, or a continuation X#2)
    task_root: str                 # the name it continues (X); task_id when not a continuation
    session_id: str
    call_type: str
    model: str
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    reasoning_tokens: int
    token_source: TokenSource
    files: dict[str, int]          # path -> characters read
    file_tokens: dict[str, int]    # path -> input tokens attributed (sums to input_tokens)
    cost_usd: float
    price_input: float             # USD per 1M tokens at the time of the call
    price_output: float
    price_cached: float
    latency_ms: float = 0.0
    retry: int = 0
    stream: bool = False
    fresh: frozenset[str] = frozenset()  # files whose text this call newly read (a read)
    counted: bool = True           # False: the growth of a call booked before (no new call)
    priced: bool = True            # False: the model table has no price for this model
    file_costs: dict[str, float] = field(default_factory=dict)  # path -> USD (else input price)
    prompt_text: str | None = field(default=None, repr=False)
    completion_text: str | None = field(default=None, repr=False)

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def estimated(self) -> bool:
        """The tokens were counted by us: the endpoint reported no usage."""
        return self.token_source != "provider"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "ts": self.ts, "day": self.day, "taskId": self.task_id,
            "taskRoot": self.task_root, "sessionId": self.session_id,
            "callType": self.call_type, "model": self.model,
            "inputTokens": self.input_tokens, "outputTokens": self.output_tokens,
            "cachedTokens": self.cached_tokens, "reasoningTokens": self.reasoning_tokens,
            "tokenSource": self.token_source, "estimated": self.estimated,
            "files": dict(self.file_tokens),
            "costUsd": self.cost_usd,
            "price": {"input": self.price_input, "output": self.price_output,
                      "cached": self.price_cached},
            "latencyMs": self.latency_ms, "retry": self.retry, "stream": self.stream,
            "priced": self.priced,
        }


ERROR_KINDS = {"connection": ("failed connection", "failed connections"),
               "api": ("API error", "API errors")}


@dataclass(frozen=True, slots=True)
class ErrorEvent:
    """A model request that got no answer: a failed connection or an API error.

    Booked apart from calls (no tokens, no call count), so a run against an unreachable
    endpoint reads "3 failed connections", not "3 calls, 0 tokens".
    """

    source_id: str
    ts: float
    task_id: str
    session_id: str
    model: str
    kind: str      # a key of ERROR_KINDS
    detail: str

    def __post_init__(self) -> None:
        if self.kind not in ERROR_KINDS:
            raise ValueError(f"unknown error kind {self.kind!r}; expected one of "
                             f"{', '.join(ERROR_KINDS)}")


BudgetScope = Literal["task", "daily", "team"]  # team: the team database's daily total


@dataclass(frozen=True, slots=True)
class BudgetEvent:
    """A budget threshold crossed for the first time (once per threshold and limit)."""

    task_id: str
    used: int
    limit: int
    ratio: float
    threshold: float
    scope: BudgetScope = "task"

    def to_json(self) -> dict[str, Any]:
        return {"taskId": self.task_id, "used": self.used, "limit": self.limit,
                "ratio": round(self.ratio, 4), "threshold": self.threshold, "scope": self.scope}

    def message(self) -> str:
        subject = {"task": f"task {self.task_id}", "daily": "today's budget",
                   "team": "the team's daily budget"}[self.scope]
        if self.ratio >= 1.0:
            return (f"Token budget exceeded: {subject} used {self.used:,} of {self.limit:,} "
                    f"tokens ({self.ratio:.0%}).")
        return (f"Token budget warning: {subject} used {self.used:,} of {self.limit:,} tokens "
                f"({self.ratio:.0%}, past the {self.threshold:.0%} mark).")


class BudgetExceeded(RuntimeError):
    """Raised after storing a call that is over a hard-stop budget; the call is not lost."""

    def __init__(self, record: CallRecord, used: int, limit: int, scope: BudgetScope) -> None:
        self.record = record
        self.used = used
        self.limit = limit
        self.scope = scope
        what = f"task {record.task_id}" if scope == "task" else "daily"
        super().__init__(f"{what} token budget exhausted: {used:,} of {limit:,} tokens used")
