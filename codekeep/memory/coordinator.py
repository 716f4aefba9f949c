"""Splitting a token budget across memory layers by profile.

Layers: ``long_term`` (recalled knowledge + validated preferences), ``session`` (recent
summaries of other tasks), ``conversation`` (this task's own log: its summaries and
latest events) and ``working`` (scratchpad, plan, observations). The static layers are
filled first, each within its share; whatever they leave unused flows to working
memory, whose budget is its own share plus that surplus.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from codekeep.common.tokens import token_len
from codekeep.memory.model import MemoryInputError

PROFILES: dict[str, dict[str, float]] = {
    "chat": {"long_term": 0.60, "session": 0.00, "conversation": 0.20, "working": 0.20},
    "analyst": {"long_term": 0.15, "session": 0.35, "conversation": 0.05, "working": 0.45},
    "producer": {"long_term": 0.15, "session": 0.55, "conversation": 0.05, "working": 0.25},
}
STATIC_LAYERS = ("long_term", "session", "conversation")
HEADINGS = {
    "long_term": "# Project memory (recalled; verify before relying on it)",
    "session": "# Recent task summaries",
    "conversation": "# This task so far",
    "working": "# Working memory",
}


def allocation(profile: str, budget: int) -> dict[str, int]:
    shares = PROFILES.get(profile)
    if shares is None:
        raise MemoryInputError(f"unknown profile {profile!r} (use one of {', '.join(PROFILES)})")
    if budget < 0:
        raise MemoryInputError("budget must not be negative")
    return {layer: int(budget * share) for layer, share in shares.items()}


def fit_lines(heading: str, lines: list[str], budget: int) -> str:
    """The heading and as many whole lines (in order) as fit in ``budget`` tokens."""
    if not lines:
        return ""
    used = token_len(heading) + 1
    if used > budget:
        return ""
    kept = []
    for line in lines:
        cost = token_len(line) + 1
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    return heading + "\n" + "\n".join(kept) if kept else ""


@dataclass(frozen=True, slots=True)
class LayerSources:
    """Callables producing each layer's candidate lines, best first."""

    long_term: Callable[[], list[str]]
    session: Callable[[], list[str]]
    conversation: Callable[[], list[str]]
    working: Callable[[int], str]  # renders itself within a budget


def assemble(sources: LayerSources, profile: str, budget: int) -> tuple[str, int]:
    shares = allocation(profile, budget)
    blocks: list[str] = []
    surplus = 0
    for layer in STATIC_LAYERS:
        if shares[layer] <= 0:
            continue
        block = fit_lines(HEADINGS[layer], getattr(sources, layer)(), shares[layer])
        used = token_len(block) if block else 0
        surplus += max(0, shares[layer] - used)
        if block:
            blocks.append(block)
    remaining = budget - token_len("\n\n".join(blocks)) - 2 * len(blocks) if blocks else budget
    working_budget = min(shares["working"] + surplus, max(0, remaining))
    heading = HEADINGS["working"]
    body = sources.working(max(0, working_budget - token_len(heading) - 2))
    if body:
        blocks.append(heading + "\n" + body)
    text = "\n\n".join(blocks)
    tokens = token_len(text)
    while tokens > budget and blocks:  # joining can add a token or two; never exceed the budget
        blocks[-1] = "\n".join(blocks[-1].splitlines()[:-1])
        blocks = [b for b in blocks if b.strip()]
        text = "\n\n".join(blocks)
        tokens = token_len(text)
    return text, tokens
