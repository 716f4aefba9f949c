"""Each middleware alone, then the pipeline's order and its never-raise guarantee."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codekeep.tools import ToolContext, ToolKit, ToolMiddleware, ToolPipeline, ToolResult
from codekeep.tools.middleware import (
    AllowlistGate,
    ArgumentValidation,
    AuditRecord,
    CacheCheck,
    DuplicateWriteCheck,
    ExplorationSignal,
    ObservationRecord,
    SafetyGate,
    TraceRecord,
    default_middlewares,
)
from codekeep.tools.middleware.contract import ToolCall
from codekeep.tools.result import ToolOutput
from codekeep.tools.toolkit import default_registry


def _call(kit: ToolKit, name: str, arguments: dict[str, Any]) -> ToolCall:
    return ToolCall(
        name=name,
        raw_arguments=arguments,
        call_id="c1",
        spec=kit.registry.get(name),
        arguments=dict(arguments),
    )


def _ok(tool: str, files: list[str] | None = None, query: str | None = None) -> ToolResult:
    return ToolResult(tool=tool, ok=True, content="x", files=files or [], query=query)


def test_default_chain_order() -> None:
    names = [m.name for m in default_middlewares(default_registry(), audit=None)]
    assert names == [
        "allowlist",
        "arguments",
        "safety",
        "cache",
        "knowledge",
        "observation",
        "exploration",
        "trace",
        "dedup",
    ]


async def test_allowlist_gate_refuses_unknown_and_disallowed(kit: ToolKit) -> None:
    gate = AllowlistGate(kit.registry)
    ctx = kit.context("t", "explore")
    unknown = await gate.before(_call(kit, "read_fiel", {}), ctx)
    assert unknown is not None and unknown.rule == "allowlist"
    assert "did you mean 'read_file'" in unknown.content
    assert "read_file" in unknown.data["allowed"]
    disallowed = await gate.before(_call(kit, "write_file", {}), ctx)
    assert (
        disallowed is not None and "not available in the 'explore' capability" in disallowed.content
    )
    assert "write_file" not in disallowed.data["allowed"]
    assert await gate.before(_call(kit, "list_files", {}), ctx) is None
    assert "list_files" in ctx.state.loaded  # calling an allowed tool discloses it


async def test_argument_validation_normalises_in_place(kit: ToolKit, ctx: ToolContext) -> None:
    middleware = ArgumentValidation()
    call = ToolCall(
        "read_file",
        '{"filePath": "src/app.py", "startLine": 2}',
        "c",
        kit.registry.get("read_file"),
    )
    assert await middleware.before(call, ctx) is None
    assert call.arguments == {"path": "src/app.py", "start_line": 2, "force": False}
    bad = ToolCall("read_file", '{"path": 1}', "c", kit.registry.get("read_file"))
    result = await middleware.before(bad, ctx)
    assert result is not None and result.rule == "arguments" and not result.ok


async def test_safety_gate_canonicalises_and_refuses(kit: ToolKit, ctx: ToolContext) -> None:
    gate = SafetyGate()
    call = _call(kit, "read_file", {"path": "./src/../src/app.py"})
    assert await gate.before(call, ctx) is None
    assert call.arguments["path"] == "src/app.py"
    refused = await gate.before(_call(kit, "read_file", {"path": "../outside/secret.txt"}), ctx)
    assert refused is not None and refused.rule == "path.outside"
    command = await gate.before(_call(kit, "run_command", {"command": "sudo ls"}), ctx)
    assert command is not None and command.rule == "command.privilege"


async def test_cache_check_points_at_the_earlier_result_and_clears_on_write(
    kit: ToolKit, ctx: ToolContext
) -> None:
    cache = CacheCheck()
    first = _call(kit, "search_code", {"pattern": "helper"})
    assert await cache.before(first, ctx) is None
    original = ToolResult(tool="search_code", ok=True, content="body", call_id="c1")
    await cache.after(first, original, ctx)
    hit = await cache.before(_call(kit, "search_code", {"pattern": "helper"}), ctx)
    assert hit is not None and hit.cached and hit.content.startswith("[already in your context")
    assert "c1" in hit.content and "body" not in hit.content  # not sent twice
    assert hit.files_read == {} and not hit.new_information
    ctx.state.in_context = set()  # the agent compressed that result out of its context
    again = await cache.before(_call(kit, "search_code", {"pattern": "helper"}), ctx)
    assert again is not None and again.content.startswith("[repeated") and "body" in again.content
    write = _call(kit, "write_file", {"path": "x", "content": "y"})
    assert await cache.before(write, ctx) is None  # writes are never served from cache
    await cache.after(write, _ok("write_file"), ctx)
    assert await cache.before(_call(kit, "search_code", {"pattern": "helper"}), ctx) is None


async def test_observation_record_calls_pluggable_sinks(kit: ToolKit, ctx: ToolContext) -> None:
    seen: list[tuple[str, str]] = []
    middleware = ObservationRecord(
        [lambda call, result, c: seen.append((call.name, result.outcome))]
    )
    await middleware.after(_call(kit, "read_file", {}), _ok("read_file"), ctx)
    assert seen == [("read_file", "ok")]


async def test_exploration_signal_marks_only_new_information(
    kit: ToolKit, ctx: ToolContext
) -> None:
    signal = ExplorationSignal()
    search = _call(kit, "search_code", {"pattern": "helper"})
    first = _ok("search_code", ["src/util.py"], "helper")
    await signal.after(search, first, ctx)
    assert first.new_information and ctx.state.unique_patterns == {"helper"}
    again = _ok("search_code", ["src/util.py"], "helper")
    await signal.after(search, again, ctx)
    assert not again.new_information
    new_file = _ok("search_code", ["src/util.py", "src/app.py"], "helper")
    await signal.after(search, new_file, ctx)
    assert new_file.new_information and ctx.state.unique_files == {"src/util.py", "src/app.py"}
    write = _ok("write_file", ["src/new.py"])
    await signal.after(_call(kit, "write_file", {}), write, ctx)
    assert not write.new_information  # acting is not exploring


async def test_trace_record_redacts(kit: ToolKit, ctx: ToolContext) -> None:
    trace = TraceRecord()
    call = _call(
        kit, "run_command", {"command": "curl -H 'Authorization: Bearer abcdefghijklmnopqrst' x"}
    )
    await trace.after(call, _ok("run_command"), ctx)
    entry = ctx.state.trace[-1]
    assert entry.tool == "run_command" and "abcdefghijklmnopqrst" not in str(entry.arguments)


async def test_duplicate_write_check(kit: ToolKit, ctx: ToolContext) -> None:
    dedup = DuplicateWriteCheck()
    first = _call(kit, "write_file", {"path": "a.txt", "content": "hello  world"})
    assert await dedup.before(first, ctx) is None
    await dedup.after(first, _ok("write_file"), ctx)
    repeat = _call(kit, "write_file", {"path": "a.txt", "content": "hello world"})
    refused = await dedup.before(repeat, ctx)
    assert refused is not None and refused.rule == "duplicate_write"
    different = _call(kit, "write_file", {"path": "a.txt", "content": "other"})
    assert await dedup.before(different, ctx) is None
    reads = _call(kit, "read_file", {"path": "a.txt"})
    assert await dedup.before(reads, ctx) is None  # reads are never deduplicated


async def test_failed_write_can_be_retried(kit: ToolKit, ctx: ToolContext) -> None:
    dedup = DuplicateWriteCheck()
    first = _call(kit, "write_file", {"path": "a.txt", "content": "x"})
    await dedup.before(first, ctx)
    await dedup.after(first, ToolResult(tool="write_file", ok=False, content="boom"), ctx)
    assert (
        await dedup.before(_call(kit, "write_file", {"path": "a.txt", "content": "x"}), ctx) is None
    )


async def test_audit_record_persists_redacted(
    kit: ToolKit, ctx: ToolContext, workspace: Path
) -> None:
    audit = AuditRecord(kit.audit)
    call = _call(kit, "remember", {"content": "token=abcdef123456 is the password"})
    result = ToolResult(tool="remember", ok=True, content="ok", duration_ms=1.5)
    await audit.after(call, result, ctx)
    entries = kit.audit.entries(task_id=ctx.task_id)
    assert entries[-1].tool == "remember" and entries[-1].outcome == "ok"
    assert "abcdef123456" not in str(entries[-1].arguments)
    assert entries[-1].actor == "agent" and entries[-1].duration_ms == 1.5
    assert (workspace / ".codekeep" / "audit.db").is_file()


class Recorder(ToolMiddleware):
    def __init__(self, name: str, log: list[str], block: bool = False) -> None:
        self.name = name
        self.log = log
        self.block = block

    async def before(self, call: ToolCall, ctx: ToolContext) -> ToolResult | None:
        self.log.append(f"before:{self.name}")
        if self.block:
            return ToolResult(
                tool=call.name, ok=False, content="blocked", refused="blocked", rule=self.name
            )
        return None

    async def after(self, call: ToolCall, result: ToolResult, ctx: ToolContext) -> None:
        self.log.append(f"after:{self.name}:{result.outcome}")


async def test_pipeline_runs_before_then_handler_then_after_in_order(
    kit: ToolKit, ctx: ToolContext
) -> None:
    log: list[str] = []
    chain = [Recorder("a", log), Recorder("b", log), Recorder("c", log)]
    pipeline = ToolPipeline(kit.registry, [ArgumentValidation(), *chain])
    result = await pipeline.execute("read_file", {"path": "src/app.py"}, ctx)
    assert result.ok
    assert log == ["before:a", "before:b", "before:c", "after:a:ok", "after:b:ok", "after:c:ok"]


async def test_a_blocking_before_stops_the_chain_but_after_hooks_still_see_it(
    kit: ToolKit, ctx: ToolContext
) -> None:
    log: list[str] = []
    chain = [Recorder("a", log), Recorder("b", log, block=True), Recorder("c", log)]
    pipeline = ToolPipeline(kit.registry, [ArgumentValidation(), *chain])
    result = await pipeline.execute("write_file", {"path": "new.txt", "content": "x"}, ctx)
    assert result.refused == "blocked"
    assert log == ["before:a", "before:b", "after:a:refused", "after:b:refused", "after:c:refused"]
    assert not (kit.root / "new.txt").exists()  # the handler never ran


async def test_handler_exceptions_become_results(kit: ToolKit, ctx: ToolContext) -> None:
    from codekeep.tools import tool

    @tool(category="files", read_only=True)
    async def explode(c: ToolContext) -> ToolOutput:
        """Always fails."""
        raise RuntimeError("kaboom")

    kit.registry.register(explode)
    pipeline = ToolPipeline(kit.registry, [ArgumentValidation()])
    result = await pipeline.execute("explode", {}, ctx)
    assert not result.ok and result.rule == "exception" and "kaboom" in result.content


async def test_a_failing_after_hook_does_not_lose_the_result(
    kit: ToolKit, ctx: ToolContext
) -> None:
    class Broken(ToolMiddleware):
        name = "broken"

        async def after(self, call: ToolCall, result: ToolResult, c: ToolContext) -> None:
            raise ValueError("observer bug")

    audit = AuditRecord(kit.audit)
    pipeline = ToolPipeline(kit.registry, [ArgumentValidation(), Broken(), audit])
    result = await pipeline.execute("read_file", {"path": "src/app.py"}, ctx)
    assert result.ok
    assert kit.audit.entries(task_id=ctx.task_id)[-1].tool == "read_file"


async def test_full_pipeline_caches_and_marks(call: Any, ctx: ToolContext) -> None:
    first = await call("read_file", {"path": "src/app.py"})
    second = await call("read_file", {"file": "src/app.py"})
    assert first.ok and not first.cached and first.new_information
    assert second.cached and not second.new_information
    assert first.files_read == {"src/app.py": len(first.data["text"])}
    assert ctx.state.total_calls == 2
    assert [t.outcome for t in ctx.state.trace] == ["ok", "cached"]


async def test_extra_after_middlewares_plug_in(workspace: Path) -> None:
    seen: list[str] = []
    observer = ObservationRecord([lambda call, result, c: seen.append(result.tool)])
    kit = ToolKit.open(workspace, extra_after=[observer])
    ctx = kit.context("t", "chat")
    await kit.pipeline.execute("read_file", {"path": "README.md"}, ctx)
    assert seen == ["read_file"]
    names = [m.name for m in kit.pipeline.middlewares]
    assert (
        names.index("observation", names.index("trace"))
        < names.index("dedup")
        < names.index("audit")
    )
    kit.close()


async def test_explicit_defaults_hit_the_same_cache_entry(call: Any) -> None:
    first = await call("read_file", {"path": "src/util.py"})
    second = await call("read_file", {"path": "src/util.py", "start_line": 1})
    assert first.ok and second.cached


def test_audit_log_keeps_ninety_days(workspace: Path) -> None:
    import time

    from codekeep.tools.audit import AuditLog

    log = AuditLog.open(workspace)
    for age_days in (200, 10):
        log.record(task_id="old", actor="agent", tool="read_file", arguments={}, outcome="ok",
                   rule=None, reason=None, duration_ms=1.0)  # fmt: skip
        log._conn.execute("UPDATE audit SET ts = ? WHERE id = (SELECT max(id) FROM audit)",
                          (time.time() - age_days * 86_400,))  # fmt: skip
    log.close()
    reopened = AuditLog.open(workspace)
    assert len(reopened.entries(task_id="old")) == 1
    reopened.close()


async def test_real_chain_order_observation_before_trace_before_dedup_before_audit(
    workspace: Path,
) -> None:
    """Each after-stage sees the state the stages before it left (seed: trace after observation)."""
    seen: list[tuple[int, int, int]] = []
    kit_holder: list[ToolKit] = []

    def sink(call: ToolCall, result: ToolResult, c: ToolContext) -> None:
        audited = len(kit_holder[0].audit.entries(task_id=c.task_id))
        seen.append((len(c.state.trace), len(c.state.writes), audited))

    kit = ToolKit.open(workspace)
    kit_holder.append(kit)
    observation = next(m for m in kit.pipeline.middlewares if isinstance(m, ObservationRecord))
    observation.sinks.append(sink)
    ctx = kit.context("order", "edit")
    await kit.pipeline.execute("write_file", {"path": "n.txt", "content": "x"}, ctx)
    await kit.pipeline.execute("write_file", {"path": "n.txt", "content": "y"}, ctx)
    # at observation time: not yet traced, write not yet recorded by dedup, not yet audited
    assert seen == [(0, 0, 0), (1, 1, 1)]
    assert len(ctx.state.trace) == 2 and len(ctx.state.writes) == 2
    assert len(kit.audit.entries(task_id="order")) == 2
    kit.close()


async def test_a_failing_gate_blocks_instead_of_raising(kit: ToolKit, ctx: ToolContext) -> None:
    class BrokenGate(ToolMiddleware):
        name = "broken_gate"

        async def before(self, call: ToolCall, c: ToolContext) -> ToolResult | None:
            raise OSError("disk on fire")

    pipeline = ToolPipeline(
        kit.registry, [ArgumentValidation(), BrokenGate(), AuditRecord(kit.audit)]
    )
    result = await pipeline.execute("write_file", {"path": "w.txt", "content": "x"}, ctx)
    assert result.refused and result.rule == "broken_gate" and "disk on fire" in result.content
    assert not (kit.root / "w.txt").exists()
    assert kit.audit.entries(task_id=ctx.task_id)[-1].outcome == "refused"


async def test_garbage_names_and_undecodable_paths_are_refused_and_audited(
    call: Any, kit: ToolKit
) -> None:
    nameless = await call(None, {})  # type: ignore[arg-type]
    assert nameless.refused and nameless.rule == "allowlist"
    odd = await call("read_file", {"path": "src/\udcff.py"})
    assert not odd.ok
    entries = kit.audit.entries(task_id="task-1")
    assert [e.outcome for e in entries][-2:] == ["refused", odd.outcome]
    assert "\\udcff" in str(entries[-1].arguments) or "\udcff" in str(entries[-1].arguments)
