"""Token ledger benchmark: record overhead and report time at 100k records.

Prints ONE JSON object. References measured in the same run:
* record: writing each call synchronously (one transaction per call through the same
  store) on the same disk;
* report: the same aggregation computed from the raw rows instead of the roll-ups.

``record_us_amortised`` covers the whole life of each call: ``record()`` plus its share of
the batched writes and roll-ups (the recorder writes its own batches when busy).

Workload: 100k calls over 30 days, 400 tasks of 250 calls, 7 call types, 3 models; each
call reads two files: one of its task's working set of 12 modules (of 400) and one of 37
shared utilities.

Usage: python bench/ledger_bench.py [--records 100000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from codekeep.ledger import Ledger
from codekeep.ledger.store import LedgerStore

TYPES = ["read_code", "read_code.directory", "generate_code", "summarize", "plan", "tool",
         "other"]
MODELS = ["gpt-4o", "gpt-4o-mini", "claude-sonnet-4-5"]
DAYS = 30


class SteppingClock:
    """Spreads the records over ``DAYS`` days so roll-ups hold realistic row counts."""

    def __init__(self, start: float, step: float) -> None:
        self.now, self.step = start, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def fill(root: Path, records: int) -> dict[str, float]:
    clock = SteppingClock(time.time() - DAYS * 86_400, DAYS * 86_400 / records)
    ledger = Ledger.open(root, clock=clock)
    calls = [
        {"task_id": f"task-{index // 250}", "call_type": TYPES[index % len(TYPES)],
         "model": MODELS[index % len(MODELS)], "input_tokens": 500 + index % 4000,
         "output_tokens": 50 + index % 900, "cached_tokens": index % 300,
         "files": {f"src/module_{(index // 250 * 7 + index % 12) % 400}.py": 1200,
                   f"src/util_{index % 37}.py": 300}}
        for index in range(records)
    ]
    latencies = []
    cpu_started = time.process_time()
    started = time.perf_counter()
    for call in calls:
        before = time.perf_counter()
        ledger.record(**call)
        latencies.append(time.perf_counter() - before)
    ledger.close()
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    latencies.sort()
    return {
        "record_us_amortised": round(elapsed / records * 1e6, 2),
        # CPU time of all threads (recorder + flusher): robust when other processes
        # compete for the cores, which inflates the wall-clock figure.
        "record_cpu_us_amortised": round(cpu / records * 1e6, 2),
        "record_us_p50": round(latencies[len(latencies) // 2] * 1e6, 2),
        "record_us_p99": round(latencies[int(len(latencies) * 0.99)] * 1e6, 2),
    }


def synchronous_reference(root: Path, records: int) -> float:
    """µs per call when every call is written by itself (one transaction per call),
    through the same store and roll-ups."""
    ledger = Ledger.open(root / "sync", start_flusher=False)
    calls = [ledger.record(task_id="sync", call_type="plan", model="gpt-4o",
                           input_tokens=500 + index, output_tokens=50,
                           files={"src/a.py": 1200, "src/b.py": 300})
             for index in range(records)]
    store = LedgerStore(root / "sync.db")
    started = time.perf_counter()
    for call in calls:
        store.write([call])
    elapsed = time.perf_counter() - started
    store.close()
    ledger.close()
    return elapsed / records * 1e6


def median_ms(action, repeat: int) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return round(statistics.median(samples) * 1e3, 3)


RAW_REPORT = """
SELECT call_type, COUNT(*), SUM(input_tokens), SUM(output_tokens), SUM(cached_tokens),
       SUM(cost_usd) FROM calls GROUP BY call_type
"""
RAW_FILES = """
SELECT f.key, COUNT(*), SUM(json_extract(f.value, '$[1]'))
FROM calls, json_each(calls.files) AS f GROUP BY f.key ORDER BY 3 DESC LIMIT 10
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        result: dict[str, object] = {"records": options.records}
        result.update(fill(root, options.records))
        sync_us = synchronous_reference(root, min(options.records, 3000))
        result["record_sync_reference_us"] = round(sync_us, 2)
        result["record_vs_sync_ratio"] = round(
            float(result["record_us_amortised"]) / sync_us, 4)  # type: ignore[arg-type]

        ledger = Ledger.open(root, start_flusher=False)
        report_ms = {group: median_ms(lambda group=group: ledger.report(group_by=group),
                                      options.repeat)
                     for group in ("type", "file", "task", "day", "model")}
        task_ms = median_ms(lambda: ledger.report(task_id="task-7"), options.repeat)
        lens_ms = median_ms(lambda: ledger.tokens_for_file("src/module_7.py"), options.repeat)
        ledger.close()
        conn = sqlite3.connect(root / ".codekeep" / "ledger.db")
        raw_ms = median_ms(lambda: (conn.execute(RAW_REPORT).fetchall(),
                                    conn.execute(RAW_FILES).fetchall()), options.repeat)
        conn.close()
        result["report_ms"] = report_ms
        result["report_ms_max"] = max(report_ms.values())
        result["report_task_ms"] = task_ms
        result["tokens_for_file_ms"] = lens_ms
        result["report_raw_reference_ms"] = raw_ms
        result["report_vs_raw_ratio"] = round(report_ms["type"] / raw_ms, 4)
        result["targets"] = {"record_us_amortised": 20, "report_ms": 50}
        result["db_bytes_per_record"] = round(
            sum(path.stat().st_size for path in (root / ".codekeep").glob("ledger.db*"))
            / options.records, 1)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
