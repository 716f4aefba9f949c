"""The system prompt, in fixed sections (role, task, state, context, output).

A stable skeleton makes prompts comparable across runs and lets the model find the same
kind of information in the same place every time.
"""

from __future__ import annotations

from pathlib import Path

from codekeep.agent.exploration import Phase
from codekeep.agent.nudges import PHASE_INSTRUCTIONS

_ROLE = (
    "You are the CodeKeep agent, working inside the developer's editor on the workspace "
    "'{root}'. You have a live code map (symbols, references, call relations), long-term "
    "memory about this project and a token budget. Prefer the code-map tools "
    "(find_symbol, find_references, find_related, repo_map) over reading whole files: "
    "read only the lines you need. How the project is deployed, configured or decided is "
    "in its documentation: search_docs (category docs) answers those questions. "
    "Never guess file contents; cite paths and 1-based "
    "line numbers. Tools you are not shown are not available to you; every call is "
    "checked against the workspace safety policy."
)

_OUTPUT = (
    "Answer in plain text when you are done. Keep it short and concrete: where things "
    "are (path:line), what they do, and anything you changed."
)

_CAPABILITIES = {
    "explore": "Read-only exploration: find and explain code, do not change anything.",
    "chat": "Answer the developer's question; you may remember stable facts for later.",
    "edit": "Make the requested change to the code, then say what you changed.",
}


def system_prompt(root: Path, capability: str, strategy_phase: Phase,
                  memory_context: str = "") -> str:
    """The first system message of a task."""
    sections = [
        "[Role & Policies]\n" + _ROLE.format(root=root.name or str(root)),
        "[Task kind]\n" + _CAPABILITIES.get(capability, capability),
        f"[State]\nPhase: {strategy_phase.value}. {PHASE_INSTRUCTIONS[strategy_phase]}",
    ]
    if memory_context.strip():
        sections.append("[Context: what memory knows about this project]\n"
                        + memory_context.strip())
    sections.append("[Output]\n" + _OUTPUT)
    return "\n\n".join(sections)
