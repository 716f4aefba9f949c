"""The ``before`` gates: allow list, argument normalisation/validation, safety."""

from __future__ import annotations

import difflib

from codekeep.tools.capabilities import DISCLOSURE_TOOLS
from codekeep.tools.context import ToolContext
from codekeep.tools.middleware.contract import ToolCall, ToolMiddleware
from codekeep.tools.normalize import (
    ArgumentError,
    normalise_arguments,
    parse_arguments,
    validate_arguments,
    with_defaults,
)
from codekeep.tools.registry import ToolRegistry
from codekeep.tools.result import ToolResult, failure, refusal
from codekeep.tools.safety.commands import CommandRefusedError
from codekeep.tools.safety.paths import PathRefusedError


class AllowlistGate(ToolMiddleware):
    """Unknown (hallucinated) or disallowed tools are refused, naming what may be called."""

    name = "allowlist"

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry

    async def before(self, call: ToolCall, ctx: ToolContext) -> ToolResult | None:
        spec = call.spec
        allowed = self.registry.allowed_names(ctx.capability)
        if spec is None:
            hint = _closest(call.name, allowed)
            return refusal(
                call.name,
                "allowlist",
                f"there is no tool named {call.name!r}{hint}. "
                f"Tools you can call: {', '.join(allowed)}",
                allowed=allowed,
            )
        if spec.name not in allowed:
            return refusal(
                spec.name,
                "allowlist",
                f"{spec.name} is not available in the {ctx.capability.name!r} capability. "
                f"Tools you can call: {', '.join(allowed)}",
                allowed=allowed,
            )
        if spec.name not in ctx.capability.core and spec.name not in DISCLOSURE_TOOLS:
            ctx.state.loaded.add(spec.name)  # calling a tool discloses it from now on
        return None


def _closest(name: str, names: list[str]) -> str:
    match = difflib.get_close_matches(name, names, n=1)
    return f" (did you mean {match[0]!r}?)" if match else ""


class ArgumentValidation(ToolMiddleware):
    """JSON string -> dict, names in the schema's spelling, validated, defaults filled in."""

    name = "arguments"

    async def before(self, call: ToolCall, ctx: ToolContext) -> ToolResult | None:
        assert call.spec is not None  # the allow-list gate runs first
        try:
            arguments = normalise_arguments(call.spec, parse_arguments(call.raw_arguments))
            validate_arguments(call.spec, arguments)
            arguments = with_defaults(call.spec, arguments)
        except ArgumentError as exc:
            return failure(call.spec.name, "arguments", str(exc))
        call.arguments = arguments
        return None


class SafetyGate(ToolMiddleware):
    """Path parameters go through the path guard, command parameters through the policy.

    Accepted paths are rewritten to their canonical workspace-relative form, so the
    cache, the dedup check and the handler all see one spelling of each file.
    """

    name = "safety"

    async def before(self, call: ToolCall, ctx: ToolContext) -> ToolResult | None:
        spec = call.spec
        assert spec is not None
        for param, access in spec.path_params.items():
            value = call.arguments.get(param)
            if value is None:
                continue
            try:
                call.arguments[param] = ctx.guard.relative(value, access)
            except PathRefusedError as exc:
                return refusal(spec.name, exc.rule, exc.reason, argument=param)
        if spec.command_param and spec.command_param in call.arguments:
            try:
                ctx.command_policy().check(call.arguments[spec.command_param])
            except CommandRefusedError as exc:
                return refusal(spec.name, exc.rule, exc.reason, argument=spec.command_param)
        return None
