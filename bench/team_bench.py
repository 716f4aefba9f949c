"""Team database benchmark: recall p95 at 10k team memories and ledger batch throughput,
each against the SQLite path measured in the same run. Prints one JSON object.

Starts its own PostgreSQL 15 (like the tests). ``--memories`` / ``--calls`` / ``--queries``
change the sizes.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from codekeep.ledger.ledger import Ledger
from codekeep.memory import MemoryService, MemorySettings
from codekeep.memory.text import fingerprint
from codekeep.memory.write import WriteRequest
from codekeep.team.config import TeamConfig
from codekeep.team.ledger import TeamLedger
from codekeep.team.memory import TeamMemory
from codekeep.team.store import memories as rows
from codekeep.testing.postgres import PostgresServer, find_bin

WORDS = (
    "deploy", "staging", "vpn", "cache", "flaky", "test", "migration", "schema", "webhook",
    "payment", "retry", "timeout", "login", "session", "token", "rotate", "queue", "worker",
    "build", "docker", "image", "release", "branch", "monday", "review", "lint", "format",
    "python", "typescript", "index", "search", "ranking",
)


def _sentence(rng: random.Random, i: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(8)) + f" case{i}"


def _p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) > 1 else values[0]


def bench_recall(pg: PostgresServer, base: Path, n: int, queries: int) -> dict[str, float]:
    rng = random.Random(7)
    texts = [_sentence(rng, i) for i in range(n)]
    dsn = pg.create_database("bench_memory")
    service = MemoryService.open(base / "ws", user_dir=base / "user", settings=MemorySettings())
    team = TeamMemory(TeamConfig(dsn, "bench"), service._write, service.settings)
    start = time.perf_counter()
    for text in texts:  # verbatim rows (no consolidation) so the load is the same work
        service._write.insert_verbatim("project", WriteRequest(text, "note"))
    sqlite_load = time.perf_counter() - start
    now = time.time()

    def load(conn: object) -> None:
        for i, text in enumerate(texts):
            rows.upsert(conn, rows.NewMemory(  # type: ignore[arg-type]
                f"g{i:012x}", "note", "active", None, None, text,
                fingerprint("note", None, None, text) + str(i), 5, 1.0, "user", (), (),
                "bench", None, now))

    start = time.perf_counter()
    team.db.run(load)
    team_load = time.perf_counter() - start
    asked = [" ".join(rng.sample(WORDS, 3)) for _ in range(queries)]
    local_ms, team_ms = [], []
    for query in asked:
        t0 = time.perf_counter()
        service.recall(query, limit=10)  # no team configured: the SQLite path alone
        local_ms.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        team.recall(query, 10)
        team_ms.append((time.perf_counter() - t0) * 1000)
    team.close()
    service.close()
    return {
        "memories": n,
        "sqliteRecallP50Ms": round(_p(local_ms, 50), 2),
        "sqliteRecallP95Ms": round(_p(local_ms, 95), 2),
        "teamRecallP50Ms": round(_p(team_ms, 50), 2),
        "teamRecallP95Ms": round(_p(team_ms, 95), 2),
        "teamOverSqliteP95": round(_p(team_ms, 95) / _p(local_ms, 95), 2),
        "sqliteLoadS": round(sqlite_load, 2),
        "teamLoadS": round(team_load, 2),
    }


def bench_ledger(pg: PostgresServer, base: Path, calls: int) -> dict[str, float]:
    dsn = pg.create_database("bench_ledger")
    root = base / "ledger-ws"
    root.mkdir()
    with Ledger.open(root, start_flusher=False) as ledger:
        start = time.perf_counter()
        for i in range(calls):
            ledger.record(task_id=f"task-{i % 50}", call_type="read_code", model="gpt-4o",
                          input_tokens=100 + i % 300, output_tokens=20,
                          files={f"src/f{i % 40}.py": 400})
        ledger.flush()
        local_s = time.perf_counter() - start
        team = TeamLedger(TeamConfig(dsn, "bench"), root)
        start = time.perf_counter()
        shipped = team.ship(ledger)
        team_s = time.perf_counter() - start
        team.close()
    assert shipped == calls
    return {
        "calls": calls,
        "sqliteRecordPerS": round(calls / local_s),
        "teamShipPerS": round(calls / team_s),
        "teamOverSqliteThroughput": round((calls / team_s) / (calls / local_s), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--calls", type=int, default=20_000)
    args = parser.parse_args()
    bin_dir = find_bin()
    if bin_dir is None:
        raise SystemExit("PostgreSQL is not installed (apt-get install postgresql-15)")
    pg = PostgresServer(bin_dir)
    pg.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp)
            result = {"recall": bench_recall(pg, base, args.memories, args.queries),
                      "ledger": bench_ledger(pg, base, args.calls)}
    finally:
        pg.destroy()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
