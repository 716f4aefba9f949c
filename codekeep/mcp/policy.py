"""Which registry tools the door serves, and which a client sees before loading more.

The door serves the registry as it is, so a tool another area registers (``search_docs``
...) appears here without a change. Three things are decided from the tools' own flags:

* tools with a ``write`` path parameter (``write_file``) and the other tools that edit
  files (the symbol edits) only with ``--allow-write``;
* tools with a command parameter (``run_command``) only with ``--allow-commands``;
* tools that only mean something inside our own agent's task loop are left out: the
  forge (temporary tools built for one task; a host composes tools itself) and
  ``note_finding`` (the scratchpad that feeds our agent's end-of-task summary).

The default set is small (progressive disclosure): the code map questions and
memory; everything else is one ``load_tools`` away.
"""

from __future__ import annotations

from codekeep.tools.capabilities import DISCLOSURE_TOOLS, Capability
from codekeep.tools.registry import ToolRegistry
from codekeep.tools.spec import ToolSpec

AGENT_LOOP_CATEGORIES = frozenset({"forge", "forged"})
AGENT_LOOP_TOOLS = frozenset({"note_finding"})
DEFAULT_SET = frozenset(
    {
        "find_symbol",
        "find_references",
        "find_related",
        "search_symbols",
        "repo_map",
        "recall",
        "remember",
    }
)


def served(spec: ToolSpec, *, allow_write: bool, allow_commands: bool) -> bool:
    """Whether the door offers ``spec`` at all under these switches."""
    if spec.category in AGENT_LOOP_CATEGORIES or spec.name in AGENT_LOOP_TOOLS:
        return False
    if ("write" in spec.path_params.values() or spec.edits_files) and not allow_write:
        return False
    return spec.command_param is None or allow_commands


def door_capability(
    registry: ToolRegistry, *, allow_write: bool, allow_commands: bool
) -> Capability:
    """The allow list the pipeline enforces for every MCP client of this process."""
    tools = frozenset(
        spec.name
        for spec in registry.all()
        if served(spec, allow_write=allow_write, allow_commands=allow_commands)
    )
    switched = [name for name, on in (("writes", allow_write), ("commands", allow_commands)) if on]
    return Capability(
        name="mcp",
        description="Code map, memory and ledger for an MCP host"
        + (f" (with {' and '.join(switched)})" if switched else " (read-only files)"),
        tools=tools,
        core=(DEFAULT_SET | DISCLOSURE_TOOLS) & tools,
    )
