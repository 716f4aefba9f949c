"""The built-in tools. Each module declares its tools with ``@tool``; this collects them."""

from __future__ import annotations

from types import ModuleType

from codekeep.tools.builtin import (
    codemap,
    command,
    docs,
    files,
    ledger,
    memory,
    search,
    symbol_edits,
)
from codekeep.tools.spec import ToolSpec

BUILTIN_MODULES: tuple[ModuleType, ...] = (
    codemap, files, symbol_edits, search, docs, memory, ledger, command
)


def builtin_tools() -> list[ToolSpec]:
    """Every ``ToolSpec`` declared at module level in the built-in modules."""
    return [
        value
        for module in BUILTIN_MODULES
        for value in vars(module).values()
        if isinstance(value, ToolSpec)
    ]
