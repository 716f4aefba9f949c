"""search_docs: the project's documentation, by question, as the developer reads it.

Answers "how do we deploy", "what does the ADR say about retries" from the docs the
knowledge base indexed (Markdown, reST, AsciiDoc, text): the best sections with their
heading path and 1-based line span, so the model can ``read_file`` around one.
"""

from __future__ import annotations

from typing import Annotated

from codekeep.docs import DocsError
from codekeep.tools.context import ToolContext
from codekeep.tools.result import ToolError, ToolOutput
from codekeep.tools.spec import Param, tool

PREVIEW_CHARS = 600


@tool(category="docs", read_only=True, compression="text")
async def search_docs(
    ctx: ToolContext,
    query: Annotated[str, Param("The question, in words (e.g. 'how is caching configured').")],
    limit: Annotated[
        int, Param("Most sections to return.", schema={"minimum": 1, "maximum": 20})
    ] = 5,
    focus: Annotated[
        list[str], Param("Files you are working on; docs naming their symbols rank higher.")
    ] = [],  # noqa: B006
) -> ToolOutput:
    """Search the project's documentation (README, docs/, ADRs ...) for the sections that
    answer a question; each result has file, heading path and line span."""
    for path in focus:
        ctx.guard.check(path, "read")
    docs = ctx.require_docs()
    # With the door's model: multi-query rewrites (searched by words) and a HyDE passage
    # (ranked by meaning), asked at once and billed to this task; failures only noted.
    queries, passages, errors = (await ctx.expand_docs(query) if ctx.expand_docs is not None
                                 and query.strip() else ([], [], []))
    try:
        outcome = docs.search(query, limit, codemap=ctx.codemap, focus=focus,
                              expansions=queries, passages=passages)
    except DocsError as error:
        raise ToolError(str(error), rule="arguments") from None
    data = outcome.to_json()
    if queries or passages:
        data["expansions"] = [*queries, *passages]
    if errors:
        data["expansionError"] = "; ".join(errors)
    if not outcome.hits:
        return ToolOutput(data=data, text=outcome.reason, query=query)
    lines = []
    for hit in outcome.hits:
        lines.append(f"{hit.path}:{hit.start_line}-{hit.end_line}  {hit.heading}")
        text = hit.text.strip()
        preview = text[:PREVIEW_CHARS] + (" …" if len(text) > PREVIEW_CHARS else "")
        lines += ["  " + line for line in preview.splitlines()]
    return ToolOutput(
        data=data,
        text="\n".join(lines),
        files=list(dict.fromkeys(hit.path for hit in outcome.hits)),
        query=query,
    )
