"""The ledger database schema (``.codekeep/ledger.db``) and its migrations.

Raw ``calls`` rows are kept for ``retention_days``; ``rollup_daily`` and
``rollup_files`` are maintained in the same transaction as every insert and are never
compacted, so reports over any period stay exact and fast after raw rows are gone.
"""

from __future__ import annotations

MIGRATIONS: list[str] = [
    """
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
        prompt_text TEXT,
        completion_text TEXT
    );
    CREATE INDEX calls_ts ON calls(ts);
    CREATE TABLE call_files (
        call_id TEXT NOT NULL,
        ts REAL NOT NULL,
        day TEXT NOT NULL,
        task_id TEXT NOT NULL,
        path TEXT NOT NULL,
        chars INTEGER NOT NULL,
        tokens INTEGER NOT NULL,
        cost_usd REAL NOT NULL
    );
    CREATE INDEX call_files_ts ON call_files(ts);
    CREATE TABLE rollup_daily (
        day TEXT NOT NULL,
        task_id TEXT NOT NULL,
        call_type TEXT NOT NULL,
        model TEXT NOT NULL,
        calls INTEGER NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cached_tokens INTEGER NOT NULL,
        reasoning_tokens INTEGER NOT NULL,
        cost_usd REAL NOT NULL,
        PRIMARY KEY (day, task_id, call_type, model)
    );
    CREATE INDEX rollup_daily_task ON rollup_daily(task_id);
    CREATE TABLE rollup_files (
        day TEXT NOT NULL,
        task_id TEXT NOT NULL,
        path TEXT NOT NULL,
        calls INTEGER NOT NULL,
        tokens INTEGER NOT NULL,
        cost_usd REAL NOT NULL,
        PRIMARY KEY (day, task_id, path)
    );
    CREATE INDEX rollup_files_path ON rollup_files(path, day);
    CREATE INDEX rollup_files_task ON rollup_files(task_id);
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
]
