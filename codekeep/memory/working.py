"""Working memory for one task: scratchpad, observation log, plan.

* The **scratchpad** holds findings the agent chose to note; it is never compressed and
  never slides out.
* The **observation log** records every tool result, compressed by tool type (a search
  becomes "N matches in these files", a file read becomes "path: N lines") and kept in
  a sliding window; how many fell out is remembered and shown.
* The **plan** is the current list of steps.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from codekeep.common.tokens import token_len

_PATH = re.compile(r"(?:[\w.-]+/)*[\w.-]+\.[A-Za-z0-9]{1,8}\b")
_MAX_LINE = 300


@dataclass(frozen=True, slots=True)
class Finding:
    text: str
    evidence: str | None = None

    def render(self) -> str:
        return f"- {self.text}" + (f" (evidence: {self.evidence})" if self.evidence else "")


@dataclass(frozen=True, slots=True)
class Observation:
    round: int
    tool: str
    text: str


def _call(tool: str, arguments: dict[str, Any]) -> str:
    shown = ", ".join(f"{k}={v!r}" for k, v in list(arguments.items())[:3])
    return f"{tool}({shown})"


def _lines(result: str) -> list[str]:
    return [line for line in result.splitlines() if line.strip()]


def _files_in(result: str) -> list[str]:
    return list(dict.fromkeys(_PATH.findall(result)))


def compress_search(tool: str, arguments: dict[str, Any], result: str) -> str:
    files = _files_in(result)
    shown = ", ".join(files[:5]) + (f" (+{len(files) - 5} files)" if len(files) > 5 else "")
    return f"{_call(tool, arguments)}: {len(_lines(result))} matches" + (
        f" in {shown}" if files else ""
    )


def compress_read(tool: str, arguments: dict[str, Any], result: str) -> str:
    path = arguments.get("path") or arguments.get("file") or (_files_in(result)[:1] or ["?"])[0]
    return f"{tool}: {path}, {len(result.splitlines())} lines"


def compress_structure(tool: str, arguments: dict[str, Any], result: str) -> str:
    lines = _lines(result)
    head = "; ".join(line.strip()[:80] for line in lines[:8])
    return f"{_call(tool, arguments)}: {head}" + (
        f" (+{len(lines) - 8} more)" if len(lines) > 8 else ""
    )


def compress_command(tool: str, arguments: dict[str, Any], result: str) -> str:
    lines = _lines(result)
    tail = " | ".join(line.strip()[:120] for line in lines[-5:])
    return f"{_call(tool, arguments)}: {tail}"


def compress_default(tool: str, arguments: dict[str, Any], result: str) -> str:
    flat = " ".join(result.split())
    return f"{_call(tool, arguments)}: {flat[:_MAX_LINE]}" + ("…" if len(flat) > _MAX_LINE else "")


Compressor = Callable[[str, dict[str, Any], str], str]
# (substring of the tool name, compressor): first match wins.
COMPRESSORS: tuple[tuple[str, Compressor], ...] = (
    ("search", compress_search),
    ("grep", compress_search),
    ("references", compress_search),
    ("read", compress_read),
    ("open_file", compress_read),
    ("symbol", compress_structure),
    ("related", compress_structure),
    ("outline", compress_structure),
    ("map", compress_structure),
    ("class", compress_structure),
    ("command", compress_command),
    ("test", compress_command),
    ("shell", compress_command),
    ("bash", compress_command),
    ("run", compress_command),
)


def compress(tool: str, arguments: dict[str, Any], result: str) -> str:
    for needle, compressor in COMPRESSORS:
        if needle in tool:
            return compressor(tool, arguments, result)
    return compress_default(tool, arguments, result)


@dataclass
class WorkingMemory:
    task_id: str
    window: int = 20
    scratchpad: list[Finding] = field(default_factory=list)
    plan: list[str] = field(default_factory=list)
    round: int = 0
    dropped: int = 0
    observations: deque[Observation] = field(init=False)

    def __post_init__(self) -> None:
        self.observations = deque(maxlen=self.window)

    def start_round(self, number: int | None = None) -> None:
        self.round = self.round + 1 if number is None else number

    def note(self, finding: str, evidence: str | None = None) -> None:
        """Keep a finding for the whole task (never compressed, never evicted)."""
        self.scratchpad.append(Finding(finding.strip(), evidence))

    def observe(self, tool: str, arguments: dict[str, Any] | None, result: str) -> Observation:
        if len(self.observations) == self.observations.maxlen:
            self.dropped += 1
        observation = Observation(self.round, tool, compress(tool, arguments or {}, result))
        self.observations.append(observation)
        return observation

    def set_plan(self, steps: Sequence[str] | str) -> None:
        self.plan = [steps] if isinstance(steps, str) else [s for s in steps if s.strip()]

    def render(self, budget: int) -> str:
        """Scratchpad first (whole entries), then plan, then newest observations that fit."""
        sections: list[str] = []
        used = 0

        def fits(text: str) -> bool:
            nonlocal used
            cost = token_len(text) + 1
            if used + cost > budget:
                return False
            used += cost
            return True

        if self.scratchpad and fits("## Findings (scratchpad)"):
            notes = [f.render() for f in self.scratchpad]
            kept = [line for line in reversed(notes) if fits(line)]
            sections.append("## Findings (scratchpad)\n" + "\n".join(reversed(kept)))
        if self.plan and fits("## Plan"):
            steps = [
                line for line in (f"{i}. {s}" for i, s in enumerate(self.plan, 1)) if fits(line)
            ]
            sections.append("## Plan\n" + "\n".join(steps))
        if self.observations and fits("## Recent observations"):
            kept = []
            for obs in reversed(self.observations):
                line = f"- [round {obs.round}] {obs.text}"
                if not fits(line):
                    break
                kept.append(line)
            older = self.dropped + len(self.observations) - len(kept)
            if older and fits(f"({older} older observations omitted)"):
                kept.append(f"({older} older observations omitted)")
            sections.append("## Recent observations\n" + "\n".join(reversed(kept)))
        return "\n\n".join(sections)

    def distill(self) -> str:
        """A short digest for the end-of-task summary: findings, plan, last observations."""
        parts = (
            [f"Findings: {'; '.join(f.text for f in self.scratchpad)}"] if self.scratchpad else []
        )
        if self.plan:
            parts.append(f"Plan: {'; '.join(self.plan)}")
        if self.observations:
            parts.append(f"Last: {self.observations[-1].text}")
        return "\n".join(parts)
