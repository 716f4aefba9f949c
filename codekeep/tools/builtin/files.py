"""File tools: read a line range, list files, write with a diff. All paths are path-guarded."""

from __future__ import annotations

import asyncio
import difflib
from pathlib import Path
from typing import Annotated, Any

from codekeep.common.atomic import write_atomically
from codekeep.tools.builtin.walking import file_digest, is_binary, workspace_files
from codekeep.tools.context import ToolContext
from codekeep.tools.globs import glob_filter
from codekeep.tools.result import ToolError, ToolOutput
from codekeep.tools.spec import Param, tool

DIFF_CHARS = 3_000
LINE_NUMBER_WIDTH = 7  # "{n:>5}  " in front of every line read
HEADER_ROOM = 300  # the "path lines a-b of n" header and the continuation note
LIST_LIMIT = 500


@tool(category="files", read_only=True, compression="file", cacheable=False)
async def read_file(
    ctx: ToolContext,
    path: Annotated[str, Param("File path relative to the workspace root.", path="read")],
    start_line: Annotated[int, Param("First line to read (1-based).", schema={"minimum": 1})] = 1,
    end_line: Annotated[
        int | None,
        Param(
            "Last line to read (inclusive); omit to read to the end or the size cap.",
            schema={"minimum": 1},
        ),
    ] = None,
    force: Annotated[
        bool,
        Param("Read again even if this range is already in your context unchanged."),
    ] = False,
) -> ToolOutput:
    """Read lines of a workspace file (1-based, inclusive range). Large files are capped;
    the result says where it stopped so you can continue with start_line. A range you
    already have (file unchanged) is not sent twice: you get a pointer to the earlier
    result instead, unless force=true."""
    del force  # the re-read check acts on it before this handler runs
    real = ctx.guard.check(path, "read")
    if end_line is not None and end_line < start_line:
        raise ToolError(f"end_line {end_line} is before start_line {start_line}", rule="arguments")
    data = await asyncio.to_thread(_read_range, real, path, start_line, end_line, read_budget(ctx))
    return ToolOutput(
        data=data,
        files=[path],
        files_read={path: len(data["text"])},
        query=f"{path}:{start_line}-{end_line}",
    )


def read_budget(ctx: ToolContext) -> int:
    """Characters a read may return so that compression never has to cut it again:
    what the ledger attributes is then exactly what the model saw."""
    return max(min(ctx.settings.read_cap, ctx.settings.result_chars - HEADER_ROOM), 200)


def _read_range(real: Path, path: str, start: int, end: int | None, cap: int) -> dict[str, Any]:
    if real.is_dir():
        raise ToolError(f"{path} is a directory; use list_files", rule="not_a_file")
    if real.exists() and not real.is_file():
        raise ToolError(
            f"{path} is not a regular file (a pipe, socket or device)", rule="not_a_file"
        )
    if not real.is_file():
        raise ToolError(
            f"{path} does not exist; use list_files or search_code to find it", rule="not_found"
        )
    if is_binary(real):
        raise ToolError(f"{path} is a binary file; only text files can be read", rule="binary")
    kept: list[str] = []
    size = 0
    total = 0
    truncated = False
    last = start - 1
    with real.open("r", encoding="utf-8", errors="replace", newline=None) as handle:
        for number, line in enumerate(handle, start=1):
            total = number
            if number < start or (end is not None and number > end) or truncated:
                continue
            shown = len(line) + LINE_NUMBER_WIDTH  # as the model will see it
            if size + shown > cap and kept:
                truncated = True
                continue
            kept.append(line.rstrip("\n"))
            size += shown
            last = number
    if start > max(total, 1):
        raise ToolError(
            f"{path} has only {total} lines; start_line {start} is past the end", rule="range"
        )
    return {
        "digest": file_digest(real),
        "path": path,
        "start_line": start,
        "end_line": last,
        "total_lines": total,
        "text": "\n".join(kept),
        "truncated": truncated,
    }


@tool(category="files", read_only=True, compression="text")
async def list_files(
    ctx: ToolContext,
    path: Annotated[str, Param("Directory relative to the workspace root.", path="read")] = ".",
    pattern: Annotated[
        str | None,
        Param("Glob, gitignore style: '*.py' at any depth, 'src/**/*.py', 'tests/'."),
    ] = None,
    limit: Annotated[
        int, Param("Most files to list.", schema={"minimum": 1, "maximum": 5000})
    ] = LIST_LIMIT,
) -> ToolOutput:
    """List files under a directory (ignored files such as .gitignore'd paths and
    dependencies are skipped), with sizes."""
    files = await asyncio.to_thread(_list, ctx, path, pattern)
    shown = files[:limit]
    lines = [f"{rel}  ({size} bytes)" for rel, size in shown]
    if len(files) > len(shown):
        lines.append(f"… {len(files) - len(shown)} more files omitted; narrow path or pattern")
    header = f"{len(files)} files under {path}" + (f" matching {pattern}" if pattern else "")
    return ToolOutput(
        data={"files": [{"path": r, "size": s} for r, s in shown], "total": len(files)},
        text="\n".join([header, *lines]),
        query=f"{path}|{pattern or ''}",
    )


def _list(ctx: ToolContext, path: str, pattern: str | None) -> list[tuple[str, int]]:
    real = ctx.guard.check(path, "read")
    if not real.is_dir():
        raise ToolError(f"{path} is not a directory", rule="not_a_directory")
    wanted = glob_filter(pattern, path)
    return [
        (rel, size)
        for rel, size in workspace_files(ctx.root, path)
        if wanted is None or wanted(rel)
    ]


@tool(
    category="files",
    read_only=False,
    writes=True,
    destructive=True,
    dedup_on=("path", "content"),
    compression="text",
)
async def write_file(
    ctx: ToolContext,
    path: Annotated[str, Param("File path relative to the workspace root.", path="write")],
    content: Annotated[str, Param("The complete new content of the file.")],
) -> ToolOutput:
    """Write a whole file (creating folders as needed). Returns a unified diff of what
    changed and updates the code map for the file."""
    real = ctx.guard.check(path, "write")
    old = await asyncio.to_thread(_current_text, real, path)
    await asyncio.to_thread(_atomic_write, real, content)
    if ctx.codemap is not None:
        await asyncio.to_thread(ctx.codemap.refresh_file, path)
    old_lines = (old or "").splitlines(keepends=True)
    new_lines = content.splitlines(keepends=True)
    diff = "".join(difflib.unified_diff(old_lines, new_lines, f"a/{path}", f"b/{path}", n=2))
    added = sum(1 for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++"))
    removed = sum(1 for ln in diff.splitlines() if ln.startswith("-") and not ln.startswith("---"))
    created = old is None
    verb = "created" if created else ("unchanged" if not diff else "updated")
    summary = f"{verb} {path}: +{added} -{removed} lines ({len(new_lines)} lines now)"
    shown = (
        diff
        if len(diff) <= DIFF_CHARS
        else diff[:DIFF_CHARS] + f"\n… {len(diff) - DIFF_CHARS} more diff characters omitted"
    )
    return ToolOutput(
        data={
            "path": path,
            "created": created,
            "added": added,
            "removed": removed,
            "summary": summary,
            "diff": diff,
        },
        text=summary + ("\n" + shown if diff and not created else ""),
        files=[path],
    )


def _current_text(real: Path, path: str) -> str | None:
    if not real.exists():
        return None
    if not real.is_file():
        raise ToolError(f"{path} is a directory or special file, not a file", rule="not_a_file")
    if is_binary(real):
        raise ToolError(
            f"{path} is a binary file; refusing to overwrite it with text", rule="binary"
        )
    return real.read_text(encoding="utf-8", errors="replace")


def _atomic_write(real: Path, content: str) -> None:
    """Write beside the target and rename over it: a crash never leaves half a file."""
    real.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(real, content.encode("utf-8"), keep_mode=True)
