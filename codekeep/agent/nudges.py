"""Nudges: short guidance injected as a system message before the next model call.

Five kinds, by priority (NudgeGenerator): force_exit > convergence >
budget_warning > reflection > planning. At most one nudge is sent per round — the most
urgent — because several competing instructions in one turn get ignored together.
A nudge that lost to a more urgent one is not lost when its condition persists
(budget_warning fires next round); periodic ones (reflection) simply wait for the next
period.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from codekeep.agent.exploration import ExplorationTracker, Phase, Transition


class NudgeType(StrEnum):
    FORCE_EXIT = "force_exit"
    CONVERGENCE = "convergence"
    BUDGET_WARNING = "budget_warning"
    REFLECTION = "reflection"
    PLANNING = "planning"
    # reactive, not chosen by priority: the previous reply was empty or declined the task
    EMPTY_REPLY = "empty_reply"
    REFUSAL = "refusal"


PRIORITY = (NudgeType.FORCE_EXIT, NudgeType.CONVERGENCE, NudgeType.BUDGET_WARNING,
            NudgeType.REFLECTION, NudgeType.PLANNING)

# Worded without tool names: the model may not be shown a tool a phase could use (more
# are loaded on demand), and a prompt naming a tool it cannot call invites the call.
PHASE_INSTRUCTIONS: dict[Phase, str] = {
    Phase.SCAN: "Get an overview first: the project's layout, and what memory already "
                "knows about the task.",
    Phase.EXPLORE: "Find the code that matters: look symbols up, follow their references, "
                   "then read only the lines you need.",
    Phase.VERIFY: "Check your conclusions against the code before answering: open the "
                  "definitions and call sites you are going to cite.",
    Phase.PRODUCE: "Produce the result now: make the change with your tools, one item at a "
                   "time, or say that no change is needed and why.",
    Phase.SUMMARIZE: "Tools are off. Answer the task in plain text: what you found or did, "
                     "with file paths and line numbers.",
}


@dataclass(frozen=True, slots=True)
class Nudge:
    type: NudgeType
    text: str

    def to_json(self) -> dict[str, str]:
        return {"type": self.type.value, "text": self.text}


class NudgeGenerator:
    """Chooses the nudge for the next round from the tracker's state."""

    def __init__(self, tracker: ExplorationTracker) -> None:
        self.tracker = tracker
        self._fired: set[NudgeType] = set()
        self._wrap_up_sent = False

    def next(self, transition: Transition | None = None, token_ratio: float = 0.0,
             findings: str = "") -> Nudge | None:
        """The most urgent nudge due now, or ``None``. ``findings``: distilled progress."""
        candidates = {kind: text for kind, text in self._candidates(
            transition, token_ratio, findings) if text}
        for kind in PRIORITY:
            if kind in candidates:
                self._fired.add(kind)
                return Nudge(kind, candidates[kind])
        return None

    def _candidates(self, transition: Transition | None, token_ratio: float, findings: str
                    ) -> list[tuple[NudgeType, str | None]]:
        m, b = self.tracker.metrics, self.tracker.budget
        found = f"\nFindings so far:\n{findings}" if findings else ""
        out: list[tuple[NudgeType, str | None]] = []
        if (transition is not None and transition.reason in ("iterations", "token_budget")
                and NudgeType.FORCE_EXIT not in self._fired):
            why = ("the iteration budget is spent" if transition.reason == "iterations"
                   else "the token budget is spent")
            out.append((NudgeType.FORCE_EXIT, f"Stop now: {why}. Summarise your findings and "
                        "finish with a plain-text answer; no more tool calls." + found))
        if (self.tracker.phase is Phase.PRODUCE and m.submit_count >= b.soft_submit_limit
                and not self._wrap_up_sent):
            # the soft submit limit: guide towards finishing, the hard limit cuts off later
            self._wrap_up_sent = True
            out.append((NudgeType.CONVERGENCE, (
                f"You have produced {m.submit_count} results (the soft limit is "
                f"{b.soft_submit_limit}, the hard limit {b.max_submits}). Finish the one in "
                "progress, then wrap up; start nothing new.")))
        elif transition is not None and transition.reason == "converged":
            out.append((NudgeType.CONVERGENCE, (
                f"Information has saturated: the last {m.rounds_since_new_info} rounds found "
                "nothing new. Stop searching and move on. "
                f"{PHASE_INSTRUCTIONS[transition.target]}" + found)))
        iteration_ratio = m.iteration / b.max_iterations
        if (NudgeType.BUDGET_WARNING not in self._fired
                and max(iteration_ratio, token_ratio) >= b.warning_ratio):
            spent = (f"{m.iteration} of {b.max_iterations} iterations" if iteration_ratio
                     >= token_ratio else f"{token_ratio:.0%} of the token budget")
            out.append((NudgeType.BUDGET_WARNING, (
                f"Budget warning: {spent} used, about 25% left. Prioritise the core of the "
                "task and prepare to answer.")))
        if m.iteration and m.iteration % b.reflection_every == 0 and transition is None:
            out.append((NudgeType.REFLECTION, (
                f"Reflect: {m.iteration} rounds done, {len(m.unique_files)} files seen, "
                f"{m.rounds_since_new_info} rounds since anything new. Review what you have "
                "found; is a part of the task still unanswered? Search only for that.")))
        if transition is not None:
            out.append((NudgeType.PLANNING, (
                f"{transition.source.value.title()} phase finished ({transition.reason}); now "
                f"{transition.target.value}. {PHASE_INSTRUCTIONS[transition.target]}" + found)))
        return out
