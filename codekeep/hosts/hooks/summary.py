"""The session's summary in memory, at Stop, PreCompact and SessionEnd.

Without a model (``codekeep.agent.model`` unset) or with ``codekeep.memory.modelSummaries``
off, memory's rule-written summary, as for our own agent's tasks. With one, the model
writes it from the same template and checks as our agent's summaries
(:func:`~codekeep.agent.memory_bridge.model_written_summary`), billed to the session's
ledger task (``claude-code:<session>``, call type
``summarize``), asked only when the session's budget has room, and only when the
backlog is worth a call (the 3× rule). A hook must not stall the session, so the call
gets no retries and a few seconds; any failure leaves the rule-written summary, with
the reason in the summary's history.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codekeep.agent.writer import ModelWriter
    from codekeep.hosts.hooks.events import HookCall
    from codekeep.ledger import Ledger

#: Seconds the summary call may take, inside the hook's own deadline.
MODEL_TIMEOUT_S = 3.0


def session_summary(call: HookCall) -> str | None:
    """Summarise what the session did since the last summary (always before a
    compaction and at the end; at Stop when enough happened); the summary's id."""
    memory = call.memory
    ending = call.event == "SessionEnd"
    force = ending or call.event == "PreCompact"
    if not _model_writes(call):
        return memory.end_task(call.task)["summaryId"] if ending else \
            memory.summarise(call.task, force=force)
    from codekeep.ledger import Ledger

    ledger = Ledger.open(call.root, call.settings.ledger, start_flusher=False)
    try:
        writer = _writer(call, ledger)
        if ending:
            memory.close_task_events(call.task)
        summary_id = _model_summary(call, writer, force=force)
        if ending:
            summary_id = memory.end_task(call.task)["summaryId"] or summary_id
        return summary_id
    finally:
        ledger.close()


def _model_writes(call: HookCall) -> bool:
    model = call.settings.agent.model
    return bool(model and model.strip()) and call.memory.settings.model_summaries


def _writer(call: HookCall, ledger: Ledger) -> ModelWriter:
    from codekeep.agent.accounting import LedgerAccounting
    from codekeep.agent.model_client import ModelClient
    from codekeep.agent.writer import ModelWriter

    settings = call.settings.agent
    quick = dataclasses.replace(settings, max_retries=0,
                                timeout=min(settings.timeout, MODEL_TIMEOUT_S),
                                connect_timeout=min(settings.connect_timeout, 1.0))
    return ModelWriter(ModelClient(quick), LedgerAccounting(ledger, call.task, quick.stream))


def _model_summary(call: HookCall, writer: ModelWriter, *, force: bool) -> str | None:
    from codekeep.agent.memory_bridge import model_written_summary, worth_a_call

    memory = call.memory
    backlog = memory.summary_backlog(call.task, force=force, cost=writer.summary_cost)
    if not backlog:
        return None
    if not worth_a_call(memory, writer, backlog):
        return memory.write_summary(call.task, backlog)

    async def ask() -> tuple[str | None, str | None]:
        try:
            return await model_written_summary(writer, call.task, backlog, call.root)
        finally:
            await writer.client.aclose()

    content, reason = asyncio.run(ask())
    return memory.write_summary(call.task, backlog, content, None if content else reason)
