"""Secret detector throughput: the prefiltered detector against the full table, same run.

Prints ONE JSON object. The corpus is what cold docs indexing feeds the detector:
Django's documentation (the sdist ``cli_bench.fetch_django`` downloads from PyPI, or
``--corpus DIR``) cut into the knowledge base's chunks. Each chunk is scanned by
``secrets.find`` (needles and gates rule kinds out first) and by
``secrets.scan(text, TABLE)`` (every pattern, the detector before the prefilter);
MB/s of each, best of ``--rounds``, their ratio, and whether the findings are identical
chunk by chunk (they must be).

It also measures the false positives of the one kind that judges by shape rather than
format, ``secret in prose`` (a secret word near a random-looking token): what it finds
in Django's docs chunks and in this repository's own source and docs (files whole; the
tests apart, since they hold fake credentials on purpose), each found token listed so a
person can judge it.

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


REPO = Path(__file__).resolve().parents[1]
OWN_SOURCE = ("codekeep", "bench", "docs", "editors", "client-vscode/src", "scripts",
              "README.md", "CHANGELOG.md", "CONTRIBUTING.md")
OWN_SUFFIXES = {".py", ".md", ".json", ".lua", ".ts", ".toml", ".scm", ".txt", ""}


def own_files(parts: tuple[str, ...]) -> list[Path]:
    files: list[Path] = []
    for part in parts:
        top = REPO / part
        found = [top] if top.is_file() else sorted(top.rglob("*"))
        files += [path for path in found if path.is_file() and path.suffix in OWN_SUFFIXES
                  and "node_modules" not in path.parts and "__pycache__" not in path.parts]
    return files


def prose_findings(texts: list[str]) -> dict[str, object]:
    """How many ``texts`` the ``secret in prose`` kind flags, and the tokens it hides."""
    prose = next(kind for kind in secrets.TABLE if kind.name == "secret in prose")
    tokens = []
    flagged = 0
    for text in texts:
        found = [text[f.start:f.end] for f in secrets.find(text) if f.kind is prose]
        flagged += bool(found)
        tokens += found
    return {"texts": len(texts), "flagged": flagged,
            "rate": round(flagged / len(texts), 5) if texts else 0.0,
            "tokens": sorted(set(tokens))}


def read_all(files: list[Path]) -> list[str]:
    return [path.read_text(encoding="utf-8", errors="replace") for path in files]


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
            "secret_in_prose": {
                "django_docs_chunks": prose_findings(texts),
                "own_source_files": prose_findings(read_all(own_files(OWN_SOURCE))),
                "own_tests_files": prose_findings(read_all(own_files(("tests",)))),
            },
            "load_1min": round(os.getloadavg()[0], 2),
        }, indent=2))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
