"""Memory tools: long-term remember/recall/forget and the task's scratchpad."""

from __future__ import annotations

import copy
from typing import Annotated

from codekeep.memory.model import (
    DEFAULT_IMPORTANCE,
    DEFAULT_KIND,
    DEFAULT_SCOPE,
    IMPORTANCE_MAX,
    IMPORTANCE_MIN,
    RECALL_LIMIT,
    MemoryInputError,
    WritableKind,
    WritableScope,
)
from codekeep.memory.safety import reads_as_order
from codekeep.tools.context import ToolContext
from codekeep.tools.result import ToolError, ToolOutput
from codekeep.tools.spec import Param, ToolSpec, tool

SCOPE_DOC = (
    "Where to keep it: project (this repository, the default), user (follows the "
    "developer to every project) or team (shared with the whole team)."
)
NO_TEAM_DOC = (
    "Where to keep it: project (this repository, the default) or user (follows the "
    "developer to every project). team is not available: no team database is configured "
    "(CODEKEEP_TEAM_DSN, codekeep.team.dsn or [team] dsn)."
)
EVIDENCE_ITEM = {
    "type": "object",
    "properties": {"file": {"type": "string", "description": (
                       "Workspace file path; leave it out when quoting the user's own "
                       "words in this task.")},
                   "quote": {"type": "string", "description": "Exact text from there."}},
    "required": ["quote"],
    "additionalProperties": False,
}


@tool(category="memory", read_only=False, writes=True, dedup_on=("content",), compression="json")
async def remember(
    ctx: ToolContext,
    content: Annotated[
        str, Param("The fact, decision or preference, as one self-contained sentence.")
    ],
    kind: Annotated[WritableKind, Param("What sort of memory this is.")] = DEFAULT_KIND,
    key: Annotated[
        str | None, Param("Stable key for a value that may change later (e.g. 'test.command').")
    ] = None,
    importance: Annotated[
        int, Param(f"{IMPORTANCE_MIN} (trivia) to {IMPORTANCE_MAX} (critical).",
                   schema={"minimum": IMPORTANCE_MIN, "maximum": IMPORTANCE_MAX})
    ] = DEFAULT_IMPORTANCE,
    files: Annotated[list[str], Param("Workspace files this is about.")] = [],  # noqa: B006
    symbols: Annotated[list[str], Param("Symbol ids this is about (from find_symbol).")] = [],  # noqa: B006
    evidence: Annotated[
        list[dict[str, str]],
        Param(
            "Where it shows: exact quotes from workspace files, or of what the user said "
            "in this task. Without one it is kept only as an observation, not knowledge. "
            "Required for kind 'case' (a problem and its verified resolution).",
            schema={"items": EVIDENCE_ITEM},
        ),
    ] = [],  # noqa: B006
    scope: Annotated[WritableScope, Param(SCOPE_DOC)] = DEFAULT_SCOPE,
) -> ToolOutput:
    """Store something worth knowing in future tasks (project facts, decisions, user
    preferences, cases: a problem and how it was resolved). It becomes knowledge only
    with evidence: a quote found in a workspace file or in the user's own words; a team
    memory also waits for a person's confirmation. Secrets and one-off details are
    rejected."""
    try:
        # An external client (an MCP host) is named on what it writes, so a reader can
        # tell which agent a memory came from; our own agent's carry its task id.
        written = ctx.require_memory().remember_asserted(
            content, kind=kind, key=key, importance=importance, files=files, symbols=symbols,
            task_id=ctx.task_id, evidence=evidence, scope=scope, client=ctx.client,
        )  # fmt: skip
    except MemoryInputError as exc:
        raise ToolError(str(exc), rule="memory") from None
    if written.rejected:
        raise ToolError(f"not remembered: {written.reason}", rule="memory.rejected")
    note = f" ({written.reason})" if written.reason else ""
    return ToolOutput(data=written.to_json(), text=f"{written.action} {written.id}{note}")


def remember_for(spec: ToolSpec, team: bool) -> ToolSpec:
    """``remember`` as a client is shown it: ``scope`` offers ``team`` only when a team
    database is configured (else the schema says why it is missing, and a call asking
    for it is refused with that reason)."""
    if team:
        return spec
    narrowed = copy.deepcopy(spec)
    prop = narrowed.parameters["properties"]["scope"]
    prop["enum"] = [s for s in prop["enum"] if s != "team"]
    prop["description"] = NO_TEAM_DOC
    return narrowed


@tool(category="memory", read_only=True, compression="text", embeds="query")
async def recall(
    ctx: ToolContext,
    query: Annotated[str, Param("What you want to know, in a few words.")],
    limit: Annotated[
        int, Param("Most memories to return.", schema={"minimum": 1, "maximum": 50})
    ] = RECALL_LIMIT,
    kinds: Annotated[list[WritableKind] | None, Param("Only these kinds.")] = None,
    files: Annotated[list[str], Param("Prefer memories about these files.")] = [],  # noqa: B006
) -> ToolOutput:
    """Recall what earlier tasks learned about the project, best matches first."""
    try:
        found = ctx.require_memory().recall(query, limit=limit, kinds=kinds, files=files,
                                            embedded=ctx.embedded.pop(query, None))
    except MemoryInputError as exc:
        raise ToolError(str(exc), rule="memory") from None
    # A memory that reads like an order to the model ("ignore previous instructions",
    # "always run ...") is withheld, as a hook's injection withholds it: the answer
    # lands in the model's context, whoever stored it.
    kept = [r for r in found if reads_as_order(r.memory.content) is None]
    memories = [m.to_json() for m in kept]
    withheld = len(found) - len(kept)
    lines = [f"{len(memories)} memories for {query!r}"
             + (f" ({withheld} withheld: they read like instructions)" if withheld else "")]
    lines += [f"[{m['id']}] {m['kind']} ({m['score']:.2f}): {m['content']}" for m in memories]
    linked = list(dict.fromkeys(f for m in memories for f in m["files"]))
    return ToolOutput(data={"memories": memories, "withheld": withheld}, text="\n".join(lines),
                      files=linked, query=query)


@tool(category="memory", read_only=False, writes=True, dedup_on=("id",), compression="text")
async def forget(
    ctx: ToolContext,
    id: Annotated[str, Param("The memory id, as shown by recall.")],
    reason: Annotated[str | None, Param("Why it is wrong or obsolete.")] = None,
) -> ToolOutput:
    """Disable a memory that is wrong or obsolete (kept for audit, never recalled again)."""
    if not ctx.require_memory().forget(id, reason):
        raise _no_such_memory(id)
    return ToolOutput(data={"id": id, "forgotten": True}, text=f"forgot {id}")


@tool(category="memory", read_only=False, writes=True, dedup_on=("id",), compression="text")
async def not_this(
    ctx: ToolContext,
    id: Annotated[str, Param("The memory id, as shown by recall.")],
    reason: Annotated[str | None, Param("Why it did not apply here.")] = None,
) -> ToolOutput:
    """Say a recalled memory did not help: it ranks lower from now on (score halved) and is
    flagged 'not-this'; nothing is deleted."""
    if not ctx.require_memory().not_this(id, reason):
        raise _no_such_memory(id)
    return ToolOutput(data={"id": id, "notThis": True}, text=f"marked {id} as not this")


@tool(category="memory", read_only=False, writes=True, dedup_on=("finding",), compression="text")
async def note_finding(
    ctx: ToolContext,
    finding: Annotated[str, Param("What you found out, in one or two sentences.")],
    evidence: Annotated[str | None, Param("Where it shows, e.g. 'src/app.py:12'.")] = None,
) -> ToolOutput:
    """Write a finding to this task's scratchpad; it stays in your context for the whole
    task and feeds the task summary."""
    working = ctx.require_memory().working_memory(ctx.task_id)
    working.note(finding, evidence)
    return ToolOutput(
        data={"findings": len(working.scratchpad)},
        text=f"noted ({len(working.scratchpad)} findings)",
    )


def _no_such_memory(memory_id: str) -> ToolError:
    return ToolError(
        f"there is no memory with id {memory_id!r}; use recall to find ids", rule="not_found"
    )
