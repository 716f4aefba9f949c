"""Secret detector throughput: the prefiltered detector against the full table, same run.

Prints ONE JSON object. The corpus is what cold docs indexing feeds the detector:
Django's documentation (the sdist ``cli_bench.fetch_django`` downloads from PyPI, or
``--corpus DIR``) cut into the knowledge base's chunks. Each chunk is scanned by
``secrets.find`` (needles and gates rule kinds out first) and by
``secrets.scan(text, TABLE)`` (every pattern, the detector before the prefilter);
MB/s of each, best of ``--rounds``, their ratio, and whether the findings are identical
chunk by chunk (they must be).

Usage: python bench/secrets_bench.py [--version 5.1.4] [--corpus DIR] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from cli_bench import fetch_django  # type: ignore[import-not-found]

from codekeep.common import secrets
from codekeep.docs.chunking import ChunkSizes, parse_document
from codekeep.settings.docs import DocsSettings


def chunks_of(root: Path) -> list[str]:
    settings = DocsSettings()
    sizes = ChunkSizes(settings.chunk_tokens, settings.overlap_tokens)
    texts = []
    for path in sorted(root.rglob("*.txt")):
        text = path.read_text(encoding="utf-8", errors="replace")
        parsed = parse_document(path.relative_to(root).as_posix(), text, "rst", sizes)
        texts += [chunk.text for chunk in parsed.chunks]
    return texts


def best_seconds(fn: Callable[[], object], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default="5.1.4", help="Django version to download")
    parser.add_argument("--corpus", type=Path, help="an unpacked docs folder (skip download)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="codekeep-secrets-bench-"))
    try:
        root = args.corpus or fetch_django(args.version, workdir, part="docs")
        texts = chunks_of(root)
        megabytes = sum(len(text.encode("utf-8")) for text in texts) / 1e6
        fast = [secrets.find(text) for text in texts]
        full = [secrets.scan(text, secrets.TABLE) for text in texts]
        fast_s = best_seconds(lambda: [secrets.find(text) for text in texts], args.rounds)
        full_s = best_seconds(
            lambda: [secrets.scan(text, secrets.TABLE) for text in texts], args.rounds)
        print(json.dumps({
            "corpus": {"project": "django", "chunks": len(texts), "mb": round(megabytes, 2)},
            "findings": sum(map(len, fast)),
            "identical": fast == full,
            "prefiltered_mb_per_s": round(megabytes / fast_s, 2),
            "full_table_mb_per_s": round(megabytes / full_s, 2),
            "speedup": round(full_s / fast_s, 2),
            "load_1min": round(os.getloadavg()[0], 2),
        }, indent=2))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
