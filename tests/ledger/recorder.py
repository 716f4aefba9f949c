"""A child process for the real-process tests: records calls as fast as it can.

Usage: ``python recorder.py ROOT TASK COUNT`` (COUNT 0: until killed). Every call
carries its sequence number in ``retry``; every 20 ms the process prints
``<time> <calls recorded so far>`` so the parent knows what existed when it killed us.
"""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

from codekeep.ledger import Ledger


def main() -> None:
    root, task, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    ledger = Ledger.open(root)
    print("ready", flush=True)
    next_report = time.time()
    sequence = itertools.count() if count == 0 else iter(range(count))
    for number in sequence:
        ledger.record(task_id=task, call_type="read_code", model="gpt-4o", input_tokens=100,
                      output_tokens=10, files={"a.py": 3, "b.py": 1}, retry=number)
        now = time.time()
        if now >= next_report:
            print(f"{now:.6f} {number + 1}", flush=True)
            next_report = now + 0.02
    ledger.close()
    print("done", flush=True)


if __name__ == "__main__":
    main()
