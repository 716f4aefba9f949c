"""The system prompt, in fixed sections (role, task, state, context, output).

A stable skeleton makes prompts comparable across runs and lets the model find the same
kind of information in the same place every time.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from codekeep.agent.exploration import Phase
from codekeep.agent.nudges import PHASE_INSTRUCTIONS

_ROLE = (
    "You are the CodeKeep agent, working inside the developer's editor on the workspace "
    "'{root}'. You have a live code map (symbols, references, call relations), long-term "
    "memory about this project and a token budget. {prefer}Read only the lines you need. "
    "{docs}Never guess file contents; cite paths and 1-based "
    "line numbers. Tools you are not shown are not available to you; every call is "
    "checked against the workspace safety policy."
)
CODE_MAP_TOOLS = ("find_symbol", "find_references", "find_related", "repo_map")
DOCS_TOOL = "search_docs"

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
                  memory_context: str = "", tools: Collection[str] = ()) -> str:
    """The first system message of a task; it names only the ``tools`` the model is
    shown (small models call a tool a prompt names even when it is not offered)."""
    code_map = [name for name in CODE_MAP_TOOLS if name in tools]
    prefer = (f"Prefer the code-map tools ({', '.join(code_map)}) over reading whole files. "
              if code_map else "")
    docs = ("How the project is deployed, configured or decided is in its documentation: "
            f"{DOCS_TOOL} answers those questions. " if DOCS_TOOL in tools else "")
    sections = [
        "[Role & Policies]\n" + _ROLE.format(root=root.name or str(root), prefer=prefer,
                                             docs=docs),
        "[Task kind]\n" + _CAPABILITIES.get(capability, capability),
        f"[State]\nPhase: {strategy_phase.value}. {PHASE_INSTRUCTIONS[strategy_phase]}",
    ]
    if memory_context.strip():
        sections.append("[Context: what memory knows about this project]\n"
                        + memory_context.strip())
    sections.append("[Output]\n" + _OUTPUT)
    return "\n\n".join(sections)


def sent_schemas(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool schemas as sent to the model: only the parts a call needs. A ``$schema``
    URL is for validators; small models copy it into their arguments."""
    return [_without_meta(tool) for tool in tools]


def _without_meta(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _without_meta(item) for key, item in value.items() if key != "$schema"}
    if isinstance(value, list):
        return [_without_meta(item) for item in value]
    return value
