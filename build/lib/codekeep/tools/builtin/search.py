"""search_code: a regular expression over the workspace's files, grouped per file.

Patterns come from a model, so they run under the ``regex`` engine with a time limit:
a catastrophic pattern such as ``(a|aa)+$`` ends the search with a clear note instead
of pinning a CPU for ever.
"""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any

import regex

from codekeep.tools.builtin.walking import is_binary, workspace_files
from codekeep.tools.context import ToolContext
from codekeep.tools.globs import glob_filter
from codekeep.tools.result import ToolError, ToolOutput
from codekeep.tools.spec import Param, tool

MAX_LINE_CHARS = 300
MATCHES_KEPT_PER_FILE = 50


@tool(category="files", read_only=True, compression="search")
async def search_code(
    ctx: ToolContext,
    pattern: Annotated[
        str, Param("Regular expression (Python syntax); plain text with literal=true.")
    ],
    path: Annotated[
        str, Param("Directory or file to search, relative to the workspace root.", path="read")
    ] = ".",
    glob: Annotated[
        str | None,
        Param("Only files matching this glob, gitignore style: '*.py', 'src/**/*.py'."),
    ] = None,
    literal: Annotated[
        bool, Param("Treat pattern as plain text, not a regular expression.")
    ] = False,
    case_sensitive: Annotated[bool, Param("Match case exactly.")] = False,
) -> ToolOutput:
    """Search file contents in the workspace (ignored files skipped). Results are grouped
    per file with match counts and the most telling lines."""
    flags = regex.MULTILINE | (0 if case_sensitive else regex.IGNORECASE)
    try:
        compiled = regex.compile(regex.escape(pattern) if literal else pattern, flags)
    except regex.error as exc:
        raise ToolError(
            f"invalid regular expression {pattern!r}: {exc}; "
            "escape special characters or pass literal=true",
            rule="arguments",
        ) from None
    data = await asyncio.to_thread(_search, ctx, compiled, path, glob)
    data["pattern"] = pattern
    return ToolOutput(data=data, files=[f["path"] for f in data["files"]], query=pattern)


def _search(
    ctx: ToolContext, compiled: regex.Pattern[str], path: str, glob: str | None
) -> dict[str, Any]:
    settings = ctx.settings
    deadline = time.monotonic() + settings.search_timeout
    real = ctx.guard.check(path, "read")
    candidates = (
        [(path, real.stat().st_size)] if real.is_file() else workspace_files(ctx.root, path)
    )
    files: list[dict[str, Any]] = []
    total = 0
    searched = 0
    stopped: str | None = None
    wanted = glob_filter(glob, path)
    for rel, size in candidates:
        if wanted is not None and not wanted(rel):
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
        try:
            count, matches = _matching_lines(compiled, text, deadline)
        except TimeoutError:
            stopped = (
                f"the pattern took longer than {settings.search_timeout:g}s; "
                "simplify it (avoid nested repetition like (a+)+)"
            )
            break
        if count:
            files.append({"path": rel, "count": count, "matches": matches})
            total += count
            if total >= settings.search_max_matches:
                stopped = f"stopped at {settings.search_max_matches} matches"
                break
    return {
        "files": files,
        "total_matches": total,
        "files_searched": searched,
        "truncated": stopped is not None,
        "stopped": stopped,
    }


def _matching_lines(
    compiled: regex.Pattern[str], text: str, deadline: float
) -> tuple[int, list[dict[str, Any]]]:
    """Lines with at least one match (1-based), counted; the first few kept with their text."""
    count = 0
    kept: list[dict[str, Any]] = []
    line = 0  # 0-based line of ``position``
    position = 0
    last_line = -1
    remaining = max(deadline - time.monotonic(), 0.001)
    for match in compiled.finditer(text, timeout=remaining):
        line += text.count("\n", position, match.start())  # matches come in text order
        position = match.start()
        if line == last_line:
            continue
        last_line = line
        count += 1
        if len(kept) < MATCHES_KEPT_PER_FILE:
            start = text.rfind("\n", 0, position) + 1
            end = text.find("\n", position)
            kept.append(
                {
                    "line": line + 1,
                    "text": text[start : end if end != -1 else None][:MAX_LINE_CHARS],
                }
            )
    return count, kept
