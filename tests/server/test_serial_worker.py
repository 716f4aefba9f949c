"""The folder's worker: calls in order, and whether it is idle (the keystroke settle
waits for that, so it never holds the thread while a request waits for its answer)."""

from __future__ import annotations

import asyncio
import threading

from codekeep.hosting.worker import SerialWorker


async def test_idle_only_when_nothing_is_queued_running_or_unanswered() -> None:
    worker = SerialWorker("test-worker")
    try:
        assert worker.idle
        gate = threading.Event()
        worker.post(gate.wait)  # a notification's call, still running
        assert not worker.idle
        answer = asyncio.ensure_future(worker.run(lambda: 42))  # a request behind it
        await asyncio.sleep(0.01)
        assert not worker.idle
        gate.set()
        assert await answer == 42
        assert worker.idle  # the posted call ran first (FIFO), the answer is back
    finally:
        worker.close()


async def test_a_failing_call_leaves_the_worker_idle() -> None:
    worker = SerialWorker("test-worker")
    try:
        worker.post(lambda: 1 / 0, what="divide")  # logged, not raised
        done = asyncio.ensure_future(worker.run(lambda: "after"))
        assert await done == "after"
        assert worker.idle
    finally:
        worker.close()
