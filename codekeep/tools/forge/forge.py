"""ToolForge: make temporary tools at run time (reuse, compose, and — if enabled — generate).

* ``reuse``: an existing tool with some arguments fixed; the rest stay parameters.
* ``compose``: steps run in order (later arguments may reference earlier results, e.g.
  ``"$steps[0].data.symbols[0].path"``, or the tool's own ``"$args.name"``) or all at
  once with their results merged. Every step runs through the pipeline, so each is
  allow-listed, safety-checked and audited like a direct call.
* ``generate``: model-written Python, off unless enabled, run only in the subprocess
  sandbox and registered only after its own test cases pass.

Forged tools expire after a TTL (default 30 minutes) and are allowed in a capability
only when every tool they run is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from codekeep.settings.tools import ToolSettings
from codekeep.tools.context import ToolContext
from codekeep.tools.forge.references import (
    ReferenceResolutionError,
    references_in,
    resolve,
    step_index,
)
from codekeep.tools.forge.sandbox import SandboxError, run_sandboxed
from codekeep.tools.normalize import ArgumentError, normalise_arguments
from codekeep.tools.pipeline import ToolPipeline
from codekeep.tools.registry import DuplicateToolError, ToolRegistry
from codekeep.tools.result import FileSpan, ToolError, ToolOutput, ToolRefusedError, ToolResult
from codekeep.tools.spec import JSON_SCHEMA_DRAFT, ToolSpec, is_snake_case

FORGED_CATEGORY = "forged"
FORGE_TOOL = "forge_tool"
Mode = Literal["sequential", "parallel"]


class ForgeError(ValueError):
    """The tool cannot be forged; the message says what to fix."""


@dataclass(frozen=True, slots=True)
class Step:
    tool: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ForgeTest:
    arguments: Mapping[str, Any]
    expected: Any


class ToolForge:
    def __init__(
        self, registry: ToolRegistry, pipeline: ToolPipeline, settings: ToolSettings
    ) -> None:
        self.registry = registry
        self.pipeline = pipeline
        self.settings = settings

    # -- reuse ----------------------------------------------------------------------------
    def reuse(
        self,
        name: str,
        base: str,
        preset: Mapping[str, Any],
        description: str | None = None,
        ttl_seconds: float | None = None,
    ) -> ToolSpec:
        """``base`` with ``preset`` arguments fixed; the remaining parameters stay open."""
        spec = self._existing(base)
        try:
            fixed = normalise_arguments(spec, preset)
        except ArgumentError as exc:
            raise ForgeError(str(exc)) from None
        unknown = sorted(set(fixed) - set(spec.properties))
        if unknown:
            raise ForgeError(
                f"{base} has no parameters {unknown}; it takes {sorted(spec.properties)}"
            )
        errors = [
            e.message
            for key, value in fixed.items()
            for e in Draft202012Validator(spec.properties[key]).iter_errors(value)
        ]
        if errors:
            raise ForgeError(f"preset arguments for {base} are invalid: {'; '.join(errors)}")
        parameters = _schema(
            {k: v for k, v in spec.properties.items() if k not in fixed},
            [r for r in spec.parameters.get("required", []) if r not in fixed],
        )
        pipeline = self.pipeline

        async def handler(ctx: ToolContext, **arguments: Any) -> ToolOutput:
            result = await pipeline.execute(spec.name, {**arguments, **fixed}, ctx)
            return _passthrough(result)

        text = description or f"{spec.description} (with {_describe(fixed)})"
        forged = self._spec(
            name,
            text,
            handler,
            parameters,
            spec.read_only,
            {spec.name} | (spec.forged_from or set()),
        )
        forged.path_params = {k: v for k, v in spec.path_params.items() if k not in fixed}
        return self._register(forged, ttl_seconds)

    # -- compose --------------------------------------------------------------------------
    def compose(
        self,
        name: str,
        description: str,
        steps: Sequence[Step],
        mode: Mode = "sequential",
        parameters: Mapping[str, Any] | None = None,
        ttl_seconds: float | None = None,
    ) -> ToolSpec:
        """Run ``steps`` as one tool; see the module docstring for references."""
        if not steps:
            raise ForgeError("a composed tool needs at least one step")
        specs = [self._existing(step.tool) for step in steps]
        schema = self._parameters(parameters)
        for index, step in enumerate(steps):
            try:
                refs = references_in(dict(step.args))
            except ReferenceResolutionError as exc:
                raise ForgeError(f"step {index} ({step.tool}): {exc}") from None
            for ref in refs:
                target = step_index(ref)
                if target is None:
                    continue
                if mode == "parallel":
                    raise ForgeError(f"step {index}: parallel steps cannot reference {ref}")
                if target >= index:
                    raise ForgeError(f"step {index}: {ref} refers to a step that has not run yet")
        pipeline = self.pipeline
        frozen = [Step(s.tool, dict(s.args)) for s in steps]

        async def handler(ctx: ToolContext, **arguments: Any) -> ToolOutput:
            if mode == "parallel":
                results = await asyncio.gather(
                    *(pipeline.execute(s.tool, resolve(s.args, [], arguments), ctx) for s in frozen)
                )
                return _merge(frozen, list(results))
            done: list[ToolResult] = []
            for index, step in enumerate(frozen):
                try:
                    step_args = resolve(step.args, [_view(r) for r in done], arguments)
                except ReferenceResolutionError as exc:
                    raise ToolError(f"step {index} ({step.tool}): {exc}", rule="forge") from None
                result = await pipeline.execute(step.tool, step_args, ctx)
                done.append(result)
                if not result.ok:
                    break
            return _merge(frozen, done)

        read_only = all(s.read_only for s in specs)
        used = set().union(*({s.name} | (s.forged_from or set()) for s in specs))
        return self._register(
            self._spec(name, description, handler, schema, read_only, used), ttl_seconds
        )

    # -- generate -------------------------------------------------------------------------
    async def generate(
        self,
        name: str,
        description: str,
        parameters: Mapping[str, Any] | None,
        code: str,
        tests: Sequence[ForgeTest],
        ttl_seconds: float | None = None,
    ) -> ToolSpec:
        """Register model-written ``tool_handler(args)`` once it passes ``tests`` in the sandbox."""
        if not self.settings.forge_generate:
            raise ForgeError(
                "generating tools from code is disabled; set tools.forgeGenerate = true in "
                ".codekeep/config.toml or CODEKEEP_FORGE_GENERATE=1 to enable it"
            )
        if not tests:
            raise ForgeError("a generated tool needs at least one test case")
        schema = self._parameters(parameters)
        validator = Draft202012Validator(schema)
        for index, case in enumerate(tests):
            problems = [e.message for e in validator.iter_errors(dict(case.arguments))]
            if problems:
                raise ForgeError(
                    f"test {index} arguments do not match the parameters: {'; '.join(problems)}"
                )
        timeout = self.settings.sandbox_timeout
        try:
            outcomes = await run_sandboxed(code, [dict(c.arguments) for c in tests], timeout)
        except SandboxError as exc:
            raise ForgeError(str(exc)) from None
        for index, (case, outcome) in enumerate(zip(tests, outcomes, strict=True)):
            if not outcome.ok:
                raise ForgeError(f"test {index} failed: {outcome.error}")
            if outcome.value != case.expected:
                raise ForgeError(
                    f"test {index} failed: expected {case.expected!r}, got {outcome.value!r}"
                )

        async def handler(ctx: ToolContext, **arguments: Any) -> ToolOutput:
            try:
                (outcome,) = await run_sandboxed(code, [arguments], timeout)
            except SandboxError as exc:
                raise ToolError(str(exc), rule="sandbox") from None
            if not outcome.ok:
                raise ToolError(outcome.error or "the generated tool failed", rule="sandbox")
            return ToolOutput(data=outcome.value)

        # It runs no other tool; it is allowed wherever forging itself is allowed.
        spec = self._spec(name, description, handler, schema, True, {FORGE_TOOL})
        return self._register(spec, ttl_seconds)

    # -- helpers --------------------------------------------------------------------------
    def _existing(self, name: str) -> ToolSpec:
        spec = self.registry.get(name)
        if spec is None:
            raise ForgeError(f"there is no tool named {name!r} to build on")
        return spec

    def _parameters(self, parameters: Mapping[str, Any] | None) -> dict[str, Any]:
        schema = {
            "$schema": JSON_SCHEMA_DRAFT,
            "type": "object",
            "properties": {},
            **(parameters or {}),
        }
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            raise ForgeError(f"parameters are not a valid JSON Schema: {exc.message}") from None
        if schema.get("type") != "object":
            raise ForgeError("parameters must describe an object")
        return schema

    def _spec(
        self,
        name: str,
        description: str,
        handler: Any,
        parameters: dict[str, Any],
        read_only: bool,
        forged_from: set[str] | frozenset[str],
    ) -> ToolSpec:
        if not is_snake_case(name):
            raise ForgeError(f"tool name {name!r} must be snake_case")
        if not description.strip():
            raise ForgeError("a forged tool needs a description")
        return ToolSpec(
            name=name,
            description=" ".join(description.split()),
            category=FORGED_CATEGORY,
            handler=handler,
            parameters=parameters,
            read_only=read_only,
            compression="text",
            forged_from=frozenset(forged_from),
        )

    def _register(self, spec: ToolSpec, ttl_seconds: float | None) -> ToolSpec:
        try:
            return self.registry.register_temporary(
                spec, ttl_seconds or self.settings.forge_ttl_seconds
            )
        except DuplicateToolError:
            raise ForgeError(
                f"{spec.name!r} is already a built-in tool; pick another name"
            ) from None


def _schema(properties: Mapping[str, Any], required: list[str]) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "$schema": JSON_SCHEMA_DRAFT,
        "type": "object",
        "properties": dict(properties),
        "additionalProperties": False,
    }
    if required:
        schema["required"] = required
    return schema


def _describe(fixed: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in fixed.items())


def _view(result: ToolResult) -> dict[str, Any]:
    """What a later step may reference from an earlier one."""
    return {"ok": result.ok, "data": result.data, "content": result.content, "files": result.files}


def _passthrough(result: ToolResult) -> ToolOutput:
    if result.refused is not None:
        raise ToolRefusedError(result.rule or "forge", result.refused)
    if not result.ok:
        raise ToolError(result.content, rule=result.rule or "forge")
    return ToolOutput(
        data=result.data,
        text=result.content,
        files=list(result.files),
        files_read=dict(result.files_read),
        query=result.query,
        spans=result.spans,
    )


def _merge(steps: Sequence[Step], results: Sequence[ToolResult]) -> ToolOutput:
    """One output for a composed call: each step's content under a heading, data in order."""
    failed = next((i for i, r in enumerate(results) if not r.ok), None)
    sections = [
        f"## step {i}: {s.tool}\n{r.content}"
        for i, (s, r) in enumerate(zip(steps, results, strict=False))
    ]
    spans: list[FileSpan] = []
    offset = 0
    for section, result in zip(sections, results, strict=False):
        body = offset + len(section) - len(result.content)  # the step's text follows its heading
        spans += [FileSpan(s.path, s.start + body, s.end + body) for s in result.spans]
        offset += len(section) + 2
    if failed is not None:
        raise ToolError(
            "\n\n".join(sections) + f"\n\nstep {failed} ({steps[failed].tool}) failed", rule="forge"
        )
    files_read: dict[str, int] = {}
    for result in results:
        for path, chars in result.files_read.items():
            files_read[path] = files_read.get(path, 0) + chars
    return ToolOutput(
        data={
            "steps": [{"tool": s.tool, "data": r.data} for s, r in zip(steps, results, strict=True)]
        },
        text="\n\n".join(sections),
        files=list(dict.fromkeys(f for r in results for f in r.files)),
        files_read=files_read,
        spans=tuple(spans),
    )
