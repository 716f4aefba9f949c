"""Progressive disclosure: the model starts with a small core set and loads more on demand."""

from __future__ import annotations

from typing import Annotated

from codekeep.tools.context import ToolContext
from codekeep.tools.registry import CATEGORY_DESCRIPTIONS, ToolRegistry
from codekeep.tools.result import ToolError, ToolOutput
from codekeep.tools.spec import Param, ToolSpec, tool


def disclosure_tools(registry: ToolRegistry) -> list[ToolSpec]:
    """``list_tool_categories``, ``load_tools`` and ``search_tools`` bound to ``registry``."""

    @tool(category="meta", read_only=True, cacheable=False)
    async def list_tool_categories(ctx: ToolContext) -> ToolOutput:
        """List the categories of tools you can load, with the tools in each and whether
        they are loaded. Call load_tools(category) to get the ones you need."""
        visible = ctx.capability.core | ctx.state.loaded
        grouped = registry.categories(ctx.capability)
        rows = []
        for category, names in sorted(grouped.items()):
            loaded = [n for n in names if n in visible]
            rows.append(
                {
                    "category": category,
                    "description": CATEGORY_DESCRIPTIONS.get(category, ""),
                    "tools": names,
                    "loaded": loaded,
                }
            )
        text = "\n".join(
            f"{r['category']}: {r['description']} tools: "
            + ", ".join(f"{n}{'*' if n in r['loaded'] else ''}" for n in r["tools"])
            for r in rows
        )
        return ToolOutput(data={"categories": rows}, text=text + "\n(* = already loaded)")

    @tool(category="meta", read_only=True, cacheable=False)
    async def load_tools(
        ctx: ToolContext,
        category: Annotated[
            str, Param("Category name from list_tool_categories, e.g. 'code_map'.")
        ],
    ) -> ToolOutput:
        """Load every tool of one category so you can call it from the next turn on."""
        grouped = registry.categories(ctx.capability)
        if category not in grouped:
            raise ToolError(
                f"unknown category {category!r}; "
                f"categories you can load: {', '.join(sorted(grouped))}",
                rule="disclosure",
            )
        return _load(ctx, registry, grouped[category])

    @tool(category="meta", read_only=True, cacheable=False)
    async def search_tools(
        ctx: ToolContext,
        query: Annotated[
            str, Param("What you want to do, in a few words, e.g. 'who calls a function'.")
        ],
        limit: Annotated[
            int, Param("Most tools to load.", schema={"minimum": 1, "maximum": 10})
        ] = 3,
    ) -> ToolOutput:
        """Find tools by what they do and load the best matches for the next turn."""
        found = registry.search(ctx.capability, query, limit)
        if not found:
            raise ToolError(
                f"no tool matches {query!r}; call list_tool_categories to browse", rule="disclosure"
            )
        return _load(ctx, registry, [spec.name for spec in found])

    return [list_tool_categories, load_tools, search_tools]


def _load(ctx: ToolContext, registry: ToolRegistry, names: list[str]) -> ToolOutput:
    newly = [n for n in names if n not in ctx.state.loaded and n not in ctx.capability.core]
    ctx.state.loaded.update(names)
    described = []
    for name in names:
        spec = registry.get(name)
        if spec is not None:
            described.append({"name": name, "description": spec.description})
    text = "Loaded (callable from your next turn): " + "; ".join(
        f"{d['name']} — {d['description'][:120]}" for d in described
    )
    return ToolOutput(data={"loaded": names, "new": newly, "tools": described}, text=text)
