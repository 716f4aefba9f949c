"""search_code: a regular expression over the workspace's files, grouped per file."""

from __future__ import annotations

import asyncio
import fnmatch
import os
import re
from typing import Annotated, Any

from codekeep.tools.builtin.walking import is_binary, workspace_files
from codekeep.tools.context import ToolContext
from codekeep.tools.result import ToolError, ToolOutput
from codekeep.tools.spec import Param, tool

MAX_LINE_CHARS = 300


@tool(category="files", read_only=True, compression="search")
async def search_code(
    ctx: ToolContext,
    pattern: Annotated[
        str, Param("Regular expression (Python syntax) or, with regex=false, plain text.")
    ],
    path: Annotated[
        str, Param("Directory or file to search, relative to the workspace root.", path="read")
    ] = ".",
    glob: Annotated[
        str | None, Param("Only files whose name or path matches this glob, e.g. '*.py'.")
    ] = None,
    literal: Annotated[
        bool, Param("Treat pattern as plain text, not a regular expression.")
    ] = False,
    case_sensitive: Annotated[bool, Param("Match case exactly.")] = False,
) -> ToolOutput:
    """Search file contents in the workspace (ignored files skipped). Results are grouped
    per file with match counts and the most telling lines."""
    try:
        compiled = re.compile(
            re.escape(pattern) if literal else pattern, 0 if case_sensitive else re.IGNORECASE
        )
    except re.error as exc:
        raise ToolError(
            f"invalid regular expression {pattern!r}: {exc}; "
            "escape special characters or pass literal=true",
            rule="arguments",
        ) from None
    data = await asyncio.to_thread(_search, ctx, compiled, path, glob)
    data["pattern"] = pattern
    return ToolOutput(data=data, files=[f["path"] for f in data["files"]], query=pattern)


def _search(
    ctx: ToolContext, compiled: re.Pattern[str], path: str, glob: str | None
) -> dict[str, Any]:
    settings = ctx.settings
    real = ctx.guard.check(path, "read")
    candidates = (
        [(path, real.stat().st_size)] if real.is_file() else workspace_files(ctx.root, path)
    )
    files: list[dict[str, Any]] = []
    total = 0
    searched = 0
    truncated = False
    for rel, size in candidates:
        if glob and not (
            fnmatch.fnmatch(rel, glob) or fnmatch.fnmatch(os.path.basename(rel), glob)
        ):
            continue
        if size > settings.search_max_file_bytes:
            continue
        file_path = ctx.root / rel
        try:
            if is_binary(file_path):
                continue
            text = file_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        searched += 1
        matches: list[dict[str, Any]] = []
        count = 0
        for number, line in enumerate(text.splitlines(), start=1):
            if compiled.search(line):
                count += 1
                if len(matches) < 50:
                    matches.append({"line": number, "text": line[:MAX_LINE_CHARS]})
        if count:
            files.append({"path": rel, "count": count, "matches": matches})
            total += count
            if total >= settings.search_max_matches:
                truncated = True
                break
    return {
        "files": files,
        "total_matches": total,
        "files_searched": searched,
        "truncated": truncated,
    }
