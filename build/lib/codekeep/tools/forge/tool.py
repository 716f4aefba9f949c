"""forge_tool: lets the model build a temporary tool out of existing ones."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from codekeep.tools.context import ToolContext
from codekeep.tools.forge.forge import FORGE_TOOL, ForgeError, ForgeTest, Mode, Step, ToolForge
from codekeep.tools.result import ToolError, ToolOutput
from codekeep.tools.spec import Param, ToolSpec, tool

MODE_HELP = (
    "reuse: fix some arguments of one tool; compose: run several tools as one call; "
    "generate: Python code (only when enabled)."
)
STEPS_HELP = (
    'compose: [{"tool": ..., "args": {...}}]; an argument may be "$steps[0].data.symbols[0].path" '
    "(an earlier step's result) or \"$args.<parameter>\" (the new tool's own argument)."
)
PARAMETERS_HELP = "compose/generate: JSON Schema (type object) of the new tool's arguments."
CODE_HELP = "generate: Python source defining tool_handler(args) that returns a JSON value."
TESTS_HELP = 'generate: [{"arguments": {...}, "expected": ...}]; all must pass first.'


def forge_tools(forge: ToolForge) -> list[ToolSpec]:
    @tool(category="forge", read_only=False, name=FORGE_TOOL)
    async def forge_tool(
        ctx: ToolContext,
        name: Annotated[str, Param("snake_case name for the new tool.")],
        description: Annotated[str, Param("What the new tool does, for your later self.")],
        mode: Annotated[Literal["reuse", "compose", "generate"], Param(MODE_HELP)],
        base: Annotated[str | None, Param("reuse: the tool to build on.")] = None,
        preset: Annotated[dict[str, Any], Param("reuse: the arguments to fix.")] = {},  # noqa: B006
        steps: Annotated[list[dict[str, Any]], Param(STEPS_HELP)] = [],  # noqa: B006
        parallel: Annotated[bool, Param("compose: run all steps at once, merge results.")] = False,
        parameters: Annotated[dict[str, Any] | None, Param(PARAMETERS_HELP)] = None,
        code: Annotated[str | None, Param(CODE_HELP)] = None,
        tests: Annotated[list[dict[str, Any]], Param(TESTS_HELP)] = [],  # noqa: B006
    ) -> ToolOutput:
        """Create a temporary tool (expires after 30 minutes) that saves you repeated calls:
        reuse a tool with fixed arguments, or compose several tools into one call."""
        try:
            if mode == "reuse":
                if not base:
                    raise ForgeError("reuse needs base")
                spec = forge.reuse(name, base, preset, description)
            elif mode == "compose":
                parsed = [Step(str(s.get("tool", "")), dict(s.get("args") or {})) for s in steps]
                how: Mode = "parallel" if parallel else "sequential"
                spec = forge.compose(name, description, parsed, how, parameters)
            else:
                if code is None:
                    raise ForgeError("generate needs code")
                cases = [ForgeTest(dict(t.get("arguments") or {}), t.get("expected"))
                         for t in tests]  # fmt: skip
                spec = await forge.generate(name, description, parameters, code, cases)
        except ForgeError as exc:
            raise ToolError(str(exc), rule="forge") from None
        if not forge.registry.allowed(ctx.capability, spec.name):
            forge.registry.unregister(spec.name)
            raise ToolError(
                f"{spec.name} would use tools that the {ctx.capability.name!r} "
                "capability does not allow",
                rule="forge",
            )
        ctx.state.loaded.add(spec.name)
        return ToolOutput(
            data={"name": spec.name, "parameters": spec.parameters},
            text=f"forged {spec.name}; callable from your next turn until it expires",
        )

    return [forge_tool]
