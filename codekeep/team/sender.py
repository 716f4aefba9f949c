"""Ledger records reach the team database without anyone running ``report --team``.

:class:`TeamSender` is a daemon thread of a process that records calls (the language
server, an agent run): every ``ship_interval_s`` it drains the member's outbox (the
local ``ledger.db``, see :mod:`codekeep.team.ledger`) and checks the team's daily
budget, announcing each newly crossed threshold through the same listener local
budgets use (the server turns it into ``codekeep/budget`` + a warning). It never runs on
a caller's thread, so no command or keystroke waits for the network; while the database
is failing it backs off (:mod:`codekeep.team.backoff`) instead of paying a connect
timeout per attempt. On close, whatever is still queued is handed to a detached
``codekeep ledger ship`` (:func:`ship_later`), which short CLI commands that record calls
use too: nothing waits, nothing is lost, and a re-sent batch adds nothing.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from codekeep.ledger.ledger import Ledger
from codekeep.ledger.records import BudgetEvent
from codekeep.team.errors import TeamError
from codekeep.team.ledger import TeamLedger

log = logging.getLogger(__name__)

CLOSE_WAIT_S = 0.05  # how long close() lets a send in flight finish before leaving it


class TeamSender:
    def __init__(
        self,
        ledger: Ledger,
        team: TeamLedger,
        *,
        interval_s: float,
        daily_budget: int,
        warn_ratios: Sequence[float],
        on_budget: Callable[[BudgetEvent], None],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.ledger = ledger
        self.team = team
        self._interval = interval_s
        self._budget = daily_budget
        self._ratios = tuple(warn_ratios)
        self._on_budget = on_budget
        self._clock = clock
        self._stop = threading.Event()
        self._wake = threading.Event()
        self.last_error: str | None = None  # why the last round failed (None: it did not)
        self._thread = threading.Thread(target=self._loop, name="team-sender", daemon=True)

    def start(self) -> TeamSender:
        self._thread.start()
        return self

    def wake(self) -> None:
        """Look at the outbox now (instead of at the next interval)."""
        self._wake.set()

    def run_once(self) -> int:
        """One round: ship the outbox, then check the team budget; calls the team added."""
        try:
            added = self.team.ship(self.ledger, implicit=True)
            events = self.team.budget_crossings(self._budget, self._ratios, self._clock(),
                                                implicit=True)
        except TeamError as exc:
            if str(exc) != self.last_error:
                log.warning("team ledger: %s (calls stay queued)", exc)
            self.last_error = str(exc)
            return 0
        self.last_error = None
        for event in events:
            self._on_budget(event)
        return added

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.run_once()
            except Exception:  # a closed ledger or full disk must not kill the thread
                log.exception("team sender round failed; will retry")
            self._wake.wait(self._interval)
            self._wake.clear()

    def close(self, root: Path | None = None) -> None:
        """Stop, before the ledger closes, without waiting for the network. With
        ``root``: calls still queued are handed to a detached ``codekeep ledger ship``
        (unless the database is backing off after a failure — the next sender tries).
        A send still in flight is left to the daemon thread's fate: the detached sender
        waits for its turn, and an unacknowledged batch is simply sent again."""
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(CLOSE_WAIT_S)
        busy = self._thread.is_alive()
        try:
            if root is not None and self.team.db.backoff.waiting() is None and \
                    self.team.waiting(self.ledger):
                ship_later(root)
        finally:
            if not busy:  # a busy thread holds the connection: the exit closes it
                self.team.close()


def ship_later(root: Path) -> subprocess.Popen[bytes]:
    """Start a detached ``codekeep ledger ship`` for ``root`` and return without waiting
    (its own session: it outlives this process, and a terminal's Ctrl-C is not its)."""
    return subprocess.Popen(
        [sys.executable, "-m", "codekeep", "ledger", "ship", "--quiet", "--root", str(root)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, close_fds=True,
    )
