"""Declaration, schema export, capability presets and progressive disclosure."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from jsonschema import Draft202012Validator
from jsonschema.validators import validator_for

from codekeep.tools import PRESETS, Param, ToolContext, ToolKit, ToolOutput, ToolRegistry, tool
from codekeep.tools.capabilities import DISCLOSURE_TOOLS, UnknownCapabilityError, capability
from codekeep.tools.registry import DuplicateToolError
from codekeep.tools.toolkit import default_registry


def test_every_schema_validates_against_the_draft_it_declares(kit: ToolKit) -> None:
    kit.forge.reuse("read_readme", "read_file", {"path": "README.md"})
    names = {spec.name for spec in kit.registry.all()}
    assert {"forge_tool", "read_readme", "load_tools", "run_command"} <= names
    for spec in kit.registry.all():
        schema = spec.parameters
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        cls = validator_for(schema)
        assert cls is Draft202012Validator
        cls.check_schema(schema)


def test_export_is_openai_function_calling_shape() -> None:
    for entry in default_registry().schemas("edit"):
        assert entry["type"] == "function"
        function = entry["function"]
        assert set(function) == {"name", "description", "parameters"}
        assert function["parameters"]["type"] == "object"
        assert function["description"].strip()


def test_schema_is_derived_from_the_signature() -> None:
    @tool(category="files", read_only=True)
    async def sample(
        ctx: ToolContext,
        path: Annotated[str, Param("A path.", path="read")],
        mode: Annotated[Literal["a", "b"], Param("Mode.")] = "a",
        limit: Annotated[int | None, Param("Limit.", schema={"minimum": 1})] = None,
        tags: Annotated[list[str], Param("Tags.")] = [],  # noqa: B006 - schema default only
    ) -> ToolOutput:
        """Do a sample thing."""
        return ToolOutput(data=None)

    props = sample.parameters["properties"]
    assert sample.parameters["required"] == ["path"]
    assert props["path"] == {"type": "string", "description": "A path."}
    assert props["mode"] == {
        "type": "string",
        "enum": ["a", "b"],
        "description": "Mode.",
        "default": "a",
    }
    assert props["limit"] == {"type": "integer", "description": "Limit.", "minimum": 1}
    assert props["tags"]["type"] == "array" and props["tags"]["items"] == {"type": "string"}
    assert sample.path_params == {"path": "read"}
    assert sample.description == "Do a sample thing."
    assert sample.parameters["additionalProperties"] is False


def test_declaration_errors_are_caught_at_import_time() -> None:
    with pytest.raises(ValueError, match="snake_case"):

        @tool(category="x", read_only=True, name="ReadFile")
        async def bad(ctx: ToolContext) -> None:
            """Doc."""

    with pytest.raises(TypeError, match="async"):
        tool(category="x", read_only=True)(lambda ctx: None)  # type: ignore[arg-type]

    with pytest.raises(TypeError, match="Param"):

        @tool(category="x", read_only=True)
        async def undocumented(ctx: ToolContext, value: int) -> None:
            """Doc."""


def test_duplicate_names_are_refused() -> None:
    registry = default_registry()
    with pytest.raises(DuplicateToolError):
        registry.register(registry.get("read_file"))  # type: ignore[arg-type]


def test_lookup_accepts_camel_case_spelling() -> None:
    registry = default_registry()
    spec = registry.get("readFile")
    assert spec is not None and spec.name == "read_file"


def test_capability_presets_only_expose_their_allow_list() -> None:
    registry = default_registry()
    explore = {s["function"]["name"] for s in registry.schemas("explore")}
    edit = {s["function"]["name"] for s in registry.schemas("edit")}
    assert "write_file" not in explore and "run_command" not in explore
    assert {"write_file", "run_command"} <= edit
    assert explore <= PRESETS["explore"].tools
    chat = {s["function"]["name"] for s in registry.schemas("chat")}
    assert "run_command" not in chat
    with pytest.raises(UnknownCapabilityError, match="choose one of"):
        capability("root")


def test_progressive_disclosure_starts_small(kit: ToolKit) -> None:
    ctx = kit.context("t", "edit")
    names = {s["function"]["name"] for s in kit.pipeline.schemas(ctx)}
    assert names == set(PRESETS["edit"].core) & set(kit.registry.names())
    assert names >= DISCLOSURE_TOOLS
    assert len(names) < len(kit.registry.allowed_names("edit"))


async def test_load_tools_discloses_a_category(kit: ToolKit) -> None:
    ctx = kit.context("t", "edit")
    result = await kit.pipeline.execute("list_tool_categories", {}, ctx)
    assert result.ok and "files:" in result.content
    result = await kit.pipeline.execute("load_tools", {"category": "files"}, ctx)
    assert result.ok
    assert "list_files" in ctx.state.loaded
    names = {s["function"]["name"] for s in kit.pipeline.schemas(ctx)}
    assert "list_files" in names
    bad = await kit.pipeline.execute("load_tools", {"category": "weapons"}, ctx)
    assert not bad.ok and "categories you can load" in bad.content


async def test_search_tools_finds_and_loads(kit: ToolKit) -> None:
    ctx = kit.context("t", "edit")
    result = await kit.pipeline.execute("search_tools", {"query": "list files directory"}, ctx)
    assert result.ok and "list_files" in result.data["loaded"]
    assert "list_files" in {s["function"]["name"] for s in kit.pipeline.schemas(ctx)}


async def test_search_tools_respects_the_capability(kit: ToolKit) -> None:
    ctx = kit.context("t", "explore")
    result = await kit.pipeline.execute("search_tools", {"query": "write file"}, ctx)
    assert "write_file" not in (result.data or {}).get("loaded", [])


def test_temporary_tools_expire() -> None:
    now = [100.0]
    registry = ToolRegistry(clock=lambda: now[0])

    @tool(category="forged", read_only=True)
    async def shortlived(ctx: ToolContext) -> ToolOutput:
        """Temporary."""
        return ToolOutput(data=1)

    registry.register_temporary(shortlived, ttl_seconds=60)
    assert registry.get("shortlived") is shortlived
    now[0] += 59
    assert "shortlived" in registry.names()
    now[0] += 2
    assert registry.get("shortlived") is None
    assert "shortlived" not in registry.names()


async def test_schema_may_be_written_beside_the_handler(kit: ToolKit) -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"word": {"type": "string", "description": "A word.", "minLength": 1}},
        "required": ["word"],
        "additionalProperties": False,
    }

    @tool(category="files", read_only=True, parameters=schema, paths={"word": "read"})
    async def shout(ctx: ToolContext, word: str) -> ToolOutput:
        """Upper-case a word."""
        return ToolOutput(data=word.upper())

    assert shout.parameters is schema and shout.path_params == {"word": "read"}
    Draft202012Validator.check_schema(shout.parameters)
    kit.registry.register(shout)
    ctx = kit.context("t", "explore")
    refused = await kit.pipeline.execute("shout", {"word": "hi"}, ctx)
    assert refused.rule == "allowlist"  # not in any preset's allow list
    from codekeep.tools import ToolPipeline
    from codekeep.tools.middleware import ArgumentValidation, SafetyGate

    direct = ToolPipeline(kit.registry, [ArgumentValidation(), SafetyGate()])
    assert (await direct.execute("shout", {"word": "hi"}, ctx)).data == "HI"
    escape = await direct.execute("shout", {"word": "../x"}, ctx)
    assert escape.rule == "path.outside"
    bad = await direct.execute("shout", {"word": ""}, ctx)
    assert bad.rule == "arguments" and "should be non-empty" in bad.content
