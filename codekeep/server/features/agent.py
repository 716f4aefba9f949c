"""``codekeep/agent/run`` (and command ``codekeep.agent.run``): the agent in the editor.

The task runs on the server's event loop with the folder's own services (the one code
map, memory and ledger every feature uses); every service call it makes (tools, memory)
is sent to the folder's worker thread that owns them. While it runs the client gets
``$/progress`` (phase and step, then each tool call of the step as it completes:
"EXPLORE · step 2/24 · find_symbol"), ``codekeep/nudge`` and ``codekeep/budget``
notifications in the order they happen (budget crossings are announced by the ledger
feature's per-folder listener, like those of any other recorded call).
``$/cancelRequest`` cancels the task: the model call in flight is dropped, the ledger
is flushed and the task closed.
``taskId`` (optional) names the ledger task the run is charged to: an editor passes its
current task (``codekeep/ledger/task``) so the run counts against that task's budget
(a closed task continues as ``taskId#2`` …, which the budget of ``taskId`` covers).
Without a configured model the request fails with a message saying how to configure one;
every other feature keeps working. ``codekeep/agent/model`` ``{}`` -> ``{configured, model,
baseUrl}`` says which model a run would use (editor settings over the environment; the
key is never sent back), for health checks such as Neovim's ``:checkhealth codekeep``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from codekeep.agent.model_client import ModelError
from codekeep.agent.runner import build_loop
from codekeep.analysis.codemap import CodeMap
from codekeep.hosting.workspaces import WorkspaceHandle
from codekeep.ledger import Ledger
from codekeep.memory import MemoryService
from codekeep.server import params as p
from codekeep.server.app import CodeKeepServer
from codekeep.server.extensions import (
    CustomHandler,
    RequestFailed,
    custom_request,
    target_folder,
)
from codekeep.server.progress import WorkDoneProgress
from codekeep.settings.agent import ModelNotConfigured

logger = logging.getLogger(__name__)

CAPABILITIES = ("explore", "chat", "edit")
NUDGE_NOTIFICATION = "codekeep/nudge"


def _report_step(progress: WorkDoneProgress, payload: dict[str, Any],
                 detail: str = "") -> None:
    """"EXPLORE · step 2/24", plus " · find_symbol" while a tool call of it runs."""
    message = f"{payload['phase']} · step {payload['step']}/{payload['maxSteps']}"
    message += f" · {detail}" if detail else ""
    progress.report(message, min(100, payload["step"] * 100 // max(1, payload["maxSteps"])))


def _event_sink(
    server: CodeKeepServer, progress: WorkDoneProgress
) -> Callable[[str, dict[str, Any]], None]:
    def on_event(kind: str, payload: dict[str, Any]) -> None:
        if kind == "progress":
            if payload.get("done"):
                progress.end(f"{payload['stopReason']} after {payload['step']} steps")
            else:
                _report_step(progress, payload)
        elif kind == "tool":  # each call as it happens, so the editor can follow along
            _report_step(progress, payload, payload["name"])
        elif kind == "nudge":
            server.protocol.notify(
                NUDGE_NOTIFICATION,
                {"taskId": payload["taskId"], "type": payload["type"], "text": payload["text"]},
            )

    return on_event


@asynccontextmanager
async def held_stores(
    handle: WorkspaceHandle,
) -> AsyncIterator[tuple[CodeMap, MemoryService, Ledger]]:
    """The folder's stores for one task: a settings change arriving meanwhile does not
    replace memory or the ledger under it (applied once the task is over)."""
    stores = await handle.run(lambda services: services.hold_stores())
    try:
        yield stores
    finally:
        handle.post(lambda services: services.release_stores(), "agent task done")


async def agent_model(ls: CodeKeepServer, params: dict[str, Any]) -> dict[str, Any]:
    settings = target_folder(ls, params).settings.agent  # that folder's layers
    name = settings.model.strip() if settings.model else None
    return {"configured": bool(name), "model": name or None, "baseUrl": settings.base_url}


async def agent_run(ls: CodeKeepServer, params: dict[str, Any]) -> dict[str, Any]:
    task = p.required_str(params, "task")
    capability = p.optional_str(params, "capability") or "chat"
    if capability not in CAPABILITIES:
        raise p.InvalidParams(f"capability must be one of {', '.join(CAPABILITIES)}")
    budget = p.optional_int(params, "budget", minimum=1)
    task_id = p.optional_str(params, "taskId")
    handle = target_folder(ls, params)
    settings = handle.settings  # this folder's: its files, the editor's answer for it
    try:
        settings.agent.require_model()
    except ModelNotConfigured as error:
        raise RequestFailed(str(error)) from None
    docs = await handle.run(lambda services: services.docs)
    async with held_stores(handle) as (codemap, memory, ledger):
        progress = WorkDoneProgress(ls, "agent", f"CodeKeep agent: {task[:60]}")
        cancel = _canceller()
        loop = build_loop(
            handle.root,
            settings.agent,
            codemap=codemap,
            memory=memory,
            ledger=ledger,
            docs=docs,
            on_event=_event_sink(ls, progress),
            services_runner=functools.partial(_on_worker, handle),
            tool_settings=settings.tools,
        )
        try:
            await progress.begin(cancel)
            result = await loop.run(task, capability, task_id=task_id, token_budget=budget)
        except ModelError as error:
            raise RequestFailed(str(error)) from None
        finally:
            progress.end("finished")
            loop.toolkit.close()
    return result.to_json()


def _canceller() -> Callable[[], object]:
    """Cancel the running request's task from any thread: the progress's cancel button
    comes in on pygls' side and must end the task on the event loop."""
    running = asyncio.current_task()
    assert running is not None  # pygls runs every async handler as a task
    return functools.partial(asyncio.get_running_loop().call_soon_threadsafe, running.cancel)


async def _on_worker(handle: WorkspaceHandle, fn: Callable[[], Any]) -> Any:
    """The agent's service calls (tools, memory) run on the folder's worker thread."""
    return await handle.run(lambda _services: fn())


REQUESTS: tuple[tuple[str, CustomHandler], ...] = (
    ("agent/model", agent_model),
    ("agent/run", agent_run),
)


def register(server: CodeKeepServer) -> None:
    server.client_notifications.append(NUDGE_NOTIFICATION)
    for name, handler in REQUESTS:
        custom_request(server, name)(handler)
