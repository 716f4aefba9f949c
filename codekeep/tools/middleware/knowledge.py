"""What memory knows rides along with reads and lookups.

Before reading a file again the agent should see what earlier tasks found in it: a
``read_file`` result gets the memories linked to that file (facts, cases, notes, with
their flags such as ``stale``) and the earlier tasks that read it ("read in task X:
found Y"); a ``find_symbol`` result gets the memories linked to the symbols it found.
The block is appended after the result, bounded in tokens, and is not file text (the
ledger bills it as conversation).
"""

from __future__ import annotations

from collections.abc import Iterable

from codekeep.common.tokens import token_len
from codekeep.memory.model import Memory
from codekeep.tools.context import ToolContext
from codekeep.tools.middleware.contract import ToolCall, ToolMiddleware
from codekeep.tools.result import ToolResult

KNOWLEDGE_TOKENS = 200
MAX_LINES = 6
_LINE_CHARS = 200


class MemoryKnowledge(ToolMiddleware):
    name = "knowledge"

    async def after(self, call: ToolCall, result: ToolResult, ctx: ToolContext) -> None:
        if ctx.memory is None or not result.ok or result.cached:
            return
        if result.tool == "read_file" and result.files:
            memories = ctx.memory.memories_for_file(result.files[0])
        elif result.tool == "find_symbol" and isinstance(result.data, dict):
            ids = [s["id"] for s in result.data.get("symbols", [])[:5]]
            memories = [m for sid in ids for m in ctx.memory.memories_for_symbol(sid)]
        else:
            return
        lines = knowledge_lines(memories, ctx.task_id)
        if lines:
            result.content += "\n[memory] what earlier tasks know here:\n" + "\n".join(lines)


def knowledge_lines(memories: Iterable[Memory], task_id: str) -> list[str]:
    """One line per memory, summaries as "read in task X: found Y", within the budget."""
    lines: list[str] = []
    seen: set[str] = set()
    spent = 0
    for memory in memories:
        if memory.id in seen or memory.task_id == task_id:
            continue
        seen.add(memory.id)
        line = _line(memory)
        cost = token_len(line)
        if spent + cost > KNOWLEDGE_TOKENS or len(lines) == MAX_LINES:
            break
        lines.append(line)
        spent += cost
    return lines


def _line(memory: Memory) -> str:
    flags = f" ({', '.join(memory.flags)})" if memory.flags else ""
    if memory.kind == "summary":
        found = _field(memory.content, "Answer:") or _field(memory.content, "Result:") or ""
        text = f"read in task {memory.task_id}: {found}"
    else:
        text = f"{memory.kind} [{memory.id}]{flags}: {memory.content}"
    text = " ".join(text.split())
    return "- " + (text if len(text) <= _LINE_CHARS else text[: _LINE_CHARS - 1] + "…")


def _field(content: str, label: str) -> str | None:
    for line in content.splitlines():
        at = line.find(label)
        if at != -1:
            return line[at + len(label):].strip()
    return None
