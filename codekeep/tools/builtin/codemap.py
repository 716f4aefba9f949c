"""Code map tools: symbols, references, related code and the repository map.

Lines are 1-based in everything the model sees (as editors and compilers print them);
the code map itself counts from 0.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, Literal

from codekeep.analysis.errors import CodeMapError
from codekeep.tools.context import ToolContext
from codekeep.tools.result import ToolError, ToolOutput
from codekeep.tools.spec import Param, tool

if TYPE_CHECKING:
    from codekeep.analysis.model import Symbol

SymbolKind = Literal[
    "function", "method", "class", "interface", "struct", "enum", "trait", "type",
    "constant", "variable", "module", "namespace", "macro", "field",
]  # fmt: skip
MAX_REPO_MAP_TOKENS = 8_000


def symbol_json(symbol: Symbol, score: float | None = None) -> dict[str, Any]:
    """The compact symbol shape tools return: id, kind, signature, location (1-based line)."""
    entry: dict[str, Any] = {
        "id": symbol.id,
        "name": symbol.name,
        "kind": symbol.kind,
        "signature": symbol.signature,
        "path": symbol.path,
        "line": symbol.selection_range.start.line + 1,
    }
    if score is not None:
        entry["score"] = score
    return entry


def _paths(symbols: Iterable[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(s["path"] for s in symbols))


@tool(category="code_map", read_only=True, compression="symbols")
async def find_symbol(
    ctx: ToolContext,
    name: Annotated[str, Param("Exact symbol name, or Container.name (e.g. 'Greeter.greet').")],
    kind: Annotated[SymbolKind | None, Param("Only symbols of this kind.")] = None,
    limit: Annotated[
        int, Param("Most symbols to return.", schema={"minimum": 1, "maximum": 200})
    ] = 20,
) -> ToolOutput:
    """Find where a symbol (function, class, method ...) is defined, by name; a
    Container.name the class inherits is found in the base that defines it."""
    found, heirs = ctx.require_codemap().find_defined_or_inherited(name, kind)
    symbols = [{**symbol_json(s), **({"inheritedBy": heirs[s.id]} if s.id in heirs else {})}
               for s in found[:limit]]
    return ToolOutput(
        data={"symbols": symbols, "total": len(found)}, files=_paths(symbols), query=name
    )


@tool(category="code_map", read_only=True, compression="references")
async def find_references(
    ctx: ToolContext,
    name: Annotated[str | None, Param("Symbol name whose uses to find.")] = None,
    symbol_id: Annotated[
        str | None, Param("Exact symbol id from find_symbol (more precise than name).")
    ] = None,
    limit: Annotated[
        int, Param("Most references to return.", schema={"minimum": 1, "maximum": 1000})
    ] = 100,
    offset: Annotated[
        int, Param("Uses to pass over first: the next page starts at the previous "
                   "offset + limit.", schema={"minimum": 0})
    ] = 0,
) -> ToolOutput:
    """Find the uses of a symbol: resolved references first, then name-only matches."""
    if not name and not symbol_id:
        raise ToolError("pass name or symbol_id", rule="arguments")
    codemap = ctx.require_codemap()
    refs, total = codemap.find_references(symbol_id=symbol_id, name=name, limit=limit,
                                          offset=offset)
    lines_of: dict[str, list[str]] = {}
    grouped: dict[str, list[dict[str, Any]]] = {}
    for ref in refs:
        if ref.path not in lines_of:
            raw = codemap.document_text(ref.path) or b""
            lines_of[ref.path] = raw.decode("utf-8", errors="replace").splitlines()
        number = ref.range.start.line
        lines = lines_of[ref.path]
        text = lines[number] if number < len(lines) else ""
        marker = "" if ref.confidence == "resolved" else "(name match) "
        grouped.setdefault(ref.path, []).append({"line": number + 1, "text": marker + text})
    files = [{"path": p, "count": len(m), "matches": m} for p, m in grouped.items()]
    data = {
        "target": symbol_id or name,
        "argument": "symbol_id" if symbol_id else "name",
        "files": files,
        "total": total,
        "offset": offset,
        "shown": len(refs),
    }
    return ToolOutput(data=data, files=list(grouped), query=symbol_id or name)


@contextmanager
def _as_tool_error() -> Iterator[None]:
    """The code map's refusals (unknown path, line past the end) as errors the model can
    act on, instead of a handler crash."""
    try:
        yield
    except CodeMapError as exc:
        raise ToolError(f"{exc}; check the path with list_files", rule="not_indexed") from None


@tool(category="code_map", read_only=True, compression="text")
async def find_related(
    ctx: ToolContext,
    path: Annotated[str, Param("File path relative to the workspace root.", path="read")],
    line: Annotated[int, Param("Line number (1-based).", schema={"minimum": 1})],
) -> ToolOutput:
    """What surrounds a line of code: its enclosing symbol, what it calls, what calls
    it, closely related symbols, and the doc sections that document it."""
    with _as_tool_error():
        related = ctx.require_codemap().find_related(path, line - 1)
    links = ctx.docs.links(related.symbol) if ctx.docs and related.symbol else []
    documented = [{"path": link.path, "heading": link.heading, "line": link.start_line}
                  for link in links]
    groups = {
        "calls": [symbol_json(s) for s in related.calls],
        "called_by": [symbol_json(s) for s in related.called_by],
        "related": [symbol_json(s) for s in related.related],
    }
    symbol = symbol_json(related.symbol) if related.symbol else None
    lines = [
        f"{path}:{line} is in "
        + (f"{symbol['kind']} {symbol['id']} {symbol['signature']}" if symbol else "no symbol")
    ]
    for title, entries in groups.items():
        if entries:
            lines.append(f"{title}:")
            lines += [f"  {e['kind']} {e['id']}  {e['path']}:{e['line']}" for e in entries]
    if links:
        lines.append("documented in:")
        lines += [f"  {link.label()}  {link.path}:{link.start_line}" for link in links]
    everything = [e for entries in groups.values() for e in entries] + ([symbol] if symbol else [])
    return ToolOutput(
        data={"symbol": symbol, **groups, "documented_in": documented},
        text="\n".join(lines),
        files=_paths(everything),
        query=f"{path}:{line}",
    )


@tool(category="code_map", read_only=True, compression="symbols")
async def search_symbols(
    ctx: ToolContext,
    query: Annotated[
        str, Param("Part of a name or an abbreviation, e.g. 'usrsvc' or 'parse conf'.")
    ],
    limit: Annotated[
        int, Param("Most symbols to return.", schema={"minimum": 1, "maximum": 200})
    ] = 20,
) -> ToolOutput:
    """Fuzzy search over all symbol names, best matches first (with a score)."""
    found = ctx.require_codemap().search_symbols(query, limit)
    symbols = [symbol_json(s, score) for s, score in found]
    return ToolOutput(
        data={"symbols": symbols, "total": len(symbols)}, files=_paths(symbols), query=query
    )


@tool(category="code_map", read_only=True, compression="text")
async def repo_map(
    ctx: ToolContext,
    token_budget: Annotated[
        int,
        Param("Size of the map in tokens.", schema={"minimum": 64, "maximum": MAX_REPO_MAP_TOKENS}),
    ] = 1024,
    focus: Annotated[list[str], Param("Files to centre the map on (relative paths).")] = [],  # noqa: B006
) -> ToolOutput:
    """A ranked map of the repository: the most important files and their key symbols,
    within a token budget. Good first call to orient yourself."""
    for path in focus:
        ctx.guard.check(path, "read")
    with _as_tool_error():
        result = ctx.require_codemap().repo_map(token_budget, focus)
    return ToolOutput(
        data=result.to_json(),
        text=result.text or "(the code map is empty: nothing indexed yet)",
        query=f"{token_budget}|{','.join(sorted(focus))}",
    )


@tool(category="code_map", read_only=True, compression="text", cacheable=False)
async def impact(
    ctx: ToolContext,
    rev_range: Annotated[
        str | None,
        Param("Git revisions 'A..B', or 'A' against the working tree; omit for HEAD "
              "against the working tree."),
    ] = None,
    staged: Annotated[bool, Param("What is staged, against HEAD.")] = False,
    worktree: Annotated[bool, Param("What is not staged yet (working tree vs index).")] = False,
    depth: Annotated[int, Param("Caller levels to follow.",
                                schema={"minimum": 0, "maximum": 10})] = 3,
) -> ToolOutput:
    """What a diff changes: the symbols it adds, changes or removes, their callers and
    type users (with the chain to each), the tests that reach them, and a risk class
    (public API, many callers, no tests). Run it before committing to know which tests
    to run."""
    from codekeep.analysis.impact import DiffSides, ImpactError
    from codekeep.analysis.impact import impact as diff_impact

    if sum(map(bool, (rev_range, staged, worktree))) > 1:
        raise ToolError("give one of rev_range, staged, worktree", rule="arguments")
    if rev_range is not None and rev_range.startswith("-"):
        raise ToolError("a revision range never starts with '-'", rule="arguments")
    sides = DiffSides.of(rev_range, staged=staged, worktree=worktree)
    try:
        answer = await asyncio.to_thread(diff_impact, ctx.require_codemap(), sides, depth)
    except ImpactError as exc:
        raise ToolError(str(exc), rule="git") from None
    lines = [f"{answer.base} -> {answer.head}: {len(answer.files)} files, "
             f"{len(answer.symbols)} definitions"]
    for item in answer.symbols:
        risk = f" [{', '.join(item.risk)}]" if item.risk else ""
        lines.append(f"{item.change} {item.kind} {item.id}:{item.line + 1}{risk}")
        lines += [f"  {'  ' * (c.depth - 1)}<- {c.id}:{c.line + 1}"
                  + (" (name match)" if c.confidence == "name" else "") for c in item.callers]
        if item.test_files:
            lines.append(f"  tests: {', '.join(item.test_files)}")
    return ToolOutput(data=answer.to_json(), text="\n".join(lines),
                      files=sorted({s.path for s in answer.symbols}))
