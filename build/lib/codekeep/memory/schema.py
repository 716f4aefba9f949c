"""The memory database schema, as forward migrations for ``open_db``.

The same schema serves the project database (``.codekeep/memory.db``: task and
project scope) and the user database (``<user data dir>/memory.db``: user scope).
``memories_fts`` indexes only *live* memories (active, observed, confirmed_resolved):
superseded, archived and disabled rows are history and must not slow down search, so
a database with 10k rows but 500 live ones searches 500. Triggers keep it in sync in
the same transaction, so a crash can never leave the index and the rows disagreeing.
Its ``kind_tag`` column (``kfact``, ``ksoftpreference`` …: one token per kind) lets a
search filter by kind inside the index instead of after ranking.
``events`` is append-only: a trigger refuses updates; only ``purge`` deletes.
"""

from __future__ import annotations

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE memories (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        scope TEXT NOT NULL,
        key TEXT,
        value TEXT,
        content TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        importance INTEGER NOT NULL CHECK (importance BETWEEN 1 AND 10),
        confidence REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
        source TEXT NOT NULL,
        evidence TEXT,
        support_count INTEGER NOT NULL DEFAULT 1,
        access_count INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        last_seen_at REAL NOT NULL,
        last_accessed_at REAL,
        expires_at REAL,
        superseded_by TEXT,
        task_id TEXT
    );
    CREATE INDEX memories_status_kind ON memories(status, kind);
    CREATE INDEX memories_fingerprint ON memories(fingerprint);
    CREATE INDEX memories_key ON memories(key) WHERE key IS NOT NULL;
    CREATE TABLE memory_files (
        memory_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        stale INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (memory_id, path)
    );
    CREATE INDEX memory_files_path ON memory_files(path);
    CREATE TABLE memory_symbols (
        memory_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        symbol_id TEXT NOT NULL,
        stale INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (memory_id, symbol_id)
    );
    CREATE INDEX memory_symbols_symbol ON memory_symbols(symbol_id);
    CREATE TABLE memory_support (
        memory_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        task_id TEXT NOT NULL,
        PRIMARY KEY (memory_id, task_id)
    );
    CREATE TABLE feedback (
        id INTEGER PRIMARY KEY,
        memory_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        reason TEXT,
        created_at REAL NOT NULL,
        retracted_at REAL
    );
    CREATE INDEX feedback_memory ON feedback(memory_id);
    CREATE TABLE history (
        id INTEGER PRIMARY KEY,
        memory_id TEXT NOT NULL,
        at REAL NOT NULL,
        action TEXT NOT NULL,
        detail TEXT
    );
    CREATE INDEX history_memory ON history(memory_id);
    CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        task_id TEXT NOT NULL,
        at REAL NOT NULL,
        event_type TEXT NOT NULL,
        summary TEXT NOT NULL,
        files TEXT NOT NULL DEFAULT '[]',
        data TEXT,
        tokens INTEGER NOT NULL
    );
    CREATE INDEX events_task ON events(task_id, id);
    CREATE TRIGGER events_append_only BEFORE UPDATE ON events
    BEGIN
        SELECT RAISE(ABORT, 'events are append-only');
    END;
    CREATE TABLE summary_coverage (
        summary_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        first_event INTEGER NOT NULL,
        last_event INTEGER NOT NULL,
        event_tokens INTEGER NOT NULL,
        summary_tokens INTEGER NOT NULL
    );
    CREATE INDEX summary_coverage_task ON summary_coverage(task_id, last_event);
    CREATE TABLE notes_sync (
        path TEXT PRIMARY KEY,
        sha256 TEXT NOT NULL,
        text TEXT NOT NULL,
        synced_at REAL NOT NULL
    );
    CREATE TABLE memory_vectors (
        memory_id TEXT PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        vector BLOB NOT NULL
    );
    CREATE VIRTUAL TABLE memories_fts USING fts5(
        content, key, content='memories', content_rowid='rowid',
        tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts(rowid, content, key) VALUES (new.rowid, new.content, new.key);
    END;
    CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts(memories_fts, rowid, content, key)
        VALUES ('delete', old.rowid, old.content, old.key);
    END;
    CREATE TRIGGER memories_fts_update AFTER UPDATE OF content, key ON memories BEGIN
        INSERT INTO memories_fts(memories_fts, rowid, content, key)
        VALUES ('delete', old.rowid, old.content, old.key);
        INSERT INTO memories_fts(rowid, content, key) VALUES (new.rowid, new.content, new.key);
    END;
    """,
    """
    DROP TRIGGER memories_fts_insert;
    DROP TRIGGER memories_fts_delete;
    DROP TRIGGER memories_fts_update;
    DROP TABLE memories_fts;
    CREATE VIRTUAL TABLE memories_fts USING fts5(
        content, key, tokenize='porter unicode61 remove_diacritics 2'
    );
    INSERT INTO memories_fts(rowid, content, key)
        SELECT rowid, content, key FROM memories
        WHERE status IN ('active', 'observed', 'confirmed_resolved');
    CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories
    WHEN new.status IN ('active', 'observed', 'confirmed_resolved') BEGIN
        INSERT INTO memories_fts(rowid, content, key) VALUES (new.rowid, new.content, new.key);
    END;
    CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
        DELETE FROM memories_fts WHERE rowid = old.rowid;
    END;
    CREATE TRIGGER memories_fts_update AFTER UPDATE OF content, key, status ON memories BEGIN
        DELETE FROM memories_fts WHERE rowid = old.rowid;
        INSERT INTO memories_fts(rowid, content, key)
            SELECT new.rowid, new.content, new.key
            WHERE new.status IN ('active', 'observed', 'confirmed_resolved');
    END;
    """,
    """
    DROP TRIGGER memories_fts_insert;
    DROP TRIGGER memories_fts_delete;
    DROP TRIGGER memories_fts_update;
    DROP TABLE memories_fts;
    CREATE VIRTUAL TABLE memories_fts USING fts5(
        content, key, kind_tag, tokenize='porter unicode61 remove_diacritics 2'
    );
    INSERT INTO memories_fts(rowid, content, key, kind_tag)
        SELECT rowid, content, key, 'k' || replace(kind, '_', '') FROM memories
        WHERE status IN ('active', 'observed', 'confirmed_resolved');
    CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories
    WHEN new.status IN ('active', 'observed', 'confirmed_resolved') BEGIN
        INSERT INTO memories_fts(rowid, content, key, kind_tag)
        VALUES (new.rowid, new.content, new.key, 'k' || replace(new.kind, '_', ''));
    END;
    CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
        DELETE FROM memories_fts WHERE rowid = old.rowid;
    END;
    CREATE TRIGGER memories_fts_update AFTER UPDATE OF content, key, kind, status ON memories
    BEGIN
        DELETE FROM memories_fts WHERE rowid = old.rowid;
        INSERT INTO memories_fts(rowid, content, key, kind_tag)
            SELECT new.rowid, new.content, new.key, 'k' || replace(new.kind, '_', '')
            WHERE new.status IN ('active', 'observed', 'confirmed_resolved');
    END;
    """,
    """
    CREATE INDEX memories_live ON memories(status, scope, kind);
    """,
)
