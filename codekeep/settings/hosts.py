"""Knobs of CodeKeep inside agent hosts (``codekeep.hosts.*``, see docs/settings.md):
how much memory Claude Code's hooks may inject, and how relevant it must be."""

from __future__ import annotations

from dataclasses import dataclass

from codekeep.settings.fields import check_bounds, setting


@dataclass(frozen=True, slots=True)
class HostSettings:
    """Budgets are in tokens of the injected text, fence and labels included; a prompt
    recall injects nothing rather than memories under the floor (a wrong memory in every
    prompt costs more than it saves)."""

    session_start_budget: int = setting(
        "Tokens of memory a Claude Code session gets at start, resume, clear and after a "
        "compaction.", default=1500, minimum=0)
    prompt_budget: int = setting(
        "Tokens of memory recalled for each prompt (UserPromptSubmit).", default=600, minimum=0)
    relevance_floor: float = setting(
        "Lowest relevance (0-1) a memory needs to be injected for a prompt.",
        default=0.3, minimum=0)

    def __post_init__(self) -> None:
        check_bounds(self)
