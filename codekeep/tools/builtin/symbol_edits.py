"""Symbol edit tools: change one definition without sending the whole file.

Each tool names a symbol (an id from find_symbol, or ``Container.name``), checks the
symbol's file with the path guard as a write, and answers with the unified diff it made.
The code map does the locating, the stale-file and parse checks and the atomic write
(``codekeep.analysis.symbol_edits``); here they become refusals the model can act on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Annotated

from codekeep.analysis import rename
from codekeep.analysis import symbol_edits as in_file
from codekeep.analysis.symbol_edits import SymbolEdit, SymbolEditError
from codekeep.tools.context import ToolContext
from codekeep.tools.result import ToolError, ToolOutput
from codekeep.tools.spec import Param, tool

SYMBOL_HELP = "Symbol id from find_symbol (path::Container.name), or Container.name."
DIFF_CHARS = 3_000


async def _edit(ctx: ToolContext, symbol: str, run: Callable[[], SymbolEdit]) -> ToolOutput:
    codemap = ctx.require_codemap()
    try:
        target = await asyncio.to_thread(in_file.locate, codemap, symbol)
        ctx.guard.check(target.path, "write")
        edit = await asyncio.to_thread(run)
    except SymbolEditError as exc:
        raise ToolError(str(exc), rule=exc.rule) from None
    summary = f"updated {edit.path} ({edit.symbol_id}): +{edit.added} -{edit.removed} lines"
    shown = edit.diff if len(edit.diff) <= DIFF_CHARS else (
        edit.diff[:DIFF_CHARS] + f"\n… {len(edit.diff) - DIFF_CHARS} more diff characters omitted")
    return ToolOutput(
        data={"path": edit.path, "symbol": edit.symbol_id, "added": edit.added,
              "removed": edit.removed, "diff": edit.diff},
        text=f"{summary}\n{shown}",
        files=[edit.path],
    )


@tool(category="symbol_edits", read_only=False, writes=True, destructive=True,
      edits_files=True, compression="text")
async def replace_symbol_body(
    ctx: ToolContext,
    symbol: Annotated[str, Param(SYMBOL_HELP)],
    body: Annotated[str, Param("The symbol's complete new definition, from its first line "
                               "(def/class/function ...) to its last; indentation is fixed up.")],
) -> ToolOutput:
    """Replace one symbol's whole definition (signature and body) without rewriting the
    file. Refused if the file changed since it was indexed or would no longer parse.
    Returns the unified diff."""
    return await _edit(ctx, symbol, lambda: in_file.replace_symbol_body(
        ctx.require_codemap(), symbol, body))


@tool(category="symbol_edits", read_only=False, writes=True, destructive=True,
      edits_files=True, compression="text")
async def insert_before_symbol(
    ctx: ToolContext,
    symbol: Annotated[str, Param(SYMBOL_HELP)],
    text: Annotated[str, Param("Lines to insert just before the symbol, at its indentation.")],
) -> ToolOutput:
    """Insert code (a new function, an import, a decorator-free helper) just before a
    symbol's first line. Returns the unified diff."""
    return await _edit(ctx, symbol, lambda: in_file.insert_beside_symbol(
        ctx.require_codemap(), symbol, text, "before"))


@tool(category="symbol_edits", read_only=False, writes=True, destructive=True,
      edits_files=True, compression="text")
async def insert_after_symbol(
    ctx: ToolContext,
    symbol: Annotated[str, Param(SYMBOL_HELP)],
    text: Annotated[str, Param("Lines to insert just after the symbol, at its indentation.")],
) -> ToolOutput:
    """Insert code (a new method after a method, a new function after a function) just
    after a symbol's last line. Returns the unified diff."""
    return await _edit(ctx, symbol, lambda: in_file.insert_beside_symbol(
        ctx.require_codemap(), symbol, text, "after"))


@tool(category="symbol_edits", read_only=False, writes=True, destructive=True,
      edits_files=True, compression="text")
async def delete_symbol(
    ctx: ToolContext,
    symbol: Annotated[str, Param(SYMBOL_HELP)],
    force: Annotated[bool, Param("Delete even though resolved uses remain elsewhere.")] = False,
) -> ToolOutput:
    """Delete a symbol's definition. Refused while resolved uses of it remain outside its
    own body (they would break), unless force. Returns the unified diff."""
    return await _edit(ctx, symbol, lambda: in_file.delete_symbol(
        ctx.require_codemap(), symbol, force=force))


@tool(category="symbol_edits", read_only=False, writes=True, destructive=True,
      edits_files=True, compression="text")
async def rename_symbol(
    ctx: ToolContext,
    symbol: Annotated[str, Param(SYMBOL_HELP)],
    new_name: Annotated[str, Param("The new name (an identifier).")],
    dry_run: Annotated[bool, Param("Only show the edit; change nothing.")] = False,
) -> ToolOutput:
    """Rename a symbol across files: its definition, resolved uses, imports, re-exports
    and __all__ entries. Name-only matches are listed for you to check, never changed. A
    name already defined in the same scope is refused. Returns the unified diff."""
    codemap = ctx.require_codemap()
    try:
        plan = await asyncio.to_thread(rename.plan_rename, codemap, symbol, new_name)
        for path in plan.new_text:
            ctx.guard.check(path, "write")
        if not dry_run:
            await asyncio.to_thread(rename.apply_rename, codemap, plan)
    except SymbolEditError as exc:
        raise ToolError(str(exc), rule=exc.rule) from None
    data = plan.to_json(written=not dry_run)
    verb = "would change" if dry_run else "changed"
    lines = [f"{verb} {len(plan.sites)} places in {len(plan.new_text)} files "
             f"({plan.symbol.id} -> {new_name})"]
    lines += [f"not changed (name match, check it): {u['path']}:{u['line']}"
              for u in data["unconfirmed"]]
    diff = data["diff"]
    lines.append(diff if len(diff) <= DIFF_CHARS else
                 diff[:DIFF_CHARS] + f"\n… {len(diff) - DIFF_CHARS} more diff characters omitted")
    return ToolOutput(data=data, text="\n".join(lines), files=sorted(plan.new_text))
