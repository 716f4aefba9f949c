"""ToolForge: reuse, compose (sequential with references, parallel), TTL, and the sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from codekeep.settings.tools import ToolSettings
from codekeep.tools import ToolContext, ToolKit, ToolPipeline
from codekeep.tools.forge import ForgeError, ForgeTest, Step, ToolForge
from codekeep.tools.toolkit import default_registry


async def test_reuse_fixes_arguments(kit: ToolKit, ctx: ToolContext) -> None:
    spec = kit.forge.reuse("search_python", "search_code", {"glob": "*.py"})
    assert "glob" not in spec.properties and spec.parameters["required"] == ["pattern"]
    assert spec.category == "forged" and spec.forged_from == frozenset({"search_code"})
    result = await kit.pipeline.execute("search_python", {"pattern": "helper"}, ctx)
    assert result.ok, result.content
    assert {f["path"] for f in result.data["files"]} == {"src/app.py", "src/util.py"}
    tools = [e.tool for e in kit.audit.entries(task_id=ctx.task_id)]
    assert tools == ["search_code", "search_python"]  # the inner call is audited too


async def test_reuse_with_a_preset_secret_is_still_refused(kit: ToolKit, ctx: ToolContext) -> None:
    kit.forge.reuse("read_env", "read_file", {"path": ".env"})
    result = await kit.pipeline.execute("read_env", {}, ctx)
    assert result.refused and result.rule == "path.secret"
    assert "sk-live" not in result.content


@pytest.mark.parametrize(
    ("base", "preset", "message"),
    [
        ("nope", {}, "no tool named"),
        ("search_code", {"colour": "red"}, "has no parameters"),
        ("search_code", {"literal": "yes"}, "is not of type 'boolean'"),
    ],
)
def test_reuse_errors(kit: ToolKit, base: str, preset: dict[str, Any], message: str) -> None:
    with pytest.raises(ForgeError, match=message):
        kit.forge.reuse("x_tool", base, preset)


def test_forged_names_cannot_shadow_builtins(kit: ToolKit) -> None:
    with pytest.raises(ForgeError, match="already a built-in"):
        kit.forge.reuse("read_file", "read_file", {"start_line": 1})
    with pytest.raises(ForgeError, match="snake_case"):
        kit.forge.reuse("ReadIt", "read_file", {})


async def test_compose_sequential_references_earlier_results(
    kit: ToolKit, ctx: ToolContext
) -> None:
    kit.forge.compose(
        "find_and_read",
        "Search for a pattern and read the first file that matches.",
        [
            Step("search_code", {"pattern": "$args.pattern", "glob": "*.py"}),
            Step("read_file", {"path": "$steps[0].data.files[0].path"}),
        ],
        parameters={"properties": {"pattern": {"type": "string"}}, "required": ["pattern"]},
    )
    result = await kit.pipeline.execute("find_and_read", {"pattern": "class Greeter"}, ctx)
    assert result.ok, result.content
    assert "## step 0: search_code" in result.content and "## step 1: read_file" in result.content
    assert "def greet(self, name):" in result.content
    assert set(result.files_read) == {"src/app.py"}
    assert result.data["steps"][1]["data"]["path"] == "src/app.py"


async def test_compose_stops_at_the_first_failing_step(kit: ToolKit, ctx: ToolContext) -> None:
    kit.forge.compose(
        "broken_chain",
        "Reads a missing file, then something else.",
        [Step("read_file", {"path": "missing.py"}), Step("read_file", {"path": "README.md"})],
    )
    result = await kit.pipeline.execute("broken_chain", {}, ctx)
    assert not result.ok and "step 0 (read_file) failed" in result.content
    assert "step 1" not in result.content


async def test_compose_parallel_merges(kit: ToolKit, ctx: ToolContext) -> None:
    kit.forge.compose(
        "read_both",
        "Read both modules at once.",
        [Step("read_file", {"path": "src/app.py"}), Step("read_file", {"path": "src/util.py"})],
        mode="parallel",
    )
    result = await kit.pipeline.execute("read_both", {}, ctx)
    assert result.ok and set(result.files_read) == {"src/app.py", "src/util.py"}
    assert [s["tool"] for s in result.data["steps"]] == ["read_file", "read_file"]


@pytest.mark.parametrize(
    ("steps", "mode", "parameters", "message"),
    [
        ([], "sequential", None, "at least one step"),
        ([Step("nope")], "sequential", None, "no tool named"),
        ([Step("read_file", {"path": "$steps[0].data.path"})], "sequential", None, "not run yet"),
        (
            [Step("read_file", {"path": "a"}), Step("read_file", {"path": "$steps[0].data.path"})],
            "parallel",
            None,
            "parallel steps cannot reference",
        ),
        ([Step("read_file", {"path": "$steps[x]"})], "sequential", None, "malformed reference"),
        (
            [Step("read_file", {"path": "a"})],
            "sequential",
            {"type": "array"},
            "must describe an object",
        ),
        ([Step("read_file", {"path": "a"})], "sequential", {"type": 12}, "not a valid JSON Schema"),
    ],
)
def test_compose_errors(
    kit: ToolKit, steps: list[Step], mode: Any, parameters: Any, message: str
) -> None:
    with pytest.raises(ForgeError, match=message):
        kit.forge.compose("bad_tool", "Bad.", steps, mode=mode, parameters=parameters)


async def test_a_reference_to_nothing_is_reported(kit: ToolKit, ctx: ToolContext) -> None:
    kit.forge.compose(
        "dangling",
        "Search then read a file that is not there.",
        [
            Step("search_code", {"pattern": "no-such-text-anywhere"}),
            Step("read_file", {"path": "$steps[0].data.files[0].path"}),
        ],
    )
    result = await kit.pipeline.execute("dangling", {}, ctx)
    assert not result.ok and "nothing at $steps[0].data.files[0]" in result.content


def test_forged_tools_are_allowed_only_where_their_parts_are(kit: ToolKit) -> None:
    kit.forge.compose("reader", "Reads.", [Step("read_file", {"path": "README.md"})])
    kit.forge.compose("writer", "Writes.", [Step("write_file", {"path": "x", "content": "y"})])
    assert kit.registry.allowed("explore", "reader") and kit.registry.allowed("edit", "writer")
    assert not kit.registry.allowed("explore", "writer") and not kit.registry.allowed(
        "chat", "writer"
    )


async def test_forged_tools_expire(workspace: Path) -> None:
    now = [1000.0]
    registry = default_registry()
    registry._clock = lambda: now[0]  # the registry's time source, advanced by hand
    pipeline = ToolPipeline.default(registry)
    forge = ToolForge(registry, pipeline, ToolSettings())
    forge.reuse("readme", "read_file", {"path": "README.md"})
    ctx = ToolContext.create(workspace, "t", "chat")
    assert (await pipeline.execute("readme", {}, ctx)).ok
    now[0] += 30 * 60 + 1
    expired = await pipeline.execute("readme", {}, ctx)
    assert expired.refused and "no tool named 'readme'" in expired.content


async def test_forge_tool_for_the_model(kit: ToolKit) -> None:
    ctx = kit.context("t", "chat")
    arguments = {
        "name": "util_outline",
        "description": "Read util.py and search it for helper.",
        "mode": "compose",
        "steps": [
            {"tool": "read_file", "args": {"path": "src/util.py"}},
            {"tool": "search_code", "args": {"pattern": "helper", "path": "src"}},
        ],
    }
    result = await kit.pipeline.execute("forge_tool", arguments, ctx)
    assert result.ok, result.content
    assert "util_outline" in ctx.state.loaded
    assert "util_outline" in {s["function"]["name"] for s in kit.pipeline.schemas(ctx)}
    used = await kit.pipeline.execute("util_outline", {}, ctx)
    assert used.ok and "## step 1: search_code" in used.content
    writer = {
        **arguments,
        "name": "sneaky",
        "steps": [{"tool": "write_file", "args": {"path": "x", "content": "y"}}],
    }
    refused = await kit.pipeline.execute("forge_tool", writer, ctx)
    assert not refused.ok and "does not allow" in refused.content
    assert kit.registry.get("sneaky") is None


async def test_generate_is_off_by_default(kit: ToolKit) -> None:
    with pytest.raises(ForgeError, match="disabled"):
        await kit.forge.generate(
            "adder", "Adds.", None, "def tool_handler(a):\n    return 1\n", [ForgeTest({}, 1)]
        )


def _generating_forge(kit: ToolKit) -> ToolForge:
    return ToolForge(
        kit.registry, kit.pipeline, ToolSettings(forge_generate=True, sandbox_timeout=20)
    )


ADDER = """
def tool_handler(args):
    return sum(args["numbers"])
"""
NUMBERS = {
    "properties": {"numbers": {"type": "array", "items": {"type": "number"}}},
    "required": ["numbers"],
}


@pytest.mark.slow
async def test_generate_registers_after_its_tests_pass(kit: ToolKit, ctx: ToolContext) -> None:
    forge = _generating_forge(kit)
    spec = await forge.generate(
        "adder", "Add numbers.", NUMBERS, ADDER, [ForgeTest({"numbers": [1, 2]}, 3)]
    )
    assert spec.forged_from == frozenset({"forge_tool"})
    result = await kit.pipeline.execute("adder", {"numbers": [4, 5, 6]}, ctx)
    assert result.ok and result.data == 15
    with pytest.raises(ForgeError, match="expected 4, got 3"):
        await forge.generate(
            "bad_adder", "Add.", NUMBERS, ADDER, [ForgeTest({"numbers": [1, 2]}, 4)]
        )
    assert kit.registry.get("bad_adder") is None
    with pytest.raises(ForgeError, match="at least one test"):
        await forge.generate("untested", "Add.", NUMBERS, ADDER, [])
    with pytest.raises(ForgeError, match="do not match the parameters"):
        await forge.generate("mismatch", "Add.", NUMBERS, ADDER, [ForgeTest({"numbers": "x"}, 0)])


def _handler(body: str, imports: str = "") -> str:
    """Source of a generated tool whose handler runs ``body`` (one line)."""
    return f"{imports}\ndef tool_handler(a):\n    {body}\n    return 1\n"


ESCAPES = {
    "read_outside": _handler("return open('{secret}').read()"),
    "write_outside": _handler("open('{outside}/pwned.txt', 'w').write('x')"),
    "list_root": _handler("return os.listdir('/')", "import os"),
    "network": _handler("socket.create_connection(('127.0.0.1', 9))", "import socket"),
    "raw_socket": _handler(
        "sys.modules['_socket'].socket().connect(('127.0.0.1', 9))", "import sys"
    ),
    "process": _handler("return os.system('touch {outside}/pwned.txt')", "import os"),
    "posix_module": _handler("return sys.modules['posix'].system('id')", "import sys"),
    "fork": _handler("return os.fork()", "import os"),
    "eval": _handler("return eval('1 + 1')"),
    "chdir": _handler("os.chdir('/')", "import os"),
    "forever": _handler("while True: pass"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ESCAPES))
async def test_generated_code_cannot_escape_the_sandbox(
    kit: ToolKit, outside: Path, name: str
) -> None:
    forge = ToolForge(
        kit.registry, kit.pipeline, ToolSettings(forge_generate=True, sandbox_timeout=3)
    )
    code = ESCAPES[name].format(secret=outside / "secret.txt", outside=outside)
    with pytest.raises(ForgeError):
        await forge.generate(f"escape_{name}", "Tries to escape.", None, code, [ForgeTest({}, 1)])
    assert kit.registry.get(f"escape_{name}") is None
    assert not (outside / "pwned.txt").exists()


@pytest.mark.slow
async def test_generated_code_may_use_its_own_temp_dir(kit: ToolKit) -> None:
    forge = _generating_forge(kit)
    code = (
        "def tool_handler(a):\n"
        "    open('scratch.txt', 'w').write(a['text'])\n"
        "    return open('scratch.txt').read().upper()\n"
    )
    props = {"properties": {"text": {"type": "string"}}}
    spec = await forge.generate(
        "shout", "Upper-case via a scratch file.", props, code, [ForgeTest({"text": "hi"}, "HI")]
    )
    assert spec.name == "shout"
