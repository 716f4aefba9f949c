"""Built-in tools over the real code map, memory and ledger (no mocks)."""

from __future__ import annotations

from pathlib import Path

from codekeep.tools import ToolKit


async def test_find_symbol(services_kit: ToolKit) -> None:
    ctx = services_kit.context("t", "explore")
    result = await services_kit.pipeline.execute("find_symbol", {"name": "Greeter"}, ctx)
    assert result.ok, result.content
    symbol = result.data["symbols"][0]
    assert symbol["id"] == "src/app.py::Greeter" and symbol["kind"] == "class"
    assert symbol["line"] == 6  # 1-based, as editors show it
    assert "class src/app.py::Greeter  class Greeter  src/app.py:6" in result.content
    assert result.files == ["src/app.py"] and result.new_information
    missing = await services_kit.pipeline.execute("find_symbol", {"symbol": "Nope"}, ctx)
    assert missing.ok and missing.data["total"] == 0


async def test_find_references_groups_per_file_with_lines(services_kit: ToolKit) -> None:
    ctx = services_kit.context("t", "explore")
    result = await services_kit.pipeline.execute("find_references", {"name": "helper"}, ctx)
    assert result.ok, result.content
    paths = {f["path"] for f in result.data["files"]}
    assert "src/app.py" in paths
    app = next(f for f in result.data["files"] if f["path"] == "src/app.py")
    assert any("return helper(name)" in m["text"] for m in app["matches"])
    none = await services_kit.pipeline.execute("find_references", {}, ctx)
    assert not none.ok and "pass name or symbol_id" in none.content


async def test_find_related(services_kit: ToolKit) -> None:
    ctx = services_kit.context("t", "explore")
    result = await services_kit.pipeline.execute(
        "find_related", {"path": "src/app.py", "line": 8}, ctx
    )
    assert result.ok, result.content
    assert result.data["symbol"]["id"] == "src/app.py::Greeter.greet"
    assert "src/app.py:8 is in method src/app.py::Greeter.greet" in result.content
    unknown = await services_kit.pipeline.execute(
        "find_related", {"path": "nope.py", "line": 1}, ctx
    )
    assert not unknown.ok and unknown.rule == "not_indexed"
    outside = await services_kit.pipeline.execute(
        "find_related", {"path": "../x.py", "line": 1}, ctx
    )
    assert outside.refused and outside.rule == "path.outside"


async def test_search_symbols_scores(services_kit: ToolKit) -> None:
    ctx = services_kit.context("t", "explore")
    result = await services_kit.pipeline.execute("search_symbols", {"query": "greet"}, ctx)
    assert result.ok and result.data["symbols"]
    assert all("score" in s for s in result.data["symbols"])
    assert "score=" in result.content


async def test_repo_map(services_kit: ToolKit) -> None:
    ctx = services_kit.context("t", "explore")
    result = await services_kit.pipeline.execute("repo_map", {"tokens": 300}, ctx)
    assert result.ok and "src/app.py" in result.content
    assert result.data["tokens"] <= 300
    unknown = await services_kit.pipeline.execute(
        "repo_map", {"tokens": 300, "focus": ["src/nope.py"]}, ctx
    )
    assert not unknown.ok and unknown.rule == "not_indexed"
    assert "src/nope.py" in unknown.content and "list_files" in unknown.content


async def test_find_related_past_the_end_of_a_file_is_a_clear_error(
    services_kit: ToolKit,
) -> None:
    ctx = services_kit.context("t", "explore")
    result = await services_kit.pipeline.execute(
        "find_related", {"path": "src/app.py", "line": 9999}, ctx
    )
    assert not result.ok and result.rule == "not_indexed"
    assert "has no line 9999" in result.content


async def test_remember_recall_forget(services_kit: ToolKit) -> None:
    ctx = services_kit.context("t", "chat")
    fact = "The test suite is run with pytest -q from the repository root."
    (services_kit.root / "README.md").write_text("Run the tests: `pytest -q` from the root.\n")
    written = await services_kit.pipeline.execute(
        "remember", {"content": fact, "kind": "fact", "files": ["README.md"],
                     "evidence": [{"file": "README.md", "quote": "pytest -q"}]}, ctx
    )
    assert written.ok, written.content
    memory_id = written.data["id"]
    again = await services_kit.pipeline.execute("remember", {"content": fact}, ctx)
    assert again.refused and again.rule == "duplicate_write"
    found = await services_kit.pipeline.execute(
        "recall", {"query": "how to run the test suite"}, ctx
    )
    assert found.ok and memory_id in found.content
    gone = await services_kit.pipeline.execute(
        "forget", {"id": memory_id, "reason": "moved to tox"}, ctx
    )
    assert gone.ok
    after = await services_kit.pipeline.execute(
        "recall", {"query": "how to run the tests with pytest"}, ctx
    )
    assert memory_id not in after.content
    unknown = await services_kit.pipeline.execute("forget", {"id": "nope"}, ctx)
    assert not unknown.ok and unknown.rule == "not_found"


async def test_remember_rejects_secrets(services_kit: ToolKit) -> None:
    ctx = services_kit.context("t", "chat")
    result = await services_kit.pipeline.execute(
        "remember", {"content": "The API key is sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"}, ctx
    )
    stored = [m.content for m in services_kit.memory.list()] if services_kit.memory else []
    assert not any("abcdefghijklmnopqrstuvwxyz0123456789" in c for c in stored)
    assert result.ok or result.rule == "memory.rejected"


async def test_note_finding_and_observations_reach_working_memory(services_kit: ToolKit) -> None:
    ctx = services_kit.context("task-wm", "explore")
    await services_kit.pipeline.execute("read_file", {"path": "src/util.py"}, ctx)
    noted = await services_kit.pipeline.execute(
        "note_finding", {"finding": "helper formats greetings", "evidence": "src/util.py:1"}, ctx
    )
    assert noted.ok
    assert services_kit.memory is not None
    working = services_kit.memory.working_memory("task-wm")
    assert [f.text for f in working.scratchpad] == ["helper formats greetings"]
    assert any(o.tool == "read_file" for o in working.observations)
    events = services_kit.memory.events.events("task-wm")
    assert [(e.event_type, e.files) for e in events] == [("file_read", ["src/util.py"])]


async def test_ledger_report(services_kit: ToolKit) -> None:
    assert services_kit.ledger is not None
    services_kit.ledger.record(
        task_id="t-ledger", call_type="tool", model="gpt-4o", input_tokens=1200, output_tokens=80,
        files={"src/app.py": 900},
    )  # fmt: skip
    ctx = services_kit.context("t-ledger", "chat")
    result = await services_kit.pipeline.execute("ledger_report", {}, ctx)
    assert result.ok, result.content
    assert result.data["total"]["inputTokens"] == 1200
    assert "tool" in result.content
    by_file = await services_kit.pipeline.execute("ledger_report", {"group_by": "file"}, ctx)
    assert by_file.data["rows"][0]["key"] == "src/app.py"


async def test_write_file_refreshes_the_code_map(services_kit: ToolKit, workspace: Path) -> None:
    ctx = services_kit.context("t", "edit")
    source = "def brand_new_function():\n    return 42\n"
    result = await services_kit.pipeline.execute(
        "write_file", {"path": "src/new.py", "content": source}, ctx
    )
    assert result.ok, result.content
    found = await services_kit.pipeline.execute("find_symbol", {"name": "brand_new_function"}, ctx)
    assert found.data["symbols"][0]["path"] == "src/new.py"


async def test_service_tools_without_services_say_so(kit: ToolKit) -> None:
    ctx = kit.context("t", "chat")
    result = await kit.pipeline.execute("find_symbol", {"name": "x"}, ctx)
    assert (
        not result.ok and result.rule == "service" and "code map is not available" in result.content
    )


async def test_remember_writes_a_case_with_evidence_the_files_confirm(
    services_kit: ToolKit,
) -> None:
    ctx = services_kit.context("t-case", "chat")
    case = "helper() crashed on None; fixed by formatting the name with an f-string"
    good = await services_kit.pipeline.execute("remember", {
        "content": case, "kind": "case",
        "evidence": [{"file": "src/util.py", "quote": 'return f"hello {name}"'}]}, ctx)
    assert good.ok, good.content
    stored = services_kit.memory.get(good.data["id"]) if services_kit.memory else None
    assert stored is not None and stored.status == "confirmed_resolved"
    assert stored.evidence is not None and stored.evidence["items"][0]["verified"] is True
    invented = await services_kit.pipeline.execute("remember", {
        "content": "helper() retries three times", "kind": "case",
        "evidence": [{"file": "src/util.py", "quote": "retries = 3"}]}, ctx)
    assert not invented.ok and "not found in src/util.py" in invented.content
    bare = await services_kit.pipeline.execute(
        "remember", {"content": "helper() was slow; cached it", "kind": "case"}, ctx)
    assert not bare.ok and "needs verifiable evidence" in bare.content
    shape = await services_kit.pipeline.execute("remember", {
        "content": "helper() hung; fixed it", "kind": "case", "evidence": [{"file": 3}]}, ctx)
    assert not shape.ok and shape.rule == "arguments"
    unsaid = await services_kit.pipeline.execute("remember", {
        "content": "helper() hung; fixed it", "kind": "case", "evidence": [{"quote": "x"}]}, ctx)
    assert not unsaid.ok and "not in what the user said" in unsaid.content


async def test_reads_and_lookups_carry_what_memory_knows(services_kit: ToolKit) -> None:
    memory = services_kit.memory
    assert memory is not None
    memory.remember("util.py's helper formats greetings for the CLI", kind="fact",
                    files=["src/util.py"], symbols=["src/util.py::helper"])
    memory.record_event("old-task", "file_read", "src/util.py lines 1-2 of 2",
                        files=["src/util.py"])
    memory.end_task("old-task", "Task: what does helper do\\nAnswer: it greets by name")
    ctx = services_kit.context("t-know", "chat")
    read = await services_kit.pipeline.execute("read_file", {"path": "src/util.py"}, ctx)
    assert read.ok
    notes = read.content.split("[memory]", 1)[1]
    assert "util.py's helper formats greetings for the CLI" in notes
    assert "read in task old-task" in notes
    assert all(span.end <= read.content.index("[memory]") for span in read.spans)
    found = await services_kit.pipeline.execute("find_symbol", {"name": "helper"}, ctx)
    assert "[memory]" in found.content and "formats greetings" in found.content
    other = await services_kit.pipeline.execute("read_file", {"path": "README.md"}, ctx)
    assert "[memory]" not in other.content  # nothing known: nothing added
