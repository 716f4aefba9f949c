"""Remembering that the team database just failed, so implicit uses do not pay for it
again and again.

A host that is down answers fast, but one that silently drops packets costs a whole
connect timeout per attempt — on every recall and every background send. After a
failure, implicit uses (recall's team half, the background sender) skip the database
until ``retry_at``: 2 s after the first failure, doubling up to 5 minutes. The state is
kept in ``.codekeep/team_backoff.json`` too, so a CLI command started a second after
another one failed does not try again either. A command the user asked for explicitly
(``memory list --scope team``, ``ledger report --team``) always tries, and any success
clears the state.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from codekeep.common.atomic import write_atomically

BASE_S = 2.0
MAX_S = 300.0
FILE = "team_backoff.json"


@dataclass(frozen=True, slots=True)
class Failure:
    reason: str
    failures: int
    retry_at: float


class Backoff:
    def __init__(
        self,
        path: Path | None,
        clock: Callable[[], float] = time.time,
        base_s: float = BASE_S,
        max_s: float = MAX_S,
    ) -> None:
        self._path = path
        self._clock = clock
        self._base = base_s
        self._max = max_s
        self._lock = threading.Lock()
        self._failure = self._read()

    def _read(self) -> Failure | None:
        if self._path is None:
            return None
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
            return Failure(str(data["reason"]), int(data["failures"]), float(data["retryAt"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _write(self) -> None:
        if self._path is None:
            return
        try:
            if self._failure is None:
                self._path.unlink(missing_ok=True)
                return
            data = {"reason": self._failure.reason, "failures": self._failure.failures,
                    "retryAt": self._failure.retry_at}
            write_atomically(self._path, json.dumps(data).encode("utf-8"))
        except OSError:  # a read-only workspace: the in-process state still holds
            pass

    def waiting(self) -> str | None:
        """Why an implicit use should not try now (None: go ahead)."""
        with self._lock:
            failure = self._failure or self._read()
            self._failure = failure
            if failure is None:
                return None
            left = failure.retry_at - self._clock()
            if left <= 0:
                return None
            return f"{failure.reason} (next try in {left:.0f} s)"

    def failed(self, reason: str) -> None:
        with self._lock:
            count = (self._failure.failures if self._failure else 0) + 1
            delay = min(self._max, self._base * 2 ** (count - 1))
            self._failure = Failure(reason, count, self._clock() + delay)
            self._write()

    def succeeded(self) -> None:
        with self._lock:
            if self._failure is None and (self._path is None or not self._path.exists()):
                return
            self._failure = None
            self._write()
