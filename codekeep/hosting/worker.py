"""A single thread per workspace that runs every call into its services, in order.

The services (code map, memory, ledger) are synchronous and own SQLite connections,
which belong to the thread that opened them. Running all of a workspace's calls on
one dedicated thread gives three properties at once: the event loop never blocks on
parsing or SQL, edits are applied strictly in the order the editor sent them (so a
request that follows a ``didChange`` sees the edit), and a request that is cancelled
before its turn never runs at all.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

logger = logging.getLogger(__name__)


class SerialWorker:
    """A FIFO of calls executed on one named thread."""

    def __init__(self, name: str) -> None:
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix=name
        )
        self._closed = False
        self._lock = threading.Lock()
        self._unfinished = 0  # calls queued or running, and requests not yet answered

    @property
    def idle(self) -> bool:
        """Nothing queued or running, and every awaited result back with the task that
        awaits it: work that may wait (settling a keystroke's facts) can start without
        delaying anyone — once that task's answer is written, which its handler queues
        as it ends (the settle looks again after the loop's queued callbacks)."""
        return self._unfinished == 0

    def _count(self, delta: int) -> None:
        with self._lock:
            self._unfinished += delta

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Queue ``fn(*args)`` and await its result.

        Cancelling the awaiting task cancels the call if it has not started yet. The
        call counts as unfinished until its result is back with the awaiting task.
        """
        self._count(1)
        try:
            return await asyncio.wrap_future(self._executor.submit(fn, *args))
        finally:
            self._count(-1)

    def post(self, fn: Callable[..., Any], *args: Any, what: str = "") -> None:
        """Queue ``fn(*args)`` without waiting; a failure is logged, never raised.

        Used by notifications (``didChange`` ...), which have nobody to answer to.
        """
        if self._closed:
            return
        label = what or fn.__name__

        def finished(done: concurrent.futures.Future[Any]) -> None:
            self._count(-1)
            _log_failure(done, label)

        self._count(1)
        try:
            future = self._executor.submit(fn, *args)
        except RuntimeError:  # shut down meanwhile (by another thread)
            self._count(-1)
            raise
        future.add_done_callback(finished)

    def close(self) -> None:
        """Finish the queued calls, then stop the thread."""
        self._closed = True
        self._executor.shutdown(wait=True, cancel_futures=False)


def _log_failure(future: concurrent.futures.Future[Any], what: str) -> None:
    if future.cancelled():
        return
    error = future.exception()
    if error is not None:
        logger.error("%s failed: %s", what, error, exc_info=error)
