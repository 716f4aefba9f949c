"""Team database benchmark: recall p95 at 10k team memories, a write through the state
machine at that size, ledger batch throughput, and recording while the background sender
drains the outbox — each against the SQLite path measured in the same run. Prints one
JSON object.

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
from codekeep.services import open_memory
from codekeep.settings.team import TeamSettings
from codekeep.team.config import TeamConfig
from codekeep.team.ledger import TeamLedger
from codekeep.team.sender import TeamSender
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
    shared = open_memory(base / "team-ws", MemorySettings(), TeamSettings(dsn=dsn, member="bench"),
                         user_dir=base / "team-user")
    team = shared.team
    assert team is not None
    start = time.perf_counter()
    for text in texts:  # verbatim rows (no consolidation) so the load is the same work
        service._write.insert_verbatim("project", WriteRequest(text, "note"))
    sqlite_load = time.perf_counter() - start
    now = time.time()
    start = time.perf_counter()
    with team.store.transaction():
        for i, text in enumerate(texts):
            team.store.insert({
                "id": f"g{i:012x}", "kind": "note", "status": "active", "key": None,
                "value": None, "content": text, "importance": 5, "confidence": 1.0,
                "fingerprint": fingerprint("note", None, None, text) + str(i),
                "source": "user", "created_at": now, "last_seen_at": now,
            }, (), ())
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
    # one write through the whole write path (gate, state machine, history) at this size
    written = [_sentence(rng, n + i) + " written" for i in range(max(20, queries // 4))]
    local_write, team_write = [], []
    for text in written:
        t0 = time.perf_counter()
        service.remember(text, kind="fact")
        local_write.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        shared.remember(text, kind="fact", scope="team")
        team_write.append((time.perf_counter() - t0) * 1000)
    shared.close()
    service.close()
    return {
        "memories": n,
        "sqliteRecallP50Ms": round(_p(local_ms, 50), 2),
        "sqliteRecallP95Ms": round(_p(local_ms, 95), 2),
        "teamRecallP50Ms": round(_p(team_ms, 50), 2),
        "teamRecallP95Ms": round(_p(team_ms, 95), 2),
        "teamOverSqliteP95": round(_p(team_ms, 95) / _p(local_ms, 95), 2),
        "sqliteRememberP95Ms": round(_p(local_write, 95), 2),
        "teamRememberP95Ms": round(_p(team_write, 95), 2),
        "teamOverSqliteRememberP95": round(_p(team_write, 95) / _p(local_write, 95), 2),
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
    # recording with and without the background sender draining the outbox, same work
    # (it never runs on the recording thread: the ratio is what it costs the recorder
    # when both share the CPU)
    _record_rate(base / "warm-up", calls // 4, None)
    alone, _ = _record_rate(base / "alone", calls, None)
    with_sender, drained_s = _record_rate(base / "with-sender", calls, dsn)
    return {
        "calls": calls,
        "sqliteRecordPerS": round(calls / local_s),
        "teamShipPerS": round(calls / team_s),
        "teamOverSqliteThroughput": round((calls / team_s) / (calls / local_s), 3),
        "recordPerSAlone": round(alone),
        "recordPerSWithSender": round(with_sender),
        "withSenderOverAlone": round(with_sender / alone, 3),
        "senderDrainAfterLastRecordS": round(drained_s, 2),
    }


def _record_rate(root: Path, calls: int, dsn: str | None) -> tuple[float, float]:
    """(calls recorded per second, seconds the sender took to drain after the last one)
    on a ledger with its usual flusher; with ``dsn``, a background sender running."""
    root.mkdir()
    with Ledger.open(root) as ledger:
        sender = None if dsn is None else TeamSender(
            ledger, TeamLedger(TeamConfig(dsn, root.name), root), interval_s=0.05,
            daily_budget=0, warn_ratios=(1.0,), on_budget=lambda _event: None).start()
        start = time.perf_counter()
        for i in range(calls):
            ledger.record(task_id=f"task-{i % 50}", call_type="read_code", model="gpt-4o",
                          input_tokens=100 + i % 300, output_tokens=20,
                          files={f"src/f{i % 40}.py": 400})
        rate = calls / (time.perf_counter() - start)
        start = time.perf_counter()
        while sender is not None and sender.team.waiting(ledger):
            time.sleep(0.05)
        drained = time.perf_counter() - start
        if sender is not None:
            sender.close()
    return rate, drained


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
