"""One thread per knowledge base that embeds new chunks after a save or a disk change.

A saved page is re-chunked on the caller's thread — in the server that is the folder's
worker, the thread that applies keystrokes — because chunking is quick and the next
search must see the new text. Embedding the new chunks is not quick (a remote endpoint,
or the CPU-bound local model), so the caller only wakes this thread and returns; the
chunks are searchable lexically at once and by meaning as soon as they are embedded.
Wakes that come while a run is going on make one more run, not one each.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

logger = logging.getLogger(__name__)


class BackgroundEmbedder:
    def __init__(self, run: Callable[[], object], name: str = "codekeep-docs-embed") -> None:
        self._run = run
        self._name = name
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._stopped = False
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def wake(self) -> None:
        """Run once more soon, on the background thread (started on first use)."""
        with self._lock:
            if self._stopped:
                return
            self._idle.clear()
            self._wake.set()
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=self._name,
                                                daemon=True)
                self._thread.start()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """True once every wake so far has been served (or the embedder stopped)."""
        return self._idle.wait(timeout)

    def stop(self) -> None:
        """No more runs; one under way ends at its next check of the knowledge base."""
        with self._lock:
            self._stopped = True
            self._wake.set()

    def _loop(self) -> None:
        while True:
            self._wake.wait()
            with self._lock:
                if self._stopped:
                    self._idle.set()
                    return
                self._wake.clear()
            try:
                self._run()
            except Exception:  # a bug here must not kill the thread for good
                logger.exception("embedding new docs chunks failed")
            with self._lock:
                if not self._wake.is_set():
                    self._idle.set()
