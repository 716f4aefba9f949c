"""Registry tools and pipeline results in MCP's shapes.

A tool is listed under its registry name with the registry's description and JSON
Schema; its annotations come from the registry's flags (``read_only`` ->
``readOnlyHint``, ``destructive`` -> ``destructiveHint``). A result carries the
pipeline's bounded text (what a model reads, cuts stated in it) and the same answer as
structured content; structured data that would exceed the answer bound is left out, and
the result says so, so no answer is ever larger than ``--max-answer-chars`` twice over.
"""

from __future__ import annotations

from typing import Any

import mcp.types as types

from codekeep.tools import ToolResult, ToolSpec
from codekeep.tools.result import dumps

# Every tool answers with the same envelope; ``data`` is the tool's own JSON.
RESULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tool": {"type": "string"},
        "ok": {"type": "boolean"},
        "outcome": {"enum": ["ok", "cached", "refused", "error"]},
        "data": {"description": "The tool's structured answer (absent when cut or failed)."},
        "dropped": {
            "type": ["string", "null"],
            "description": "What was cut to keep the answer bounded.",
        },
        "rule": {"type": ["string", "null"], "description": "The rule that refused or failed."},
        "reason": {"type": ["string", "null"], "description": "Why it was refused or failed."},
    },
    "required": ["tool", "ok", "outcome"],
}


def mcp_tool(spec: ToolSpec) -> types.Tool:
    title = spec.name.replace("_", " ").capitalize()
    return types.Tool(
        name=spec.name,
        title=title,
        description=spec.description,
        input_schema=spec.parameters,
        output_schema=RESULT_SCHEMA,
        annotations=types.ToolAnnotations(
            title=title,
            read_only_hint=spec.read_only,
            destructive_hint=spec.destructive,
            idempotent_hint=True if spec.read_only else None,
            open_world_hint=spec.command_param is not None,
        ),
    )


def call_result(result: ToolResult, answer_chars: int) -> types.CallToolResult:
    """The pipeline's answer as an MCP result; refusals and failures are ``isError``."""
    structured: dict[str, Any] = {
        "tool": result.tool,
        "ok": result.ok,
        "outcome": result.outcome,
        "dropped": result.dropped,
        "rule": result.rule,
        "reason": result.refused or result.error,
    }
    if result.data is not None:
        size = len(dumps(result.data))
        if size <= answer_chars:
            structured["data"] = result.data
        else:
            cut = f"structured data ({size:,} characters) is over the bound; the text has it"
            structured["dropped"] = f"{result.dropped} {cut}" if result.dropped else cut
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=result.content)],
        structured_content=structured,
        is_error=not result.ok,
    )
