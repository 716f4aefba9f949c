"""Task lifecycle: which task a call lands on.

The rule:

* A task is *open* until it is ended (``TaskSession`` exit / :meth:`TaskTracker.end`) or
  has had no activity for ``timeout`` seconds (default 5 minutes); then it is closed for
  good.
* ``task_id=None`` lands on the current task (the one of the innermost ``task()``
  session, or the last implicit one) while it is open; otherwise the adopted task
  continues (an editor's task, :meth:`TaskTracker.adopt`), or without one a new task
  ``task-YYYYmmdd-HHMMSS-xxxx`` is opened and becomes current.
* ``task_id="X"`` lands on the newest open incarnation of X. X unknown: task X is
  opened. X (and every continuation) closed: a continuation ``X#2`` (``#3`` …) is
  opened with ``parent = X``. Reports for X include its continuations, and so does a
  budget set for X (a budget set for ``X#2`` counts only ``X#2``).
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

from codekeep.ledger.store import LedgerStore, TaskRow


@dataclass(slots=True)
class _TaskState:
    id: str
    parent: str | None
    opened_ts: float
    last_ts: float
    closed_ts: float | None = None

    @property
    def root(self) -> str:
        return self.parent or self.id

    def row(self) -> TaskRow:
        return TaskRow(self.id, self.parent, self.opened_ts, self.last_ts, self.closed_ts)


class TaskTracker:
    """In-memory view of open tasks backed by the ``tasks`` table. Not thread-safe:
    the ledger calls it under its own lock."""

    def __init__(self, store: LedgerStore, timeout_s: float) -> None:
        self._store = store
        self._timeout = timeout_s
        self._states: dict[str, _TaskState] = {}
        self._latest: dict[str, _TaskState] = {}   # root -> newest incarnation
        self._families: set[str] = set()           # roots whose incarnations are loaded
        self._dirty: dict[str, _TaskState] = {}
        self._current: _TaskState | None = None
        self._adopted: str | None = None  # continued by calls without a task id

    def resolve(self, requested: str | None, now: float) -> str:
        """The id of the task a call made at ``now`` for ``requested`` belongs to."""
        if requested is None:
            current = self._current
            if current is None or not self._is_open(current, now):
                if self._adopted is not None:
                    current = self._states[self.resolve(self._adopted, now)]
                else:
                    current = self._open(self._generated_id(now), None, now)
                self._current = current
            self._touch(current, now)
            return current.id
        if not requested or not requested.strip():
            raise ValueError("task id must not be empty")
        known = self._lookup(requested)
        root = known.root if known else requested
        latest = self._newest(root)
        if latest is None:
            state = self._open(requested, None, now)
        elif self._is_open(latest, now):
            state = latest
        else:
            state = self._open(self._continuation_id(root), root, now)
        self._touch(state, now)
        return state.id

    def begin(self, requested: str | None, now: float) -> str:
        """Resolve ``requested`` and make it the current task (a ``task()`` session)."""
        task_id = self.resolve(requested, now)
        self._current = self._states[task_id]
        return task_id

    def adopt(self, requested: str | None, now: float) -> str:
        """Make ``requested`` (None: the current task, else a new one) current, and the
        task calls without a task id continue from now on, even after it closed (as
        ``X#2`` …): the task of an editor, whose budget and reports cover them all."""
        task_id = self.begin(requested, now)
        self._adopted = self.root_of(task_id)
        return task_id

    def end(self, task_id: str, now: float) -> None:
        """Close ``task_id`` explicitly; later calls for it open a continuation."""
        state = self._lookup(task_id)
        if state is None or state.closed_ts is not None:
            return
        state.closed_ts = now
        self._dirty[state.id] = state
        if self._current is state:
            self._current = None

    def root_of(self, task_id: str) -> str:
        state = self._states.get(task_id)
        return state.root if state else task_id

    def sweep(self, now: float) -> None:
        """Close idle tasks and forget closed ones already written (bounded memory)."""
        for state in list(self._states.values()):
            if state.closed_ts is None:
                self._is_open(state, now)
            elif state.id not in self._dirty and state is not self._current:
                del self._states[state.id]
                if self._latest.get(state.root) is state:
                    del self._latest[state.root]
                    self._families.discard(state.root)

    def take_dirty(self) -> list[TaskRow]:
        """Rows to write with the next flush (new tasks, activity, closures)."""
        rows = [state.row() for state in self._dirty.values()]
        self._dirty.clear()
        return rows

    # -- internals --------------------------------------------------------------------

    def _is_open(self, state: _TaskState, now: float) -> bool:
        if state.closed_ts is not None:
            return False
        if now - state.last_ts < self._timeout:
            return True
        stored = self._store.task(state.id)  # another process may have kept it busy
        if stored and stored.closed_ts is None and now - stored.last_ts < self._timeout:
            state.last_ts = stored.last_ts
            return True
        state.closed_ts = state.last_ts + self._timeout
        self._dirty[state.id] = state
        if self._current is state:
            self._current = None
        return False

    def _touch(self, state: _TaskState, now: float) -> None:
        if now > state.last_ts:
            state.last_ts = now
        self._dirty[state.id] = state

    def _open(self, task_id: str, parent: str | None, now: float) -> _TaskState:
        state = _TaskState(task_id, parent, now, now)
        self._remember(state)
        self._dirty[task_id] = state
        return state

    def _remember(self, state: _TaskState) -> None:
        self._states[state.id] = state
        latest = self._latest.get(state.root)
        if latest is None or state.opened_ts >= latest.opened_ts:
            self._latest[state.root] = state

    def _lookup(self, task_id: str) -> _TaskState | None:
        state = self._states.get(task_id)
        if state is None:
            row = self._store.task(task_id)
            if row is not None:
                state = _TaskState(row.id, row.parent, row.opened_ts, row.last_ts, row.closed_ts)
                self._remember(state)
        return state

    def _newest(self, root: str) -> _TaskState | None:
        """The newest incarnation of ``root``, loading its family from the database once."""
        if root not in self._families:
            for row in self._store.incarnations(root):
                if row.id not in self._states:
                    self._remember(_TaskState(row.id, row.parent, row.opened_ts, row.last_ts,
                                              row.closed_ts))
            self._families.add(root)
        return self._latest.get(root)

    def _continuation_id(self, root: str) -> str:
        number = len(self._store.incarnations(root)) + 1
        while True:
            candidate = f"{root}#{max(number, 2)}"
            if candidate not in self._states and self._store.task(candidate) is None:
                return candidate
            number += 1

    @staticmethod
    def _generated_id(now: float) -> str:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now))
        return f"task-{stamp}-{secrets.token_hex(2)}"
