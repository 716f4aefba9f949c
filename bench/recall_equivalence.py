"""Recall results before and after a change to recall: the same on the bench's 10k set?

Two checks, each printing one JSON object (exit 1 when anything differs):

* ``engines`` (default): on the memory bench's 10.6k all-live memories, every query's
  BM25 list from the kept posting lists against FTS5's own ranking of it (asked inside
  a read transaction, where the search goes to FTS5): ids, order and bm25 values;
* ``dump OUT.json`` then ``compare A.json B.json``: whole recalls (ids, scores, their
  parts, access counts) on the same set with a fixed clock and ids, with kinds, by file,
  and remembers and forgets between them. Run ``dump`` under the code before (e.g. a
  ``git worktree`` of it first on ``PYTHONPATH``) and after, then ``compare``.

Usage: python bench/recall_equivalence.py [engines|dump OUT|compare A B] [--queries N]
[--seed S]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from memory_bench import LEXICON, WEIGHTS, populate, sentence  # type: ignore[import-not-found]

import codekeep.memory.write as write
from codekeep.memory import MemoryService, MemorySettings
from codekeep.memory.model import RECALLABLE_STATUSES

START = 1_800_000_000.0


def _open(tmp: str, clock: list[float]) -> MemoryService:
    root = Path(tmp) / "ws"
    root.mkdir()
    settings = MemorySettings(capacity_per_scope=40_000, clock=lambda: clock[0])
    service = MemoryService.open(root, user_dir=Path(tmp) / "user", settings=settings)
    populate(service, 10_000, random.Random(7), all_active=True)
    return service


def _query(rng: random.Random) -> str:
    return " ".join(rng.choices(LEXICON, WEIGHTS, k=rng.choice([1, 2, 3, 3, 4, 6])))


def engines(queries: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        service = _open(tmp, [START])
        store = service.project
        differ: list[str] = []
        for number in range(queries):
            text = _query(rng)
            kinds = ["summary", "fact"] if number % 4 == 3 else None
            store.search.text(text, RECALLABLE_STATUSES, kinds, 30)  # a common word's first use
            kept = store.search.text(text, RECALLABLE_STATUSES, kinds, 30)
            store.conn.execute("BEGIN")
            try:
                fts5 = store.search.text(text, RECALLABLE_STATUSES, kinds, 30)
            finally:
                store.conn.execute("COMMIT")
            if kept != fts5:
                differ.append(text)
        service.close()
    return {"check": "engines", "queries": queries, "differ": len(differ), "examples": differ[:5]}


def dump(out: Path, queries: int, seed: int) -> dict[str, Any]:
    counter = iter(range(1, 10**9))
    write.secrets.token_hex = lambda _n=6: f"{next(counter):012x}"  # ids the same every run
    rng = random.Random(seed)
    clock = [START]
    results: list[Any] = []
    with tempfile.TemporaryDirectory() as tmp:
        service = _open(tmp, clock)
        for number in range(queries):
            text = _query(rng)
            clock[0] += 37.0
            if number % 50 == 49:  # writes between recalls: the kept lists must follow them
                written = service.remember(sentence(rng, 10) + " " + text, files=["src/a.py"])
                results.append(["remember", written.action])
                if number % 100 == 99 and written.id:
                    service.forget(written.id)
            if number % 7 == 0:
                path = f"src/pkg{rng.randrange(120)}/mod{rng.randrange(700)}.py"
                found = service.recall("", limit=10, files=[path])
            else:
                kinds = [None, None, None, ["fact"], ["summary", "fact"]][number % 5]
                found = service.recall(text, limit=10, kinds=kinds)
            results.append([text, [
                [h.memory.id, h.score, h.parts.recency, h.parts.importance, h.parts.relevance,
                 h.memory.access_count] for h in found
            ]])
        service.close()
    out.write_text(json.dumps(results))
    return {"check": "dump", "out": str(out), "recalls": queries}


def compare(before: Path, after: Path) -> dict[str, Any]:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    differ = [i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y]
    hits = sum(len(entry[1]) for entry in a if isinstance(entry[1], list))
    return {"check": "compare", "entries": [len(a), len(b)], "hits": hits,
            "differ": len(differ) + abs(len(a) - len(b)), "first_differing": differ[:5]}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "check", nargs="?", default="engines", choices=["engines", "dump", "compare"]
    )
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--queries", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    if args.check == "engines":
        result = engines(args.queries, args.seed)
    elif args.check == "dump":
        result = dump(args.files[0], args.queries, args.seed)
    else:
        result = compare(args.files[0], args.files[1])
    print(json.dumps(result))
    sys.exit(1 if result.get("differ") else 0)


if __name__ == "__main__":
    main()
