"""The execution pipeline: every tool call runs through the same chain of middlewares.

Default order (``before`` hooks, then the handler, then ``after`` hooks, both in list
order): allow-list gate -> argument normalisation/validation -> safety gate -> cache
check -> [handler] -> observation record -> exploration signal -> trace ->
duplicate-write check -> audit log. A ``before`` hook returning a result stops the
chain (refusal or cache hit); ``after`` hooks still run so refused calls are observed
and audited. Nothing here raises for a bad call: the model gets a structured result.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from codekeep.tools.compress import compress_output
from codekeep.tools.context import ServiceUnavailableError, ToolContext
from codekeep.tools.middleware import default_middlewares
from codekeep.tools.middleware.contract import ToolCall, ToolMiddleware
from codekeep.tools.registry import ToolRegistry
from codekeep.tools.result import (
    ToolError,
    ToolOutput,
    ToolRefusedError,
    ToolResult,
    failure,
    refusal,
)
from codekeep.tools.safety.commands import CommandRefusedError
from codekeep.tools.safety.paths import PathRefusedError

if TYPE_CHECKING:
    from codekeep.tools.audit import AuditLog

log = logging.getLogger(__name__)


class BegunCall(NamedTuple):
    """A call past its ``before`` hooks (:meth:`ToolPipeline.begin`)."""

    call: ToolCall
    stopped: ToolResult | None  # a refusal or a cache hit: the handler will not run
    started: float  # perf_counter at the start, for the result's duration


class ToolPipeline:
    def __init__(self, registry: ToolRegistry, middlewares: Sequence[ToolMiddleware]) -> None:
        self.registry = registry
        self.middlewares = list(middlewares)

    @classmethod
    def default(
        cls,
        registry: ToolRegistry,
        audit: AuditLog | None = None,
        extra_after: Sequence[ToolMiddleware] = (),
    ) -> ToolPipeline:
        """The standard chain; ``extra_after`` middlewares run after the trace, before audit."""
        return cls(registry, default_middlewares(registry, audit=audit, extra_after=extra_after))

    def schemas(self, ctx: ToolContext) -> list[dict[str, Any]]:
        """The schemas to send with the next model request: core set + tools loaded so far."""
        return self.registry.schemas(ctx.capability, loaded=ctx.state.loaded)

    async def execute(
        self,
        name: str,
        arguments: dict[str, Any] | str | None,
        ctx: ToolContext,
        *,
        call_id: str | None = None,
    ) -> ToolResult:
        return await self.finish(await self.begin(name, arguments, ctx, call_id=call_id), ctx)

    async def begin(
        self,
        name: str,
        arguments: dict[str, Any] | str | None,
        ctx: ToolContext,
        *,
        call_id: str | None = None,
    ) -> BegunCall:
        """The ``before`` hooks: the call with its normalised arguments, and the result
        that stopped the chain (a refusal or a cache hit) if one did. A caller that must
        prepare something for the handler off this thread (the agent sends a recall's
        embeddings from its event loop, never from the folder's worker) does it between
        :meth:`begin` and :meth:`finish`, and only when the handler will run."""
        if not isinstance(name, str):
            name = repr(name)  # a malformed tool call still gets a refusal, not a TypeError
        call = ToolCall(
            name=name,
            raw_arguments=arguments,
            call_id=call_id or uuid.uuid4().hex[:12],
            spec=self.registry.get(name),
        )
        started = time.perf_counter()
        for middleware in self.middlewares:
            try:
                result = await middleware.before(call, ctx)
            except Exception as exc:  # a gate that breaks must block, not crash the agent
                log.exception("tool middleware %s failed before %s", middleware.name, call.name)
                result = refusal(
                    call.name, middleware.name, f"the {middleware.name} check failed: {exc}"
                )
            if result is not None:
                return BegunCall(call, result, started)
        return BegunCall(call, None, started)

    async def finish(self, begun: BegunCall, ctx: ToolContext) -> ToolResult:
        """The handler (unless the chain was stopped), then every ``after`` hook."""
        call = begun.call
        result = begun.stopped or await self._run_handler(call, ctx)
        result.duration_ms = (time.perf_counter() - begun.started) * 1000
        result.call_id = call.call_id
        ctx.state.total_calls += 1
        for middleware in self.middlewares:
            try:
                await middleware.after(call, result, ctx)
            except Exception:  # one broken observer must not lose the result or the audit
                log.exception("tool middleware %s failed after %s", middleware.name, call.name)
        return result

    async def _run_handler(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        spec = call.spec
        if spec is None:  # only reachable without the allow-list gate
            return refusal(call.name, "allowlist", f"unknown tool {call.name!r}")
        try:
            output = await spec.handler(ctx, **call.arguments)
        except (PathRefusedError, CommandRefusedError, ToolRefusedError) as exc:
            return refusal(spec.name, exc.rule, exc.reason)  # handlers re-check; still a refusal
        except ToolError as exc:
            return failure(spec.name, exc.rule, str(exc))
        except ServiceUnavailableError as exc:
            return failure(spec.name, "service", str(exc))
        except Exception as exc:  # a handler bug is reported to the model, never raised
            log.exception("tool %s failed", spec.name)
            return failure(spec.name, "exception", f"{type(exc).__name__}: {exc}")
        if not isinstance(output, ToolOutput):
            output = ToolOutput(data=output)
        content, dropped, spans = compress_output(spec, output, call.arguments, ctx.settings)
        return ToolResult(
            tool=spec.name,
            ok=True,
            content=content,
            data=output.data,
            files=list(output.files),
            files_read=dict(output.files_read),
            query=output.query,
            spans=spans,
            dropped=dropped,
        )
