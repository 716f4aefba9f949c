"""The team database's schema, as forward migrations (PostgreSQL).

``codekeep_team_schema`` holds one row: the number of migrations applied. Opening runs
the missing ones in one transaction under an advisory lock (two members starting at
once migrate once); a database migrated by a newer CodeKeep is refused with a reason,
never written to.

1. team memories: the shared rows with who wrote / promoted them, a generated
   ``tsvector`` under a GIN index for ``ts_rank`` search, one live row per fingerprint
   (the unique index makes a concurrent or repeated write a reinforcement), history.
2. the team ledger: each member's calls keyed by (member, call id), so a re-sent batch
   adds nothing.
3. the local state machine on team rows: evidence, lifetimes and ``superseded_by``,
   support per (member, task), "not this" feedback with who gave it, and the team
   budget's announcements (one per member, day, limit and threshold).
4. what each member's ledger row says of itself: ``counted`` (false: the growth of a
   call booked before, no call of its own), ``priced`` (false: a model the member's
   price table does not know, its cost missing) and ``token_source`` (``provider``, or
   counted by CodeKeep: estimated), so the team report counts calls as the member's own
   report does.
5. the shared facts cache: one row per (extractor fingerprint, content hash, kind — a
   language's facts or a docs page's key), the entry's bytes zlib-compressed, its
   checksum, and who published it (a refused row is reported with its publisher). A
   row is written once (first publisher wins) and never updated.
"""

from __future__ import annotations

MIGRATIONS: list[str] = [
    """
    CREATE TABLE team_memories (
        id text PRIMARY KEY,
        kind text NOT NULL,
        status text NOT NULL,
        key text,
        value text,
        content text NOT NULL,
        fingerprint text NOT NULL,
        importance integer NOT NULL CHECK (importance BETWEEN 1 AND 10),
        confidence double precision NOT NULL,
        source text NOT NULL,
        files jsonb NOT NULL DEFAULT '[]',
        symbols jsonb NOT NULL DEFAULT '[]',
        created_by text NOT NULL,
        promoted_by text,
        promoted_from text,
        support_count integer NOT NULL DEFAULT 1,
        access_count integer NOT NULL DEFAULT 0,
        created_at double precision NOT NULL,
        last_seen_at double precision NOT NULL,
        last_accessed_at double precision,
        search tsvector GENERATED ALWAYS AS (
            to_tsvector('english', coalesce(key, '') || ' ' || content)
        ) STORED
    );
    CREATE UNIQUE INDEX team_memories_live_fingerprint ON team_memories (fingerprint)
        WHERE status IN ('active', 'confirmed_resolved');
    CREATE INDEX team_memories_search ON team_memories USING gin (search);
    CREATE INDEX team_memories_seen ON team_memories (last_seen_at DESC);
    CREATE TABLE team_memory_history (
        id bigserial PRIMARY KEY,
        memory_id text NOT NULL REFERENCES team_memories (id),
        at double precision NOT NULL,
        action text NOT NULL,
        member text NOT NULL,
        detail jsonb
    );
    CREATE INDEX team_memory_history_memory ON team_memory_history (memory_id);
    """,
    """
    CREATE TABLE team_calls (
        member text NOT NULL,
        id text NOT NULL,
        ts double precision NOT NULL,
        day text NOT NULL,
        task_id text NOT NULL,
        call_type text NOT NULL,
        model text NOT NULL,
        input_tokens bigint NOT NULL,
        output_tokens bigint NOT NULL,
        cached_tokens bigint NOT NULL,
        reasoning_tokens bigint NOT NULL,
        cost_usd double precision NOT NULL,
        files jsonb NOT NULL DEFAULT '{}',
        PRIMARY KEY (member, id)
    );
    CREATE INDEX team_calls_day ON team_calls (day);
    """,
    """
    ALTER TABLE team_memories
        ADD COLUMN evidence jsonb,
        ADD COLUMN expires_at double precision,
        ADD COLUMN superseded_by text;
    CREATE INDEX team_memories_fingerprint_any ON team_memories (fingerprint);
    CREATE INDEX team_memories_key ON team_memories (key) WHERE key IS NOT NULL;
    CREATE TABLE team_memory_support (
        memory_id text NOT NULL REFERENCES team_memories (id),
        member text NOT NULL,
        task_id text NOT NULL,
        PRIMARY KEY (memory_id, member, task_id)
    );
    CREATE TABLE team_memory_feedback (
        id bigserial PRIMARY KEY,
        memory_id text NOT NULL REFERENCES team_memories (id),
        member text NOT NULL,
        reason text,
        created_at double precision NOT NULL,
        retracted_at double precision
    );
    CREATE INDEX team_memory_feedback_live ON team_memory_feedback (memory_id)
        WHERE retracted_at IS NULL;
    CREATE TABLE team_budget_claims (
        member text NOT NULL,
        day text NOT NULL,
        budget bigint NOT NULL,
        threshold double precision NOT NULL,
        used bigint NOT NULL,
        at double precision NOT NULL,
        PRIMARY KEY (member, day, budget, threshold)
    );
    """,
    """
    ALTER TABLE team_calls
        ADD COLUMN counted boolean NOT NULL DEFAULT true,
        ADD COLUMN priced boolean NOT NULL DEFAULT true,
        ADD COLUMN token_source text NOT NULL DEFAULT 'provider';
    """,
    """
    CREATE TABLE team_facts (
        fingerprint text NOT NULL,
        digest text NOT NULL,
        kind text NOT NULL,
        rows bytea NOT NULL,
        checksum bytea NOT NULL,
        published_by text NOT NULL,
        published_at double precision NOT NULL,
        PRIMARY KEY (fingerprint, digest, kind)
    );
    """,
]

SCHEMA_TABLE = """
    CREATE TABLE IF NOT EXISTS codekeep_team_schema (
        one boolean PRIMARY KEY DEFAULT true CHECK (one),
        version integer NOT NULL
    )
"""
