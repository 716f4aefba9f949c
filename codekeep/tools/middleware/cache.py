"""Repeated reads are not paid twice: the earlier result is pointed at.

* ``read_file`` of a range an earlier read of this task already put in the context,
  while the file is unchanged (same bytes) and that result is still whole in what the
  model sees, answers with a one-line notice naming the earlier call and its line span
  instead of the text. A range compressed out of the context, a changed file, or
  ``force: true`` reads again in full.
* Any other identical read-only call answers the same way while its earlier result is
  still in the context; once compressed out, the earlier result is sent again.

Any successful write in the task clears the cache, so a read after an edit is fresh.
"""

from __future__ import annotations

import dataclasses

from codekeep.tools.builtin.walking import file_digest
from codekeep.tools.context import ReadMark, ToolContext
from codekeep.tools.middleware.contract import ToolCall, ToolMiddleware
from codekeep.tools.result import FileSpan, ToolResult, dumps

READ_TOOL = "read_file"


class CacheCheck(ToolMiddleware):
    name = "cache"

    async def before(self, call: ToolCall, ctx: ToolContext) -> ToolResult | None:
        assert call.spec is not None
        if call.spec.name == READ_TOOL:
            return _earlier_read(call, ctx)
        if not call.spec.cacheable:
            return None
        key = f"{call.spec.name}:{dumps(call.arguments)}"
        call.meta["cache_key"] = key
        hit = ctx.state.cache.get(key)
        if hit is None:
            return None
        if ctx.state.still_seen(hit.call_id):
            return dataclasses.replace(
                hit,
                cached=True,
                new_information=False,
                files_read={},
                spans=(),
                content=(
                    f"[already in your context: the identical {hit.tool} call "
                    f"{hit.call_id} earlier in this task; nothing new]"
                ),
            )
        note = (
            f"[repeated: the identical {hit.tool} call {hit.call_id} earlier in this task; "
            "its result was compressed out of your context, so here it is again]\n"
        )
        return dataclasses.replace(
            hit,
            cached=True,
            new_information=False,
            files_read={},
            content=note + hit.content,
            spans=tuple(
                FileSpan(s.path, s.start + len(note), s.end + len(note)) for s in hit.spans
            ),
        )

    async def after(self, call: ToolCall, result: ToolResult, ctx: ToolContext) -> None:
        if call.spec is None or not result.ok or result.cached:
            return
        if not call.spec.read_only:
            ctx.state.cache.clear()
            ctx.state.reads.clear()
            return
        ctx.state.now_seen(result.call_id)
        if call.spec.name == READ_TOOL and isinstance(result.data, dict) and result.call_id:
            data = result.data
            ctx.state.reads.append(
                ReadMark(
                    data["path"],
                    data["start_line"],
                    data["end_line"],
                    not data["truncated"] and data["end_line"] >= data["total_lines"],
                    data["digest"],
                    result.call_id,
                )
            )
        key = call.meta.get("cache_key")
        if key:
            ctx.state.cache[key] = result


def _earlier_read(call: ToolCall, ctx: ToolContext) -> ToolResult | None:
    """The notice for a range already in the context, unchanged; None to read it."""
    arguments = call.arguments
    if arguments.get("force"):
        return None
    path = str(arguments.get("path"))
    start = int(arguments.get("start_line") or 1)
    end = arguments.get("end_line")
    marks = [
        m
        for m in reversed(ctx.state.reads)
        if m.covers(path, start, end) and ctx.state.still_seen(m.call_id)
    ]
    if not marks:
        return None
    try:
        digest = file_digest(ctx.guard.check(path, "read"))
    except OSError:  # gone or unreadable: the handler reports it
        return None
    mark = next((m for m in marks if m.digest == digest), None)
    if mark is None:
        return None  # the file changed since: read it again
    shown = f"{start}-{end if end is not None else mark.end}"
    return ToolResult(
        tool=READ_TOOL,
        ok=True,
        cached=True,
        files=[path],
        data={
            "path": path,
            "earlier_call": mark.call_id,
            "start_line": mark.start,
            "end_line": mark.end,
            "unchanged": True,
        },
        content=(
            f"[already in your context: {path} lines {shown} are in the result of your "
            f"read_file call {mark.call_id} (lines {mark.start}-{mark.end}); the file has "
            "not changed since. Look there, or pass force=true to read it again.]"
        ),
    )
