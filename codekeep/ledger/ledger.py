"""The token ledger: every model call counted, attributed, budgeted and reported.

``record`` is on the agent's hot path, so it only computes and appends to an in-memory
buffer. The buffer
is written at least every ``flush_interval_s``: by the recording thread itself, in one
batch, when it is busy (a background writer competing for the GIL with a busy recorder
waits up to 5 ms for every row sqlite hands back, so it falls ever further behind), and
by a background thread when recording is idle. A budget crossing, ``flush()``,
``close()`` and interpreter exit write at once. A process killed with SIGKILL therefore
loses at most about one second of records.
"""

from __future__ import annotations

import atexit
import itertools
import logging
import secrets
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from codekeep.common.secrets import redact_text
from codekeep.common.workspace import state_dir
from codekeep.ledger.attribution import (
    CONTEXT_KEY,
    is_overhead,
    normalise_path,
    overhead_keys,
    split_tokens,
)
from codekeep.ledger.budgets import DAILY, DAILY_KEY, DAY, TASK, BudgetTracker, UsageKey, event_for
from codekeep.ledger.counting import resolve_usage
from codekeep.ledger.days import SECONDS_PER_DAY, Window, day_of, day_start
from codekeep.ledger.insight import REREAD_TASKS, Suggester, rereads, summary_warnings
from codekeep.ledger.prices import Bill, ModelInfo, ModelTable
from codekeep.ledger.records import (
    BudgetEvent,
    BudgetExceeded,
    CallRecord,
    ErrorEvent,
    classify_call_type,
)
from codekeep.ledger.reports import (
    build_report,
    estimated_warning,
    host_rows,
    unpriced_warning,
)
from codekeep.ledger.store import (
    GROUP_COLUMNS,
    HOSTS,
    Advance,
    Budget,
    Claim,
    FoldCounts,
    LedgerStore,
    LogMark,
    TaskRow,
    Totals,
)
from codekeep.ledger.tasks import TaskTracker
from codekeep.settings.ledger import LedgerSettings

log = logging.getLogger(__name__)

DB_NAME = "ledger.db"
COMPACT_EVERY_S = 3600.0
IDLE_BEFORE_BACKGROUND_FLUSH_S = 0.05
GROUPS = tuple(group for group in GROUP_COLUMNS if group != "total")

BudgetListener = Callable[[BudgetEvent], None]


@dataclass(frozen=True, slots=True)
class ImportedCall:
    """A call read from another agent's usage log (see :mod:`codekeep.ledger.importers`).

    ``files`` maps each file whose text the prompt carried to its weight (tokens), the
    rest of the prompt weighs ``context`` (its system prompt, tool schemas and
    conversation, which the log does not break down): the input is split over both as
    for our own agent's calls, and each part is billed its share of the input's cost.
    """

    source_id: str        # stable id in the source log: importing twice adds nothing
    ts: float
    task_id: str
    session_id: str
    model: str
    bill: Bill
    reasoning_tokens: int = 0  # thinking, part of the output
    call_type: str = "other"
    files: Mapping[str, int] = field(default_factory=dict)
    fresh: frozenset[str] = frozenset()  # files whose text this call's prompt carries first

    @property
    def input_tokens(self) -> int:
        return self.bill.input_tokens

    @property
    def output_tokens(self) -> int:
        return self.bill.output_tokens


@dataclass(slots=True)
class LogRead:
    """What a log reader found past a fold's mark (see :meth:`Ledger.fold`)."""

    calls: list[ImportedCall] = field(default_factory=list)
    errors: list[ErrorEvent] = field(default_factory=list)
    mark: LogMark | None = None


@dataclass(frozen=True, slots=True)
class _Batch:
    """Records, task rows and budget claims handed from the recorder to the writer."""

    calls: list[CallRecord]
    claims: list[Claim]
    tasks: list[TaskRow]

    def tokens_by_key(self) -> dict[UsageKey, int]:
        tokens: dict[UsageKey, int] = {}
        for call in self.calls:
            spent = call.input_tokens + call.output_tokens
            keys: tuple[UsageKey, ...] = ((TASK, call.task_id), (DAY, call.day))
            if call.task_root != call.task_id:
                keys += ((TASK, call.task_root),)
            for key in keys:
                tokens[key] = tokens.get(key, 0) + spent
        return tokens


@dataclass(frozen=True, slots=True)
class ImportResult:
    imported: int
    duplicates: int  # seen before (those with more output than booked added only that)


class Ledger:
    """One workspace's ledger (``<root>/.codekeep/ledger.db``). Thread-safe."""

    def __init__(self, root: Path, store: LedgerStore, settings: LedgerSettings,
                 clock: Callable[[], float], start_flusher: bool) -> None:
        self.root = root
        self.settings = settings
        self.session_id = f"s-{secrets.token_hex(4)}"
        self._store = store
        self._clock = clock
        self._models = ModelTable.with_overrides(settings.models)
        self._lock = threading.RLock()
        self._flush_lock = threading.Lock()
        self._buffer: list[CallRecord] = []
        self._claims: list[Claim] = []
        self._outbox: deque[_Batch] = deque()
        self._wake = threading.Event()
        self._handoff_due = time.monotonic() + settings.flush_interval_s
        self._last_record = 0.0
        self._tasks = TaskTracker(store, settings.task_idle_timeout_s)
        self._budgets = BudgetTracker(store, settings.warn_ratios)
        self._listeners: list[BudgetListener] = []
        self._paths: dict[str, str] = {}
        self._ids = itertools.count()
        self._id_prefix = f"{secrets.token_hex(5)}-"
        self._closed = False
        self._stop = threading.Event()
        self._last_compaction = 0.0
        self.compact()
        self._flusher: threading.Thread | None = None
        if start_flusher:
            self._flusher = threading.Thread(target=self._flush_loop, name="ledger-flush",
                                             daemon=True)
            self._flusher.start()
        atexit.register(self.close)

    @classmethod
    def open(cls, root: Path, settings: LedgerSettings | None = None, *,
             clock: Callable[[], float] = time.time, start_flusher: bool = True) -> Ledger:
        """Open (creating if needed) the ledger of workspace ``root``.

        ``clock`` is injectable so tests can age tasks without sleeping; without the
        background flusher (``start_flusher=False``) records are written on ``flush()``,
        a budget crossing and ``close()`` only.
        """
        root = Path(root).resolve()
        store = LedgerStore(state_dir(root) / DB_NAME)
        return cls(root, store, settings or LedgerSettings(), clock, start_flusher)

    # -- recording --------------------------------------------------------------------

    def model_info(self, model: str) -> ModelInfo:
        """Encoding, context window and prices, including settings overrides."""
        return self._models.lookup(model)

    def record(
        self,
        *,
        task_id: str | None,
        call_type: str,
        model: str,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        cached_tokens: int = 0,
        reasoning_tokens: int = 0,
        prompt_text: str | None = None,
        completion_text: str | None = None,
        files: Mapping[str, int] | None = None,
        overhead: Mapping[str, int] | None = None,
        fresh: Iterable[str] = (),
        latency_ms: float = 0.0,
        retry: int = 0,
        stream: bool = False,
        session_id: str | None = None,
    ) -> CallRecord:
        """Count one model call (every retry and every streamed call is its own record).

        Reported ``input_tokens``/``output_tokens`` win over counting the texts; cached
        tokens are the part of the input served from the provider's cache, reasoning
        tokens the part of the output spent thinking. ``files`` maps each path whose text
        the prompt carries to those characters; ``overhead`` maps the buckets ``system``,
        ``tools`` and ``conversation`` to the prompt's other characters, so the input is
        split over both and the by-file report adds up to the total. ``fresh`` names the
        files whose text the prompt carries for the first time (this call *read* them):
        the report's re-read insight counts those. Raises ``ValueError``
        for bad input (nothing is stored) and :class:`BudgetExceeded` after storing a call
        over a hard-stop budget.
        """
        if not model:
            raise ValueError("model must be named")
        info = self._models.lookup(model)
        usage = resolve_usage(
            encoding=info.encoding, input_tokens=input_tokens, output_tokens=output_tokens,
            cached_tokens=cached_tokens, reasoning_tokens=reasoning_tokens,
            prompt_text=prompt_text, completion_text=completion_text,
        )
        file_chars = self._normalise_files(files)
        stored_type = classify_call_type(call_type, len(file_chars))
        file_chars.update(overhead_keys(overhead))
        if retry < 0 or latency_ms < 0:
            raise ValueError("retry and latency_ms must not be negative")
        price = info.price
        file_tokens = split_tokens(usage.input_tokens, file_chars)
        cost = info.cost(Bill(usage.input_tokens, usage.output_tokens, usage.cached_tokens))
        with self._lock:
            if self._closed:
                raise RuntimeError("the ledger is closed")
            now = self._clock()
            task = self._tasks.resolve(task_id, now)
            record = CallRecord(
                id=f"{self._id_prefix}{next(self._ids):x}", ts=now, day=day_of(now),
                task_id=task, task_root=self._tasks.root_of(task),
                session_id=session_id or self.session_id, call_type=stored_type, model=model,
                input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                cached_tokens=usage.cached_tokens, reasoning_tokens=usage.reasoning_tokens,
                token_source=usage.source, files=file_chars, file_tokens=file_tokens,
                cost_usd=cost, price_input=price.input, price_output=price.output,
                price_cached=price.cached, priced=info.priced,
                latency_ms=float(latency_ms), retry=int(retry), stream=bool(stream),
                fresh=frozenset(self._paths.get(p) or normalise_path(p, self.root)
                                for p in fresh) & file_chars.keys(),
            )
            if self.settings.store_content:
                record.prompt_text = _redacted(prompt_text)
                record.completion_text = _redacted(completion_text)
            self._buffer.append(record)
            crossings = self._budgets.add(task, record.task_root, record.day,
                                          record.total_tokens, now)
            if crossings and crossings.claims:
                self._claims.extend(crossings.claims)  # worth a write: warnings must survive
            self._last_record = time.monotonic()
            write_now = bool(crossings and crossings.claims) or (
                self._last_record >= self._handoff_due)
            if write_now:
                self._hand_off()
        if write_now:
            try:
                self._write_out()
            except (sqlite3.Error, OSError):  # the batch stays queued; the agent carries on
                log.exception("ledger write failed; will retry")
        if crossings is None:
            return record
        if crossings.hard_stop:
            stop = crossings.hard_stop
            raise BudgetExceeded(record, stop.used, stop.limit, stop.scope)
        return record

    def _normalise_files(self, files: Mapping[str, int] | None) -> dict[str, int]:
        if not files:
            return {}
        result: dict[str, int] = {}
        paths = self._paths
        for path, chars in files.items():
            if type(chars) is not int or chars < 0:  # bool is not a count either
                raise ValueError(f"characters read from {path!r} must be a non-negative integer")
            key = paths.get(path)
            if key is None:
                key = paths[path] = normalise_path(path, self.root)
                if is_overhead(key):
                    del paths[path]
                    raise ValueError(f"{path!r} names an overhead bucket, not a file; "
                                     "pass it as overhead=")
            result[key] = result.get(key, 0) + chars
        return result

    # -- tasks ------------------------------------------------------------------------

    def task(self, task_id: str | None = None) -> TaskSession:
        """A session for one task: records inside land on it; leaving it closes the task."""
        return TaskSession(self, task_id)

    def begin_task(self, task_id: str | None = None) -> str:
        with self._lock:
            return self._tasks.begin(task_id, self._clock())

    def adopt_task(self, task_id: str | None = None) -> str:
        """The task calls without a task id land on from now on (None: the current one, or
        a new one), continued as ``X#2`` … once it closes: an editor's task."""
        with self._lock:
            return self._tasks.adopt(task_id, self._clock())

    def task_name(self, task_id: str) -> str:
        """The name a continuation belongs to (``X`` for ``X#2``); a task's own id otherwise.
        Budgets and reports set for the name cover every incarnation."""
        with self._lock:
            return self._tasks.root_of(task_id)

    def end_task(self, task_id: str) -> None:
        with self._lock:
            self._tasks.end(task_id, self._clock())
        self.flush()

    # -- budgets ----------------------------------------------------------------------

    def set_budget(self, task_id: str | None = None, limit: int | None = None,
                   daily: int | None = None, *, hard_stop: bool = False) -> None:
        """Set the token limit of a task (``limit``) and/or of each UTC day (``daily``).

        A limit of 0 removes the budget. ``hard_stop`` makes every call recorded at or over
        the limit raise :class:`BudgetExceeded` (after it is stored).
        """
        if limit is None and daily is None:
            raise ValueError("give a task limit (with task_id) or a daily limit")
        if limit is not None and task_id is None:
            raise ValueError("a task limit needs task_id")
        for scope, key, value in ((TASK, task_id, limit), (DAILY, DAILY_KEY, daily)):
            if value is None or key is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"a budget must be a non-negative token count (got {value!r})")
            with self._lock:
                self._budgets.set(scope, key, Budget(value, hard_stop) if value else None)

    def budget_state(self, task_id: str | None = None) -> dict[str, Any]:
        """``{task, daily}``: used, limit, ratio and hard stop of the budgets in force."""
        self.flush()
        row = self._store.task(task_id) if task_id else None
        root = row.parent if row and row.parent else task_id
        with self._lock:
            self._budgets.reload_budgets()
            return self._budgets.state(task_id, root, day_of(self._clock()))

    def subscribe(self, listener: BudgetListener) -> None:
        """Call ``listener`` once for every threshold of every budget crossed."""
        self._listeners.append(listener)

    def unsubscribe(self, listener: BudgetListener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    # -- reports ----------------------------------------------------------------------

    def report(self, *, task_id: str | None = None, since: datetime | None = None,
               group_by: str = "type", top_files: int = 10, suggest: Suggester | None = None,
               last_tasks: int = REREAD_TASKS, host: str | None = None) -> dict[str, Any]:
        """``{rows, byFile, overhead, total, budget, rereads, warnings, errors, unpriced,
        hosts}`` (see :mod:`codekeep.ledger.reports` and :mod:`codekeep.ledger.insight`).

        ``host`` (``claude-code``, ``codex``, ``codekeep``: our own agent and whatever
        records through our doors) keeps rows, files, totals, errors, re-reads (of that
        host's recent tasks) and summary warnings to that host's calls; ``hosts`` always
        sums the window per host, so an editor can show every host's sessions from one
        answer. ``suggest`` maps a re-read file to the cheaper
        symbol-level read the code map offers (the doors pass
        :func:`codekeep.analysis.reads.symbol_read`).
        """
        if group_by not in GROUPS:
            raise ValueError(f"unknown grouping {group_by!r}; expected one of {', '.join(GROUPS)}")
        if host is not None and host not in HOSTS:
            raise ValueError(f"unknown host {host!r}; expected one of {', '.join(HOSTS)}")
        self.flush()
        window = Window.since(since, self._raw_kept_from())

        def scoped(group: str) -> list[Totals]:
            return self._store.aggregate(group, task=task_id, window=window, host=host)

        rows = scoped(group_by)
        keyed = rows if group_by == "file" else scoped("file")
        by_file = [row for row in keyed if not is_overhead(row.key)][:top_files]
        overhead = [row for row in keyed if is_overhead(row.key)]
        totals = scoped("total")
        since_ts = since.timestamp() if since else None
        report = build_report(
            group_by=group_by, since=since, task_id=task_id, rows=rows, by_file=by_file,
            overhead=overhead, total=totals[0] if totals else None,
            file_total=sum(row.input_tokens for row in keyed),
            budget=self.budget_state(task_id),
            errors=self._store.error_counts(task=task_id, since_ts=since_ts, host=host),
            unpriced=[row for row in (rows if group_by == "model" else scoped("model"))
                      if row.unpriced],
        )
        report["host"] = host
        report["hosts"] = host_rows(self._store.aggregate("host", task=task_id, window=window))
        reads = self._store.file_reads(task=task_id, last_tasks=last_tasks, since_ts=since_ts,
                                       host=host)
        report["rereads"] = {"scope": "task" if task_id else "recent", "lastTasks": last_tasks,
                             "files": rereads(reads, suggest)}
        report["warnings"] = summary_warnings(self._store.task_type_tokens(
            task=task_id, window=window, host=host))
        warning = unpriced_warning(report["unpriced"])
        if warning:
            report["warnings"].append({"kind": "unpriced", "models": report["unpriced"],
                                       "text": warning})
        total = report["total"]
        warning = estimated_warning(total["calls"], total["estimatedCalls"])
        if warning:
            report["warnings"].append({"kind": "estimated", "calls": total["estimatedCalls"],
                                       "text": warning})
        return report

    def changed_elsewhere(self) -> int:
        """A number that moves when another process wrote to this ledger (see
        :meth:`LedgerStore.data_version`): the server polls it to tell editors."""
        return self._store.data_version()

    def wait_closed(self, timeout: float) -> bool:
        """Sleep up to ``timeout`` seconds; True once the ledger is closed."""
        return self._stop.wait(timeout)

    def tokens_for_file(self, path: str, since: datetime | None = None) -> int:
        """Input tokens attributed to ``path`` (absolute or workspace-relative)."""
        self.flush()
        window = Window.since(since, self._raw_kept_from())
        return self._store.tokens_for_path(normalise_path(path, self.root), window)

    # -- import -----------------------------------------------------------------------

    def import_calls(self, calls: Iterable[ImportedCall]) -> ImportResult:
        """Store calls from another agent's log as they happened (no budgets, no lifecycle).

        Each call is priced with today's table and its ``source_id`` remembered, so
        importing the same log again adds nothing (a call seen again with more output,
        a later snapshot of a streamed answer, adds only that growth).
        """
        counts = self.fold(None, lambda _mark: LogRead(calls=list(calls)))
        return ImportResult(counts.new, counts.duplicates + counts.grown)

    def fold(self, source: str | None, read: Callable[[LogMark | None], LogRead]
             ) -> FoldCounts:
        """Book what ``read`` finds past ``source``'s mark (a log file's path), exactly once.

        ``read`` runs inside the write transaction with the mark the last fold left (None
        the first time) and returns the calls, error events and the new mark, so two
        processes folding one log at once never both book a line (see
        :meth:`LedgerStore.fold`).
        """
        tasks: set[str] = set()

        def advance(mark: LogMark | None) -> Advance:
            log = read(mark)
            tasks.update(call.task_id for call in log.calls)
            return Advance([(call.source_id, self._imported_record(call)) for call in log.calls],
                           log.errors, log.mark)

        counts = self._store.fold(source, advance)
        with self._lock:
            self._budgets.forget(tasks)
        return counts

    def unfinished_logs(self) -> list[tuple[str, str]]:
        """(path, reader name) of the logs a budgeted fold left before their end."""
        return self._store.unfinished_logs()

    def record_error(self, *, task_id: str | None, model: str, kind: str, detail: str,
                     session_id: str | None = None) -> ErrorEvent:
        """Book a request that got no answer (``kind`` ``connection`` or ``api``): an error
        event, not a call, so reports say "3 failed connections" instead of counting
        three calls of 0 tokens."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the ledger is closed")
            now = self._clock()
            task = self._tasks.resolve(task_id, now)
        event = ErrorEvent(source_id=f"{self._id_prefix}{next(self._ids):x}", ts=now,
                           task_id=task, session_id=session_id or self.session_id,
                           model=model, kind=kind, detail=detail[:500])
        self.flush()  # the task row first, so a task report finds the event
        self._store.record_error(event)
        return event

    def _imported_record(self, call: ImportedCall) -> CallRecord:
        bill = call.bill
        info = self._models.lookup(call.model)
        price = info.price
        cost = info.cost(bill)
        weights = self._normalise_files(call.files)
        carried = sum(weights.values())
        if weights:
            weights[CONTEXT_KEY] = max(0, bill.input_tokens - carried)
        file_tokens = split_tokens(bill.input_tokens, weights)
        input_cost = cost - info.cost(Bill(0, bill.output_tokens, fast=bill.fast,
                                           us_only=bill.us_only))
        file_costs = {path: input_cost * tokens / bill.input_tokens
                      for path, tokens in file_tokens.items()} if bill.input_tokens else {}
        return CallRecord(
            id=f"{self._id_prefix}{next(self._ids):x}", ts=call.ts, day=day_of(call.ts),
            task_id=call.task_id, task_root=call.task_id,
            session_id=call.session_id, call_type=classify_call_type(call.call_type,
                                                                     len(call.files)),
            model=call.model, input_tokens=bill.input_tokens, output_tokens=bill.output_tokens,
            cached_tokens=bill.cached_tokens,
            reasoning_tokens=min(call.reasoning_tokens, bill.output_tokens),
            token_source="provider", files=weights, file_tokens=file_tokens,
            file_costs=file_costs, cost_usd=cost, price_input=price.input,
            price_output=price.output, price_cached=price.cached, priced=info.priced,
            fresh=frozenset(self._paths.get(p) or normalise_path(p, self.root)
                            for p in call.fresh) & weights.keys(),
        )

    # -- persistence ------------------------------------------------------------------

    def flush(self) -> None:
        """Write buffered records now; announce budget thresholds this process won."""
        with self._lock:
            self._hand_off()
        self._write_out()

    def _hand_off(self) -> None:
        """Move the buffer to the writer's queue (caller holds ``_lock``)."""
        self._handoff_due = time.monotonic() + self.settings.flush_interval_s
        tasks = self._tasks.take_dirty()
        if self._buffer or self._claims or tasks:
            self._outbox.append(_Batch(self._buffer, self._claims, tasks))
            self._buffer, self._claims = [], []

    def _write_out(self) -> None:
        """Write queued batches in order. A failed batch stays queued: nothing is lost."""
        won: list[Claim] = []
        with self._flush_lock:
            while self._outbox:
                batch = self._outbox[0]
                won += self._store.write(batch.calls, batch.tasks, batch.claims)
                self._outbox.popleft()
                self._budgets.committed(batch.tokens_by_key())
        for claim in won:
            self._emit(event_for(claim))

    def calls_after(self, rowid: int, limit: int) -> list[tuple[int, dict[str, Any]]]:
        """Written calls after ``rowid`` (see :meth:`LedgerStore.calls_after`); flushes first."""
        self.flush()
        return self._store.calls_after(rowid, limit)

    def last_rowid(self) -> int:
        return self._store.last_rowid()

    def compact(self) -> int:
        """Drop raw rows older than ``retention_days`` (roll-ups keep every total)."""
        self._last_compaction = self._clock()
        return self._store.compact(self._raw_kept_from())

    def _raw_kept_from(self) -> float:
        return day_start(self._clock()) - self.settings.retention_days * SECONDS_PER_DAY

    def _emit(self, event: BudgetEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # one broken subscriber must not stop the others or the agent
                log.exception("budget listener failed")

    def _flush_loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.settings.flush_interval_s / 2)
            self._wake.clear()
            try:
                # A busy recorder writes its own batches; step in only once it is idle,
                # and never wait for its lock.
                now = time.monotonic()
                idle = now - self._last_record >= IDLE_BEFORE_BACKGROUND_FLUSH_S
                if (idle or now >= self._handoff_due + self.settings.flush_interval_s) and \
                        self._lock.acquire(blocking=False):
                    try:
                        self._hand_off()
                        self._tasks.sweep(self._clock())
                    finally:
                        self._lock.release()
                self._write_out()
                self._budgets.reload_budgets()
                if self._clock() - self._last_compaction >= COMPACT_EVERY_S:
                    self.compact()
            except Exception:  # a locked or full disk must not kill the flusher; retry
                log.exception("ledger flush failed; will retry")

    def close(self) -> None:
        """Flush everything, mark idle tasks closed and release the database."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._stop.set()
        self._wake.set()
        if self._flusher is not None and self._flusher is not threading.current_thread():
            self._flusher.join()
        with self._lock:
            self._tasks.sweep(self._clock())
        self.flush()
        self._store.close()
        atexit.unregister(self.close)

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _redacted(text: str | None) -> str | None:
    return None if text is None else redact_text(text)


class TaskSession:
    """``with ledger.task("fix-login") as task: task.record(...)``.

    The task is opened (per the rule in :mod:`codekeep.ledger.tasks`) on creation and
    becomes the ledger's current task; leaving the block closes it, so later calls cannot
    land on it. ``id`` follows a continuation if the task timed out in between.
    """

    def __init__(self, ledger: Ledger, task_id: str | None) -> None:
        self._ledger = ledger
        self.id = ledger.begin_task(task_id)

    def record(self, **call: Any) -> CallRecord:
        record = self._ledger.record(task_id=self.id, **call)
        self.id = record.task_id
        return record

    def report(self, **options: Any) -> dict[str, Any]:
        return self._ledger.report(task_id=self.id, **options)

    def close(self) -> None:
        self._ledger.end_task(self.id)

    def __enter__(self) -> TaskSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
