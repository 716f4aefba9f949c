"""The team ledger's SQL: batches of members' calls (idempotent by ``(member, id)``) and
the team report's sums."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import psycopg

# group name -> the column the team report groups by
GROUPS = {"member": "member", "task": "task_id", "day": "day"}


def insert(conn: psycopg.Connection, member: str, records: Sequence[dict[str, Any]]) -> int:
    """Write a batch in one pipelined round of statements; how many were new (a re-sent
    record adds nothing: the ``(member, id)`` key)."""
    if not records:
        return 0
    with conn.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO team_calls (member, id, ts, day, task_id, call_type, model, "
            "input_tokens, output_tokens, cached_tokens, reasoning_tokens, cost_usd, files, "
            "counted, priced, token_source) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (member, id) DO NOTHING",
            [
                (
                    member, r["id"], r["ts"], r["day"], r["taskId"], r["callType"], r["model"],
                    r["inputTokens"], r["outputTokens"], r["cachedTokens"],
                    r["reasoningTokens"], r["costUsd"], json.dumps(r.get("files") or {}),
                    r["counted"], r["priced"], r["tokenSource"],
                )
                for r in records
            ],
        )
        return max(0, cursor.rowcount)


# A row that only grew a call booked before (counted false) adds tokens and cost but no
# call; a call is unpriced when the member's price table did not know its model, and
# estimated when CodeKeep counted its tokens (the provider reported none).
_CALLS = "count(*) FILTER (WHERE counted)"
_FLAGS = ("count(*) FILTER (WHERE counted AND NOT priced), "
          "count(*) FILTER (WHERE counted AND token_source <> 'provider')")
_MEASURES = (
    f"{_CALLS} AS calls, sum(input_tokens) AS input_tokens, sum(output_tokens) AS "
    f"output_tokens, sum(cached_tokens) AS cached_tokens, sum(cost_usd) AS cost_usd, {_FLAGS}"
)

TeamTotals = tuple[str, int, int, int, int, float, int, int]


def totals(conn: psycopg.Connection, group: str, since_day: str | None) -> list[TeamTotals]:
    """(key, calls, input, output, cached, cost, unpriced calls, estimated calls) per
    group, biggest spender first."""
    where, params = ("WHERE day >= %s", [since_day]) if since_day else ("", [])
    if group == "file":
        rows = conn.execute(
            f"SELECT f.key, {_CALLS}, sum(f.value::bigint), 0, 0, 0.0, {_FLAGS} "
            f"FROM team_calls, jsonb_each_text(files) AS f {where} GROUP BY f.key "
            "ORDER BY sum(f.value::bigint) DESC, f.key",
            params,
        ).fetchall()
    else:
        column = GROUPS[group]
        rows = conn.execute(
            f"SELECT {column}, {_MEASURES} FROM team_calls {where} GROUP BY {column} "
            "ORDER BY sum(input_tokens) + sum(output_tokens) DESC, 1",
            params,
        ).fetchall()
    return [
        (str(r[0]), int(r[1]), int(r[2] or 0), int(r[3] or 0), int(r[4] or 0), float(r[5] or 0),
         int(r[6]), int(r[7]))
        for r in rows
    ]


def spent_on(conn: psycopg.Connection, day: str) -> int:
    """Tokens (input + output) the whole team spent on ``day``."""
    row = conn.execute(
        "SELECT coalesce(sum(input_tokens + output_tokens), 0) FROM team_calls WHERE day = %s",
        (day,),
    ).fetchone()
    return int(row[0]) if row else 0


def claim_budget(conn: psycopg.Connection, member: str, day: str, budget: int,
                 threshold: float, used: int, at: float) -> bool:
    """True the first time ``member`` is told of crossing ``threshold`` of ``budget`` on
    ``day`` (the key makes a second sender of the same member, or a restart, a no-op)."""
    row = conn.execute(
        "INSERT INTO team_budget_claims (member, day, budget, threshold, used, at) "
        "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING RETURNING member",
        (member, day, budget, threshold, used, at),
    ).fetchone()
    return row is not None
