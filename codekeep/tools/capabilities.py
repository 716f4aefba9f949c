"""Capability presets: which tools a kind of task may use, and which are shown up front.

``tools`` is the allow list (enforced by the pipeline's allow-list gate); ``core`` is
the small set whose schemas are always sent. Everything else allowed is disclosed on
demand through ``list_tool_categories`` / ``load_tools`` / ``search_tools``, so the
model never receives every schema at once.
"""

from __future__ import annotations

from dataclasses import dataclass

DISCLOSURE_TOOLS = frozenset({"list_tool_categories", "load_tools", "search_tools"})

_CODE_MAP = frozenset(
    {"find_symbol", "find_references", "find_related", "search_symbols", "repo_map", "impact"}
)
_READ_FILES = frozenset({"read_file", "search_code", "list_files", "search_docs"})
_EXPLORE = _CODE_MAP | _READ_FILES | {"recall", "note_finding"} | DISCLOSURE_TOOLS
_CHAT = _EXPLORE | {"remember", "forget", "not_this", "ledger_report", "forge_tool"}
SYMBOL_EDITS = frozenset(
    {"replace_symbol_body", "insert_before_symbol", "insert_after_symbol", "delete_symbol",
     "rename_symbol"}
)
_EDIT = _CHAT | {"write_file", "run_command"} | SYMBOL_EDITS


@dataclass(frozen=True, slots=True)
class Capability:
    name: str
    description: str
    tools: frozenset[str]
    core: frozenset[str]

    def allows(self, tool_name: str, forged_from: frozenset[str] | None = None) -> bool:
        """A forged tool is allowed when every tool it is built from is allowed."""
        if forged_from is not None:
            return bool(forged_from) and forged_from <= self.tools
        return tool_name in self.tools


PRESETS: dict[str, Capability] = {
    "explore": Capability(
        "explore",
        "Read-only: code map, memory recall, reading and searching files.",
        frozenset(_EXPLORE),
        frozenset({"search_code", "read_file", "find_symbol", "recall"}) | DISCLOSURE_TOOLS,
    ),
    "chat": Capability(
        "chat",
        "Answer questions about the code; may remember and forget facts.",
        frozenset(_CHAT),
        frozenset({"search_code", "read_file", "find_symbol", "recall", "remember"})
        | DISCLOSURE_TOOLS,
    ),
    "edit": Capability(
        "edit",
        "Change the code: everything in chat plus write_file and run_command.",
        frozenset(_EDIT),
        frozenset({"search_code", "read_file", "find_symbol", "write_file", "run_command"})
        | DISCLOSURE_TOOLS,
    ),
}


class UnknownCapabilityError(ValueError):
    pass


def capability(name: str) -> Capability:
    try:
        return PRESETS[name]
    except KeyError:
        raise UnknownCapabilityError(
            f"unknown capability {name!r}; choose one of {sorted(PRESETS)}"
        ) from None
