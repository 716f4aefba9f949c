"""Server memory on a Django-sized tree: the real ``codekeep serve``'s resident set.

Django's sdist (5.1.4, about 474k lines of Python) is fetched from PyPI with pip into a
cache directory (``--cache``, default ``~/.cache/codekeep-bench``; never part of the repo)
and copied to a fresh folder, so every run indexes cold. The server is started on stdio
and its RSS (``/proc/<pid>/status``) is read:

* ``empty``: the same server on an empty folder, measured in the same run (the
  interpreter, pygls, tree-sitter's grammars: what no tree can shrink);
* ``indexed``: once ``codekeep/indexStatus`` says the index is ready;
* ``after_queries``: after a burst of the queries an editor and an agent make (20 files
  opened and edited, their outlines, find/search/references, the repo map, 60 memories
  remembered and recalled 40 times, docs searched: recall keeps its posting lists and
  numpy, docs search its index — a session holds those too);
* ``peak``: the high-water mark (VmHWM) over the whole run.

Prints one JSON object (MB); the goal is ``after_queries`` ≤ 300 MB.
Usage: ``python bench/server_rss_bench.py [--cache DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cli_bench import cached_django  # type: ignore[import-not-found]
from server_bench import StdioClient  # type: ignore[import-not-found]

from codekeep.common.uris import path_to_uri

DJANGO = "5.1.4"
GOAL_MB = 300
QUERIES = ("Model", "QuerySet", "get_queryset", "render", "Field", "HttpResponse", "save")


def status_mb(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM of ``pid``, in MB."""
    fields: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = round(int(value.split()[0]) / 1024, 1)
    return fields


def start(root: Path) -> StdioClient:
    client = StdioClient([sys.executable, "-m", "codekeep", "serve", "--log-level", "ERROR"])
    uri = path_to_uri(root)
    client.request("initialize", {
        "processId": os.getpid(), "rootUri": uri,
        "workspaceFolders": [{"uri": uri, "name": root.name}],
        "capabilities": {"general": {"positionEncodings": ["utf-8", "utf-16"]}},
    })
    client.notify("initialized", {})
    while not client.request("codekeep/indexStatus", {})["ready"]:
        time.sleep(0.2)
    return client


def burst(client: StdioClient, root: Path) -> int:
    """What an editor and an agent ask of a big project for a while; returns the count."""
    count = 0
    files = sorted(root.rglob("*.py"), key=lambda p: -p.stat().st_size)[:20]
    for version, path in enumerate(files, start=2):
        uri = path_to_uri(path)
        text = path.read_text(encoding="utf-8")
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": text}})
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                                          "end": {"line": 0, "character": 0}},
                                "text": "# edited\n"}]})
        client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        count += 1
    for name in QUERIES:
        client.request("codekeep/findSymbol", {"name": name})
        client.request("workspace/symbol", {"query": name})
        found = client.request("codekeep/findSymbol", {"name": name})
        for symbol in found["symbols"][:3]:
            client.request("codekeep/findReferences", {"symbolId": symbol["id"]})
            count += 1
        count += 3
    client.request("codekeep/repoMap", {"tokens": 4096})
    for number, name in enumerate((QUERIES * 9)[:60]):
        client.request("codekeep/memory/remember", {
            "content": f"note {number}: {name} is where the {name.lower()} logic lives",
            "kind": "fact"})
    for number in range(40):
        client.request("codekeep/memory/recall", {"query": f"{QUERIES[number % 7]} logic"})
    for question in ("how do I write a custom model field", "serving static files"):
        client.request("codekeep/docs/search", {"query": question})
    return count + 1 + 60 + 40 + 2


def measure(cache: Path) -> dict[str, Any]:
    tree = cached_django(cache, DJANGO)
    with tempfile.TemporaryDirectory() as scratch:
        empty = Path(scratch, "empty")
        empty.mkdir()
        client = start(empty)
        baseline = status_mb(client.process.pid)["VmRSS"]
        client.close()

        root = Path(scratch, "django")
        shutil.copytree(tree, root)
        files = len(list(root.rglob("*.py")))
        lines = sum(p.read_bytes().count(b"\n") for p in root.rglob("*.py"))
        started = time.perf_counter()
        client = start(root)
        index_s = time.perf_counter() - started
        pid = client.process.pid
        indexed = status_mb(pid)["VmRSS"]
        requests = burst(client, root)
        after = status_mb(pid)
        client.close()
    return {
        "benchmark": "server_rss",
        "tree": f"django-{DJANGO}",
        "python_files": files,
        "python_lines": lines,
        "index_s": round(index_s, 1),
        "rss_mb": {"empty": baseline, "indexed": indexed, "after_queries": after["VmRSS"],
                   "peak": after["VmHWM"]},
        "over_empty_mb": round(after["VmRSS"] - baseline, 1),
        "burst_requests": requests,
        "goal_mb": GOAL_MB,
        "goal_met": after["VmRSS"] <= GOAL_MB,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "codekeep-bench")
    args = parser.parse_args()
    print(json.dumps(measure(args.cache)))


if __name__ == "__main__":
    main()
