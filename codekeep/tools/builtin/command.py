"""run_command: a policy-checked command in the workspace."""

from __future__ import annotations

from typing import Annotated

from codekeep.tools.context import ToolContext
from codekeep.tools.process import run_plan
from codekeep.tools.result import ToolOutput
from codekeep.tools.spec import Param, tool


@tool(category="system", read_only=False, destructive=True, compression="text")
async def run_command(
    ctx: ToolContext,
    command: Annotated[
        str, Param("The command line, e.g. 'pytest -q tests/test_x.py'.", command=True)
    ],
    timeout: Annotated[
        float | None,
        Param(
            "Seconds before the command is killed (default from settings).", schema={"minimum": 1}
        ),
    ] = None,
) -> ToolOutput:
    """Run a command in the workspace root (tests, linters, git queries). Commands are
    checked against the command policy; no shell unless the policy allows one, so run
    one command per call. Output is capped (head and tail kept)."""
    plan = ctx.command_policy().check(
        command
    )  # checked again here: the handler never trusts its caller
    limit = min(timeout or ctx.settings.command_timeout, ctx.settings.command_timeout * 5)
    outcome = await run_plan(plan, ctx.root, limit, ctx.settings.output_cap,
                             allow_unsandboxed=ctx.settings.allow_unsandboxed)
    status = "timed out and was killed" if outcome.timed_out else f"exit {outcome.exit_code}"
    header = f"$ {command}\n{status} after {outcome.duration_s:.1f}s"
    return ToolOutput(
        data={
            "command": command,
            "exit_code": outcome.exit_code,
            "timed_out": outcome.timed_out,
            "output": outcome.output,
            "truncated": outcome.truncated,
        },
        text=f"{header}\n{outcome.output}".rstrip(),
    )
