"""The exploration tracker: which phase the agent is in and when it moves on.

The tracker does no work itself; it watches what each round produced (new information,
submissions, searches) and moves the agent along its strategy's phase chain when the
metrics say the current phase has done its job — not after a fixed number of rounds.
It also decides ``tool_choice``: in SUMMARIZE the model may only write text; in PRODUCE,
until a change is made, it must call a tool.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum


class Phase(StrEnum):
    SCAN = "SCAN"
    EXPLORE = "EXPLORE"
    PRODUCE = "PRODUCE"
    VERIFY = "VERIFY"
    SUMMARIZE = "SUMMARIZE"


STRATEGIES: dict[str, tuple[Phase, ...]] = {
    # cold-start knowledge extraction: has a submission phase
    "bootstrap": (Phase.EXPLORE, Phase.PRODUCE, Phase.SUMMARIZE),
    # pure analysis: no submissions, a verification pass
    "analyst": (Phase.SCAN, Phase.EXPLORE, Phase.VERIFY, Phase.SUMMARIZE),
    # formatting and submitting what is already known
    "producer": (Phase.PRODUCE, Phase.SUMMARIZE),
}

# Tools whose successful call counts as a submission (the PRODUCE phase's output).
SUBMIT_TOOLS = frozenset({"write_file", "remember"})
# Tools that look for information (a round with one of them is a search round).
SEARCH_TOOLS = frozenset({
    "find_symbol", "find_references", "find_related", "search_symbols", "repo_map",
    "read_file", "search_code", "list_files", "recall",
})


@dataclass(frozen=True, slots=True)
class ExplorationBudget:
    """The limits (24 iterations, search budget 18, grace 10, 10/8 submits,
    3 idle rounds to exit) plus the convergence rule (3 rounds without new information
    after at least 10 rounds) and the nudge cadence."""

    max_iterations: int = 24
    search_budget: int = 18
    search_budget_grace: int = 10
    max_submits: int = 10
    soft_submit_limit: int = 8
    idle_rounds_to_exit: int = 3
    convergence_idle_rounds: int = 3
    convergence_min_rounds: int = 10
    scan_rounds: int = 2
    verify_rounds: int = 2
    reflection_every: int = 5
    warning_ratio: float = 0.75


@dataclass(frozen=True, slots=True)
class RoundSignal:
    """What one round did, as seen by the tracker (built from the tools' results)."""

    tools: tuple[str, ...] = ()
    new_information: bool = False
    submits: int = 0
    files: tuple[str, ...] = ()

    @classmethod
    def from_results(cls, results: Iterable[tuple[str, bool, bool, Iterable[str]]]
                     ) -> RoundSignal:
        """``results``: (tool name, ok, new_information, files) per executed call."""
        tools: list[str] = []
        files: list[str] = []
        new_information = False
        submits = 0
        for name, ok, new, touched in results:
            tools.append(name)
            files.extend(touched)
            new_information = new_information or new
            submits += int(ok and name in SUBMIT_TOOLS)
        return cls(tuple(tools), new_information, submits, tuple(files))

    @property
    def searched(self) -> bool:
        return any(name in SEARCH_TOOLS for name in self.tools)


@dataclass(slots=True)
class Metrics:
    iteration: int = 0
    submit_count: int = 0
    search_rounds_in_phase: int = 0
    phase_rounds: int = 0
    rounds_since_submit: int = 0
    rounds_since_new_info: int = 0
    consecutive_idle_rounds: int = 0
    total_tool_calls: int = 0
    unique_files: set[str] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class Transition:
    """A phase change and the metric that caused it (``reason`` drives the nudge type)."""

    source: Phase
    target: Phase
    reason: str


class ExplorationTracker:
    """Phase state machine for one task."""

    def __init__(self, strategy: str = "analyst", budget: ExplorationBudget | None = None) -> None:
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}; choose one of {sorted(STRATEGIES)}")
        self.strategy = strategy
        self.chain = STRATEGIES[strategy]
        self.budget = budget or ExplorationBudget()
        self.phase = self.chain[0]
        self.metrics = Metrics()
        self.transitions: list[Transition] = []
        self._text_redirected = False

    @property
    def tool_choice(self) -> str:
        """``none`` in SUMMARIZE; ``required`` while PRODUCE has made no change yet (a
        model that only describes the change would end an edit task with nothing done;
        PRODUCE ends after rounds without a change, and SUMMARIZE then takes the text
        answer, "no change needed" included); ``auto`` otherwise."""
        if self.phase is Phase.SUMMARIZE:
            return "none"
        if self.phase is Phase.PRODUCE and self.metrics.submit_count == 0:
            return "required"
        return "auto"

    @property
    def next_iteration(self) -> int:
        """1-based number of the model call about to be made."""
        return self.metrics.iteration + 1

    @property
    def iterations_left(self) -> int:
        return self.budget.max_iterations - self.metrics.iteration

    @property
    def converged(self) -> bool:
        m, b = self.metrics, self.budget
        return (m.rounds_since_new_info >= b.convergence_idle_rounds
                and m.iteration >= b.convergence_min_rounds)

    def record_round(self, signal: RoundSignal) -> Transition | None:
        """Update the metrics with a round that called tools; maybe change phase."""
        m = self.metrics
        m.iteration += 1
        m.phase_rounds += 1
        m.total_tool_calls += len(signal.tools)
        new_files = set(signal.files) - m.unique_files
        m.unique_files |= set(signal.files)
        if signal.new_information or new_files:
            m.rounds_since_new_info = 0
            m.consecutive_idle_rounds = 0
        else:
            m.rounds_since_new_info += 1
            m.consecutive_idle_rounds += 1
        if signal.searched:
            m.search_rounds_in_phase += 1
        if signal.submits:
            m.submit_count += signal.submits
            m.rounds_since_submit = 0
        else:
            m.rounds_since_submit += 1
        return self._advance()

    def record_text_response(self) -> Transition | None:
        """The model answered in text. ``None`` means the answer ends the task.

        The bootstrap strategy treats a text answer during EXPLORE (nothing submitted
        yet) as "the search is over" and moves to PRODUCE once.
        """
        self.metrics.iteration += 1
        self.metrics.phase_rounds += 1
        if (self.phase is Phase.EXPLORE and Phase.PRODUCE in self.chain
                and self.metrics.submit_count == 0 and not self._text_redirected
                and self.iterations_left > 1):
            self._text_redirected = True
            return self._move(Phase.PRODUCE, "text_response")
        return None

    def force_summarize(self, reason: str) -> Transition | None:
        """Jump to SUMMARIZE (iterations or token budget exhausted)."""
        if self.phase is Phase.SUMMARIZE:
            return None
        return self._move(Phase.SUMMARIZE, reason)

    def _advance(self) -> Transition | None:
        if self.iterations_left <= 1:
            return self.force_summarize("iterations")
        target_reason = self._due()
        if target_reason is None:
            return None
        return self._move(self._next_phase(), target_reason)

    def _next_phase(self) -> Phase:
        index = self.chain.index(self.phase)
        return self.chain[min(index + 1, len(self.chain) - 1)]

    def _due(self) -> str | None:
        """The reason the current phase is finished, or ``None`` to stay."""
        m, b = self.metrics, self.budget
        if self.phase is Phase.SCAN:
            if m.phase_rounds >= b.scan_rounds:
                return "scan_rounds"
            return "overview" if m.rounds_since_new_info == 0 else None
        if self.phase is Phase.EXPLORE:
            if self.converged:
                return "converged"
            if m.search_rounds_in_phase >= b.search_budget:
                return "search_budget"
            if m.submit_count > 0 and Phase.PRODUCE in self.chain:
                return "submitted"
            return None
        if self.phase is Phase.VERIFY:
            return "verified" if m.phase_rounds >= b.verify_rounds else None
        if self.phase is Phase.PRODUCE:
            if m.submit_count >= b.max_submits:
                return "max_submits"
            if m.submit_count > 0 and m.rounds_since_submit >= b.idle_rounds_to_exit:
                return "idle_after_submit"
            if m.submit_count == 0 and m.consecutive_idle_rounds >= b.search_budget_grace:
                return "idle"
        return None

    def _move(self, target: Phase, reason: str) -> Transition:
        transition = Transition(self.phase, target, reason)
        self.transitions.append(transition)
        self.phase = target
        self.metrics.phase_rounds = 0
        self.metrics.search_rounds_in_phase = 0
        return transition
