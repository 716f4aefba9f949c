"""SQLite persistence of the ledger: batched inserts, roll-ups, tasks, budgets, queries.

One connection is shared by the recording threads and the background flusher, guarded
by a lock. Every flush is one ``BEGIN IMMEDIATE`` transaction that inserts the raw rows
and folds exactly those rows into the roll-ups (``rowid > max before``: the write
lock guarantees no other process inserted in between), so two writer processes can
never double-count or lose each other's rows.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from codekeep.common.sqlite import open_db, parameter_batches
from codekeep.ledger.days import Window, day_of
from codekeep.ledger.records import CallRecord, ErrorEvent
from codekeep.ledger.schema import MIGRATIONS


@dataclass(frozen=True, slots=True)
class TaskRow:
    id: str
    parent: str | None
    opened_ts: float
    last_ts: float
    closed_ts: float | None


@dataclass(frozen=True, slots=True)
class Budget:
    limit: int
    hard_stop: bool


@dataclass(frozen=True, slots=True)
class Claim:
    """A budget threshold a process wants to announce; the database decides who does."""

    scope: str
    key: str
    limit: int
    threshold: float
    ts: float
    used: int
    task_id: str  # the task whose call crossed the threshold (for daily budgets too)


@dataclass(frozen=True, slots=True)
class Totals:
    key: str
    calls: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    reasoning_tokens: int
    cost_usd: float
    unpriced: int = 0  # calls booked without a price (their cost is missing from cost_usd)
    estimated: int = 0  # calls whose tokens we counted (the endpoint reported no usage)

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class LogMark:
    """How far a fold has read one log file: the byte offset after the last whole line,
    a digest of the bytes before it (a rewritten or truncated file no longer matches),
    and the reader's state at that point (JSON: what earlier lines said)."""

    offset: int
    head: str
    state: str


@dataclass(slots=True)
class Advance:
    """What a fold read past the mark: ``(source id, record)`` per call, error events, and
    the new mark (None: leave the mark alone)."""

    calls: list[tuple[str, CallRecord]] = field(default_factory=list)
    errors: list[ErrorEvent] = field(default_factory=list)
    mark: LogMark | None = None


@dataclass(frozen=True, slots=True)
class FoldCounts:
    new: int         # calls booked for the first time
    grown: int       # calls seen again with more usage (a later streamed snapshot)
    duplicates: int  # calls seen again with nothing new
    errors: int      # error events booked for the first time


_CALL_COLUMNS = (
    "id, ts, day, task_id, session_id, call_type, model, input_tokens, output_tokens, "
    "cached_tokens, reasoning_tokens, token_source, cost_usd, price_input, price_output, "
    "price_cached, latency_ms, retry, stream, files, prompt_text, completion_text, counted, "
    "priced"
)
_INSERT_CALL = f"INSERT INTO calls ({_CALL_COLUMNS}) VALUES ({', '.join('?' * 24)})"

_CALL_MEASURES = ("calls", "input_tokens", "output_tokens", "cached_tokens",
                  "reasoning_tokens", "cost_usd")
_FILE_MEASURES = ("calls", "tokens", "cost_usd")
_ROLLUP_MEASURES = (*_CALL_MEASURES, "unpriced", "estimated")
# A call counted by us, not reported by the endpoint (1) or not (0).
_ESTIMATED = "counted * (token_source != 'provider')"
# calls.files: {"path": [chars, tokens, read, cost]} (read: 1 when the call newly read the
# file; cost: its USD share of the call's input, absent: tokens at the input price)
_FILE_TOKENS = "json_extract(f.value, '$[1]')"
_FILE_READ = "COALESCE(json_extract(f.value, '$[2]'), 0)"
_FILE_COST = f"COALESCE(json_extract(f.value, '$[3]'), {_FILE_TOKENS} * price_input / 1e6)"


def _fold(table: str, keys: Sequence[str]) -> str:
    """SQL folding the calls inserted after ``:after`` into roll-up ``table`` (a growth row,
    ``counted`` 0, adds its tokens and cost but no call)."""
    group = ", ".join(keys)
    updates = ", ".join(f"{column} = {column} + excluded.{column}"
                        for column in _ROLLUP_MEASURES)
    return (
        f"INSERT INTO {table} ({group}, {', '.join(_ROLLUP_MEASURES)}) "
        f"SELECT {group}, SUM(counted), SUM(input_tokens), SUM(output_tokens), "
        f"SUM(cached_tokens), SUM(reasoning_tokens), SUM(cost_usd), "
        f"SUM(counted * (1 - priced)), SUM({_ESTIMATED}) "
        f"FROM calls WHERE rowid > :after GROUP BY {group} "
        f"ON CONFLICT ({group}) DO UPDATE SET {updates}"
    )


_FOLDS = (_fold("rollup_task", ("task_id", "day", "call_type", "model")),
          _fold("rollup_day", ("day", "call_type", "model")))


def _add_file(table: str, keys: Sequence[str]) -> str:
    """SQL adding one pre-aggregated ``(keys..., calls, tokens, cost_usd)`` row."""
    updates = ", ".join(f"{column} = {column} + excluded.{column}" for column in _FILE_MEASURES)
    columns = (*keys, *_FILE_MEASURES)
    return (f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))}) "
            f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {updates}")


# File roll-ups are summed in Python (``_file_sums``): unpacking the JSON in SQL costs more.
# A file's cost is its attributed tokens at the call's input price.
_ADD_TASK_FILE = _add_file("rollup_task_files", ("task_id", "day", "path"))
_ADD_FILE = _add_file("rollup_files", ("path", "day"))
_UPSERT_TASK = """
INSERT INTO tasks (id, parent, opened_ts, last_ts, closed_ts) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET
    last_ts = MAX(last_ts, excluded.last_ts),
    closed_ts = COALESCE(tasks.closed_ts, excluded.closed_ts)
"""
# Group keys a report may ask for; values are trusted SQL expressions.
# Which agent host a call came from, by its task's prefix (imports name their tasks so).
EXTERNAL_HOSTS = ("claude-code", "codex")
OWN_HOST = "codekeep"
HOSTS = (*EXTERNAL_HOSTS, OWN_HOST)


def host_of(column: str) -> str:
    """The SQL expression naming the host of the task id in ``column``."""
    return ("CASE " + " ".join(f"WHEN {column} LIKE '{host}:%' THEN '{host}'"
                               for host in EXTERNAL_HOSTS) + f" ELSE '{OWN_HOST}' END")


HOST_COLUMN = host_of("task_id")
GROUP_COLUMNS = {"type": "call_type", "task": "task_id", "day": "day", "model": "model",
                 "host": HOST_COLUMN,
                 "file": "path", "total": "''"}
_TASK_FILTER = "task_id IN (SELECT id FROM tasks WHERE id = :task OR parent = :task)"


class LedgerStore:
    """The ledger database; all methods are thread-safe."""

    def __init__(self, path: Path) -> None:
        self._conn = open_db(path, MIGRATIONS, check_same_thread=False)
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    # -- shipping to the team database --------------------------------------------------

    def calls_after(self, rowid: int, limit: int) -> list[tuple[int, dict[str, object]]]:
        """(rowid, counts) of the raw calls written after ``rowid``, oldest first: what a
        member ships to the team database (counts and file tokens, never texts; whether
        the row is a call of its own, priced, and where its token counts came from, so
        the team's report says what the member's own says)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT rowid, id, ts, day, task_id, call_type, model, input_tokens, "
                "output_tokens, cached_tokens, reasoning_tokens, cost_usd, files, counted, "
                "priced, token_source FROM calls WHERE rowid > ? ORDER BY rowid LIMIT ?",
                (rowid, limit)).fetchall()
        return [
            (int(r[0]), {
                "id": r[1], "ts": r[2], "day": r[3], "taskId": r[4], "callType": r[5],
                "model": r[6], "inputTokens": r[7], "outputTokens": r[8], "cachedTokens": r[9],
                "reasoningTokens": r[10], "costUsd": r[11],
                "files": {path: v[1] for path, v in json.loads(r[12]).items()} if r[12] else {},
                "counted": bool(r[13]), "priced": bool(r[14]), "tokenSource": r[15],
            })
            for r in rows
        ]

    def last_rowid(self) -> int:
        with self._lock:
            return _max_rowid(self._conn, "calls")

    def data_version(self) -> int:
        """SQLite's ``data_version``: it moves when another connection (a hook's fold, a
        CLI import, another editor's server) commits to the ledger, not for our own."""
        with self._lock:
            return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    # -- writing ----------------------------------------------------------------------

    def write(self, calls: Sequence[CallRecord], tasks: Sequence[TaskRow] = (),
              claims: Sequence[Claim] = ()) -> list[Claim]:
        """Store a batch atomically; return the claims this process won (announce those)."""
        with self._transaction() as conn:
            _insert_calls(conn, calls)
            _upsert_tasks(conn, tasks)
            won = []
            for claim in claims:
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO budget_crossings "
                    "(scope, key, limit_tokens, threshold, ts, used) VALUES (?, ?, ?, ?, ?, ?)",
                    (claim.scope, claim.key, claim.limit, claim.threshold, claim.ts, claim.used),
                )
                if cursor.rowcount == 1:
                    won.append(claim)
            return won

    def fold(self, path: str | None, advance: Callable[[LogMark | None], Advance]
             ) -> FoldCounts:
        """Book what ``advance`` reads past ``path``'s mark, exactly once, in one transaction.

        The write lock is taken before the mark is read, so two processes folding the same
        log (two hooks at once) run one after the other and the second finds nothing new.
        A call whose source id is booked already adds only its growth (a later streamed
        snapshot with more output); error events are booked once per source id.
        ``path`` None: no mark (a one-off import).
        """
        with self._transaction() as conn:
            mark = None
            if path is not None:
                row = conn.execute("SELECT offset, head, state FROM log_marks WHERE path = ?",
                                   (path,)).fetchone()
                mark = LogMark(int(row[0]), str(row[1]), str(row[2])) if row else None
            read = advance(mark)
            fresh, grown, duplicates = _new_usage(conn, read.calls)
            booked = [*fresh, *grown]
            _insert_calls(conn, booked)
            _upsert_tasks(conn, _task_spans(booked))
            errors = 0
            for event in read.errors:
                errors += conn.execute(
                    "INSERT OR IGNORE INTO errors (source_id, ts, day, task_id, session_id, "
                    "model, kind, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (event.source_id, event.ts, day_of(event.ts), event.task_id,
                     event.session_id, event.model, event.kind, event.detail)).rowcount
            if path is not None and read.mark is not None:
                conn.execute(
                    "INSERT INTO log_marks (path, offset, head, state) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (path) DO UPDATE SET offset = excluded.offset, "
                    "head = excluded.head, state = excluded.state",
                    (path, read.mark.offset, read.mark.head, read.mark.state))
            return FoldCounts(len(fresh), len(grown), duplicates, errors)

    def unfinished_logs(self) -> list[tuple[str, str]]:
        """(path, reader) of the logs whose last fold ran out of budget before their end."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT path, json_extract(state, '$.reader') FROM log_marks "
                "WHERE json_valid(state) AND json_extract(state, '$.unfinished') = 1 "
                "ORDER BY path").fetchall()
        return [(str(path), str(reader)) for path, reader in rows]

    def record_error(self, event: ErrorEvent) -> None:
        self.fold(None, lambda _mark: Advance(errors=[event]))

    def compact(self, cutoff_ts: float) -> int:
        """Delete raw rows older than ``cutoff_ts``; roll-ups keep their totals."""
        with self._transaction() as conn:
            removed = conn.execute("DELETE FROM calls WHERE ts < ?", (cutoff_ts,)).rowcount
            conn.execute("DELETE FROM errors WHERE ts < ?", (cutoff_ts,))
            return int(removed)

    # -- budgets ----------------------------------------------------------------------

    def set_budget(self, scope: str, key: str, budget: Budget | None) -> None:
        with self._transaction() as conn:
            if budget is None:
                conn.execute("DELETE FROM budgets WHERE scope = ? AND key = ?", (scope, key))
            else:
                conn.execute(
                    "INSERT INTO budgets (scope, key, limit_tokens, hard_stop) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (scope, key) DO UPDATE SET limit_tokens = excluded.limit_tokens, "
                    "hard_stop = excluded.hard_stop",
                    (scope, key, budget.limit, int(budget.hard_stop)),
                )

    def budgets(self) -> dict[tuple[str, str], Budget]:
        with self._lock:
            rows = self._conn.execute("SELECT scope, key, limit_tokens, hard_stop FROM budgets")
            return {(row["scope"], row["key"]): Budget(int(row["limit_tokens"]),
                                                       bool(row["hard_stop"])) for row in rows}

    def task_usage(self, task_id: str) -> int:
        """Tokens of ``task_id`` and its continuations (a continuation has none)."""
        return self._scalar("SELECT COALESCE(SUM(input_tokens + output_tokens), 0) "
                            f"FROM rollup_task WHERE {_TASK_FILTER}", {"task": task_id})

    def day_usage(self, day: str) -> int:
        return self._scalar("SELECT COALESCE(SUM(input_tokens + output_tokens), 0) "
                            "FROM rollup_day WHERE day = ?", (day,))

    def _scalar(self, sql: str, params: Sequence[object] | dict[str, object]) -> int:
        with self._lock:
            return int(self._conn.execute(sql, params).fetchone()[0])

    # -- tasks ------------------------------------------------------------------------

    def task(self, task_id: str) -> TaskRow | None:
        with self._lock:
            row = self._conn.execute("SELECT * FROM tasks WHERE id = ?", (task_id,)).fetchone()
        return _task_row(row) if row else None

    def incarnations(self, root: str) -> list[TaskRow]:
        """The task ``root`` and its continuations, oldest first."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT * FROM tasks WHERE id = ? OR parent = ? ORDER BY opened_ts, rowid",
                (root, root),
            ).fetchall()
        return [_task_row(row) for row in rows]

    # -- reports ----------------------------------------------------------------------

    def aggregate(self, group: str, *, task: str | None, window: Window,
                  limit: int | None = None, host: str | None = None) -> list[Totals]:
        """Totals per ``group`` key (see ``GROUP_COLUMNS``): largest first, days in order;
        ``host``: only that host's calls.

        Whole days come from the roll-ups; a partial first day (``since`` not at
        midnight) comes from the raw rows, which are never compacted inside the window.
        """
        column = GROUP_COLUMNS[group]
        if group == "file":
            rollup = "rollup_task_files" if task is not None or host else "rollup_files"
            raw = "calls, json_each(calls.files) AS f"
            measures = "tokens AS i, 0 AS o, 0 AS c, 0 AS r, cost_usd AS usd, 0 AS u, 0 AS e"
            raw_measures = (f"1 AS n, {_FILE_TOKENS} AS i, 0 AS o, 0 AS c, 0 AS r, "
                            f"{_FILE_COST} AS usd, 0 AS u, 0 AS e")
            raw_column = "f.key"
        else:
            by_task = task is not None or host is not None or group in ("task", "host")
            rollup = "rollup_task" if by_task else "rollup_day"
            raw = "calls"
            measures = ("input_tokens AS i, output_tokens AS o, cached_tokens AS c, "
                        "reasoning_tokens AS r, cost_usd AS usd")
            raw_measures = (f"counted AS n, {measures}, counted * (1 - priced) AS u, "
                            f"{_ESTIMATED} AS e")
            measures += ", unpriced AS u, estimated AS e"
            raw_column = column
        params: dict[str, object] = {"task": task, "day": window.first_full_day,
                                     "raw_from": window.raw_from, "raw_to": window.raw_to,
                                     "host": host}
        task_clause = (f" AND {_TASK_FILTER}" if task is not None else "") + (
            f" AND {HOST_COLUMN} = :host" if host is not None else "")
        parts = [f"SELECT {column} AS k, calls AS n, {measures} FROM {rollup} "
                 f"WHERE (:day IS NULL OR day >= :day){task_clause}"]
        if window.raw_from is not None:
            parts.append(f"SELECT {raw_column} AS k, {raw_measures} FROM {raw} "
                         f"WHERE ts >= :raw_from AND ts < :raw_to{task_clause}")
        order = "k" if group == "day" else "SUM(i) + SUM(o) DESC, k"
        sql = (
            "SELECT k, SUM(n), SUM(i), SUM(o), SUM(c), SUM(r), SUM(usd), SUM(u), SUM(e) "
            f"FROM ({' UNION ALL '.join(parts)}) GROUP BY k ORDER BY {order}"
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        with self._lock:
            rows = self._conn.execute(sql, params).fetchall()
        return [
            Totals(str(row[0]), int(row[1] or 0), int(row[2] or 0), int(row[3] or 0),
                   int(row[4] or 0), int(row[5] or 0), float(row[6] or 0.0), int(row[7] or 0),
                   int(row[8] or 0))
            for row in rows
        ]

    def error_counts(self, *, task: str | None, since_ts: float | None,
                     host: str | None = None) -> dict[str, int]:
        """Error events per kind from ``since_ts`` (of ``task`` and its continuations, of
        ``host``)."""
        clauses = ["(:from IS NULL OR ts >= :from)"]
        if host is not None:
            clauses.append(f"{HOST_COLUMN} = :host")
        if task is not None:
            clauses.append("(task_id = :task OR task_id IN "
                           "(SELECT id FROM tasks WHERE parent = :task))")
        sql = f"SELECT kind, COUNT(*) FROM errors WHERE {' AND '.join(clauses)} GROUP BY kind"
        with self._lock:
            rows = self._conn.execute(sql, {"task": task, "from": since_ts,
                                            "host": host}).fetchall()
        return {str(row[0]): int(row[1]) for row in rows}

    def file_reads(self, *, task: str | None, last_tasks: int, since_ts: float | None,
                   host: str | None = None) -> list[tuple[str, str, int, int]]:
        """``(task, path, reads, tokens)`` for every file a call newly read, in ``task`` (and
        its continuations) or else in the ``last_tasks`` most recently active tasks (of
        ``host``'s tasks only, when given).

        From the raw rows (kept for the retention period): a read is a call whose prompt
        carried the file's text for the first time; tokens are all the file was billed.
        """
        params: dict[str, object] = {"host": host}
        hosted = f" AND {HOST_COLUMN} = :host" if host is not None else ""
        if task is not None:
            scope, params["task"] = _TASK_FILTER + hosted, task
        else:
            recent = f"WHERE {host_of('id')} = :host " if host is not None else ""
            scope = (f"task_id IN (SELECT id FROM tasks {recent}ORDER BY last_ts DESC, "
                     "rowid DESC LIMIT :last)")
            params["last"] = last_tasks
        sql = (f"SELECT task_id, f.key, SUM({_FILE_READ}), SUM({_FILE_TOKENS}) "
               "FROM calls, json_each(calls.files) AS f "
               f"WHERE {scope} AND ts >= :from GROUP BY task_id, f.key "
               f"HAVING SUM({_FILE_READ}) > 0")
        with self._lock:
            rows = self._conn.execute(sql, {**params, "from": since_ts or 0.0}).fetchall()
        return [(str(r[0]), str(r[1]), int(r[2]), int(r[3])) for r in rows]

    def task_type_tokens(self, *, task: str | None, window: Window, host: str | None = None
                         ) -> list[tuple[str, str, int]]:
        """``(task, call type, tokens)`` per task in ``window`` (or of ``task``; of
        ``host``'s tasks only, when given)."""
        task_clause = (f" AND {_TASK_FILTER}" if task is not None else "") + (
            f" AND {HOST_COLUMN} = :host" if host is not None else "")
        parts = ["SELECT task_id, call_type, input_tokens + output_tokens AS t FROM rollup_task "
                 f"WHERE (:day IS NULL OR day >= :day){task_clause}"]
        if window.raw_from is not None:
            parts.append("SELECT task_id, call_type, input_tokens + output_tokens FROM calls "
                         f"WHERE ts >= :raw_from AND ts < :raw_to{task_clause}")
        sql = (f"SELECT task_id, call_type, SUM(t) FROM ({' UNION ALL '.join(parts)}) "
               "GROUP BY task_id, call_type")
        params = {"task": task, "day": window.first_full_day, "raw_from": window.raw_from,
                  "raw_to": window.raw_to, "host": host}
        with self._lock:
            rows = self._conn.execute(sql, params).fetchall()
        return [(str(r[0]), str(r[1]), int(r[2] or 0)) for r in rows]

    def tokens_for_path(self, path: str, window: Window) -> int:
        """Input tokens attributed to ``path`` inside ``window`` (all tasks)."""
        sql = ("SELECT COALESCE(SUM(tokens), 0) FROM rollup_files "
               "WHERE path = :path AND (:day IS NULL OR day >= :day)")
        params: dict[str, object] = {"path": path, "day": window.first_full_day,
                                     "raw_from": window.raw_from, "raw_to": window.raw_to}
        total = self._scalar(sql, params)
        if window.raw_from is not None:
            total += self._scalar(
                f"SELECT COALESCE(SUM({_FILE_TOKENS}), 0) FROM calls, json_each(calls.files) "
                "AS f WHERE ts >= :raw_from AND ts < :raw_to AND f.key = :path", params)
        return total


def _insert_calls(conn: sqlite3.Connection, calls: Sequence[CallRecord]) -> None:
    """Insert raw rows and fold exactly those rows into the roll-ups."""
    if not calls:
        return
    after = _max_rowid(conn, "calls")
    conn.executemany(_INSERT_CALL, [_call_row(call) for call in calls])
    for fold in _FOLDS:
        conn.execute(fold, {"after": after})
    per_task, per_path = _file_sums(calls)
    conn.executemany(_ADD_TASK_FILE, [(*key, *sums) for key, sums in per_task.items()])
    conn.executemany(_ADD_FILE, [(*key, *sums) for key, sums in per_path.items()])


def _upsert_tasks(conn: sqlite3.Connection, tasks: Sequence[TaskRow]) -> None:
    conn.executemany(_UPSERT_TASK, [
        (task.id, task.parent, task.opened_ts, task.last_ts, task.closed_ts) for task in tasks
    ])


def _task_spans(calls: Sequence[CallRecord]) -> list[TaskRow]:
    """One task row per task of imported calls, spanning their times (never closed)."""
    spans: dict[str, list[float]] = {}
    for call in calls:
        spans.setdefault(call.task_id, []).append(call.ts)
    return [TaskRow(task, None, min(stamps), max(stamps), max(stamps))
            for task, stamps in spans.items()]


def _new_usage(conn: sqlite3.Connection, calls: Sequence[tuple[str, CallRecord]]
               ) -> tuple[list[CallRecord], list[CallRecord], int]:
    """``(new calls, growth rows, duplicates)`` of imported calls, remembering what each
    source id is booked with. Input and cache counts of a streamed answer are known when
    it starts; only its output grows, so a growth row carries output and cost."""
    booked: dict[str, tuple[int, int, float] | None] = {}
    ids = list(dict.fromkeys(source for source, _ in calls))
    for chunk in parameter_batches(ids):
        marks = ", ".join("?" * len(chunk))
        for row in conn.execute("SELECT source_id, output_tokens, reasoning_tokens, cost_usd "
                                f"FROM imported WHERE source_id IN ({marks})", chunk):
            booked[row[0]] = None if row[1] is None else (int(row[1]), int(row[2] or 0),
                                                          float(row[3] or 0.0))
    fresh: list[CallRecord] = []
    grown: list[CallRecord] = []
    duplicates = 0
    for source, record in calls:
        usage = (record.output_tokens, record.reasoning_tokens, record.cost_usd)
        if source not in booked:
            fresh.append(record)
            conn.execute("INSERT INTO imported (source_id, output_tokens, reasoning_tokens, "
                         "cost_usd) VALUES (?, ?, ?, ?)", (source, *usage))
            booked[source] = usage
            continue
        before = booked[source]
        if before is None or (record.output_tokens <= before[0]
                              and record.cost_usd <= before[2] + 1e-12):
            duplicates += 1
            continue
        grown.append(replace(
            record, id=f"{record.id}+", counted=False, input_tokens=0, cached_tokens=0,
            output_tokens=max(0, record.output_tokens - before[0]),
            reasoning_tokens=max(0, record.reasoning_tokens - before[1]),
            cost_usd=max(0.0, record.cost_usd - before[2]), files={}, file_tokens={},
            file_costs={}, fresh=frozenset()))
        after = (max(record.output_tokens, before[0]), max(record.reasoning_tokens, before[1]),
                 max(record.cost_usd, before[2]))
        conn.execute("UPDATE imported SET output_tokens = ?, reasoning_tokens = ?, "
                     "cost_usd = ? WHERE source_id = ?", (*after, source))
        booked[source] = after
    return fresh, grown, duplicates


FileSums = dict[tuple[str, ...], list[float]]


def _file_sums(calls: Sequence[CallRecord]) -> tuple[FileSums, FileSums]:
    """``(task, day, path)`` and ``(path, day)`` -> ``[calls, tokens, cost]`` for a batch;
    a file's cost is its share of the call's input cost where the call says so
    (``file_costs``: imported calls, whose input is mostly cache reads), else its
    attributed tokens at the call's input price."""
    per_task: FileSums = {}
    per_path: FileSums = {}
    for call in calls:
        if not call.file_tokens:
            continue
        day = call.day
        task = call.task_id
        rate = call.price_input / 1_000_000
        costs = call.file_costs
        for path, tokens in call.file_tokens.items():
            cost = costs[path] if path in costs else tokens * rate
            for table, key in ((per_task, (task, day, path)), (per_path, (path, day))):
                sums = table.get(key)
                if sums is None:
                    table[key] = [1, tokens, cost]
                else:
                    sums[0] += 1
                    sums[1] += tokens
                    sums[2] += cost
    return per_task, per_path


@functools.lru_cache(maxsize=4096)
def _json_key(path: str) -> str:
    return json.dumps(path)


def _files_json(call: CallRecord) -> str | None:
    """``{"path": [chars, tokens, read], ...}`` — assembled by hand with cached escaped
    keys, three times faster than ``json.dumps`` on the flush path."""
    if not call.file_tokens:
        return None
    chars = call.files
    fresh = call.fresh
    costs = call.file_costs
    return "{" + ",".join(
        f"{_json_key(path)}:[{chars.get(path, 0)},{tokens},{1 if path in fresh else 0}"
        + (f",{costs[path]!r}]" if path in costs else "]")
        for path, tokens in call.file_tokens.items()) + "}"


def _call_row(call: CallRecord) -> tuple[object, ...]:
    files = _files_json(call)
    return (
        call.id, call.ts, call.day, call.task_id, call.session_id, call.call_type,
        call.model, call.input_tokens, call.output_tokens, call.cached_tokens,
        call.reasoning_tokens, call.token_source, call.cost_usd, call.price_input,
        call.price_output, call.price_cached, call.latency_ms, call.retry, int(call.stream),
        files, call.prompt_text, call.completion_text, int(call.counted), int(call.priced),
    )


def _max_rowid(conn: sqlite3.Connection, table: str) -> int:
    return int(conn.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM {table}").fetchone()[0])


def _task_row(row: sqlite3.Row) -> TaskRow:
    return TaskRow(row["id"], row["parent"], row["opened_ts"], row["last_ts"], row["closed_ts"])

