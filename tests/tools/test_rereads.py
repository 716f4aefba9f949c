"""read_file does not ship a range twice, through the real pipeline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codekeep.tools import ToolContext


async def test_second_read_of_a_range_in_context_is_a_notice_not_the_text(call: Any) -> None:
    first = await call("read_file", {"path": "src/app.py", "start_line": 6, "end_line": 8})
    assert first.ok and "class Greeter" in first.content and first.spans
    second = await call("read_file", {"path": "src/app.py", "start_line": 7, "end_line": 8})
    assert second.ok and second.cached and second.outcome == "cached"
    assert "class Greeter" not in second.content and "def greet" not in second.content
    assert second.content.startswith("[already in your context: src/app.py lines 7-8")
    assert f"read_file call {first.call_id} (lines 6-8)" in second.content
    assert second.spans == () and second.files_read == {}
    forced = await call("read_file", {"path": "src/app.py", "start_line": 7, "end_line": 8,
                                      "force": True})
    assert not forced.cached and "def greet" in forced.content


async def test_a_range_outside_the_earlier_read_is_read(call: Any) -> None:
    await call("read_file", {"path": "src/app.py", "start_line": 6, "end_line": 8})
    wider = await call("read_file", {"path": "src/app.py", "start_line": 6, "end_line": 12})
    assert not wider.cached and "def main" in wider.content
    whole = await call("read_file", {"path": "src/app.py"})
    assert not whole.cached  # 6-12 does not cover line 1
    to_end = await call("read_file", {"path": "src/app.py", "start_line": 3})
    assert to_end.cached  # the whole-file read reached the end


async def test_a_changed_file_is_read_again(call: Any, workspace: Path) -> None:
    await call("read_file", {"path": "src/util.py"})
    (workspace / "src" / "util.py").write_text('def helper(name):\n    return f"hi {name}"\n')
    again = await call("read_file", {"path": "src/util.py"})
    assert not again.cached and "hi {name}" in again.content


async def test_a_range_compressed_out_of_the_context_is_read_again(
    call: Any, ctx: ToolContext
) -> None:
    first = await call("read_file", {"path": "src/util.py"})
    ctx.state.in_context = set()  # the agent's window no longer carries that result whole
    again = await call("read_file", {"path": "src/util.py"})
    assert not again.cached and "hello {name}" in again.content
    assert ctx.state.in_context == {again.call_id}  # and now this one is seen
    third = await call("read_file", {"path": "src/util.py"})
    assert third.cached and again.call_id in third.content and first.call_id not in third.content


async def test_a_write_in_the_task_forgets_earlier_reads(call: Any) -> None:
    await call("read_file", {"path": "src/util.py"})
    await call("write_file", {"path": "notes.txt", "content": "x\n"})
    assert not (await call("read_file", {"path": "src/util.py"})).cached


async def test_bad_input_still_gets_the_handlers_error(call: Any) -> None:
    missing = await call("read_file", {"path": "src/nope.py", "force": True})
    assert missing.rule == "not_found"
    wrong = await call("read_file", {"path": "src/app.py", "force": "yes"})
    assert not wrong.ok and wrong.rule == "arguments"
