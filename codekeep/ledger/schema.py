"""The ledger database schema (``.codekeep/ledger.db``) and its migrations.

Raw ``calls`` rows (with the files each call read, as JSON ``{path: [chars, tokens, read,
cost]}``) are kept for ``retention_days``. Four roll-up tables are maintained in the same
transaction as every insert and never compacted, so reports over any period stay exact
and fast after raw rows are gone. Each is keyed for the query that reads it: per task
(task filter, group by task), global per day (everyday reports, daily budget), files per
task, and files per path (top files, the code lens).
"""

from __future__ import annotations

_MEASURES = """
        calls INTEGER NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cached_tokens INTEGER NOT NULL,
        reasoning_tokens INTEGER NOT NULL,
        cost_usd REAL NOT NULL"""
_FILE_MEASURES = """
        calls INTEGER NOT NULL,
        tokens INTEGER NOT NULL,
        cost_usd REAL NOT NULL"""

MIGRATIONS: list[str] = [
    f"""
    CREATE TABLE calls (
        id TEXT NOT NULL,
        ts REAL NOT NULL,
        day TEXT NOT NULL,
        task_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        call_type TEXT NOT NULL,
        model TEXT NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cached_tokens INTEGER NOT NULL,
        reasoning_tokens INTEGER NOT NULL,
        token_source TEXT NOT NULL,
        cost_usd REAL NOT NULL,
        price_input REAL NOT NULL,
        price_output REAL NOT NULL,
        price_cached REAL NOT NULL,
        latency_ms REAL NOT NULL,
        retry INTEGER NOT NULL,
        stream INTEGER NOT NULL,
        files TEXT,
        prompt_text TEXT,
        completion_text TEXT
    );
    CREATE INDEX calls_ts ON calls(ts);
    CREATE TABLE rollup_task (
        task_id TEXT NOT NULL,
        day TEXT NOT NULL,
        call_type TEXT NOT NULL,
        model TEXT NOT NULL,{_MEASURES},
        PRIMARY KEY (task_id, day, call_type, model)
    ) WITHOUT ROWID;
    CREATE TABLE rollup_day (
        day TEXT NOT NULL,
        call_type TEXT NOT NULL,
        model TEXT NOT NULL,{_MEASURES},
        PRIMARY KEY (day, call_type, model)
    ) WITHOUT ROWID;
    CREATE TABLE rollup_task_files (
        task_id TEXT NOT NULL,
        day TEXT NOT NULL,
        path TEXT NOT NULL,{_FILE_MEASURES},
        PRIMARY KEY (task_id, day, path)
    ) WITHOUT ROWID;
    CREATE TABLE rollup_files (
        path TEXT NOT NULL,
        day TEXT NOT NULL,{_FILE_MEASURES},
        PRIMARY KEY (path, day)
    ) WITHOUT ROWID;
    CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        parent TEXT,
        opened_ts REAL NOT NULL,
        last_ts REAL NOT NULL,
        closed_ts REAL
    );
    CREATE INDEX tasks_parent ON tasks(parent);
    CREATE TABLE budgets (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        limit_tokens INTEGER NOT NULL,
        hard_stop INTEGER NOT NULL,
        PRIMARY KEY (scope, key)
    );
    CREATE TABLE budget_crossings (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        limit_tokens INTEGER NOT NULL,
        threshold REAL NOT NULL,
        ts REAL NOT NULL,
        used INTEGER NOT NULL,
        PRIMARY KEY (scope, key, limit_tokens, threshold)
    );
    CREATE TABLE imported (
        source_id TEXT PRIMARY KEY
    );
    """,
    # Imported logs: a fold's high-water mark per log file, the usage each imported call
    # was booked with (a later streamed snapshot of it books only its growth; NULL for calls
    # imported before this version: those never grow), growth rows
    # that are no call of their own (counted 0), unpriced calls, and error events.
    """
    ALTER TABLE calls ADD COLUMN counted INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE calls ADD COLUMN priced INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE rollup_task ADD COLUMN unpriced INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE rollup_day ADD COLUMN unpriced INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE imported ADD COLUMN output_tokens INTEGER;
    ALTER TABLE imported ADD COLUMN reasoning_tokens INTEGER;
    ALTER TABLE imported ADD COLUMN cost_usd REAL;
    CREATE TABLE log_marks (
        path TEXT PRIMARY KEY,
        offset INTEGER NOT NULL,
        head TEXT NOT NULL,
        state TEXT NOT NULL
    );
    CREATE TABLE errors (
        source_id TEXT PRIMARY KEY,
        ts REAL NOT NULL,
        day TEXT NOT NULL,
        task_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        model TEXT NOT NULL,
        kind TEXT NOT NULL,
        detail TEXT NOT NULL
    );
    CREATE INDEX errors_ts ON errors(ts);
    """,
    # Calls whose tokens we counted ourselves (the endpoint reported no usage: token
    # source other than "provider"), so reports can say which figures are estimates;
    # filled from the raw rows still kept (older calls' roll-ups cannot tell).
    """
    ALTER TABLE rollup_task ADD COLUMN estimated INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE rollup_day ADD COLUMN estimated INTEGER NOT NULL DEFAULT 0;
    UPDATE rollup_task SET estimated = (
        SELECT COUNT(*) FROM calls c WHERE c.counted = 1 AND c.token_source != 'provider'
        AND c.task_id = rollup_task.task_id AND c.day = rollup_task.day
        AND c.call_type = rollup_task.call_type AND c.model = rollup_task.model);
    UPDATE rollup_day SET estimated = (
        SELECT COUNT(*) FROM calls c WHERE c.counted = 1 AND c.token_source != 'provider'
        AND c.day = rollup_day.day AND c.call_type = rollup_day.call_type
        AND c.model = rollup_day.model);
    """,
]
