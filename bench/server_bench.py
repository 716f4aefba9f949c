"""Keystroke-to-answer through the real protocol, against the protocol's own floor.

Starts ``python -m codekeep.server`` on stdio with a 2,000-line Python file open and
measures, from a minimal JSON-RPC client in this process:

* keystroke: send ``didChange`` (one character typed into a function name), then
  ``codekeep/findSymbol`` for the new name, until its answer arrives;
* floor: the round trip of a trivial request (``textDocument/hover`` on a document
  outside the workspace: answered by the event loop without touching the index).

Prints one JSON object: p50/p99 of both (ms), the p50 difference and whether it is
within the 3 ms target, plus the code map's own edit + lookup time measured in this
process on the same file (so the server's share can be told from the index's).
Usage: ``python bench/server_bench.py [--rounds N]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from codekeep.analysis.codemap import CodeMap
from codekeep.common.uris import path_to_uri

TARGET_MS = 3.0
LINES = 2000


class StdioClient:
    """Just enough JSON-RPC to drive a server: requests, notifications, and polite
    answers to the server's own requests (progress tokens, configuration)."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self._ids = itertools.count(1)

    def _write(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def _read(self) -> dict[str, Any]:
        stdout = self.process.stdout
        assert stdout is not None
        length = 0
        while (line := stdout.readline().strip()) != b"":
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(stdout.read(length))

    def notify(self, method: str, params: Any) -> None:
        self._write({"method": method, "params": params})

    def request(self, method: str, params: Any) -> Any:
        msg_id = next(self._ids)
        self._write({"id": msg_id, "method": method, "params": params})
        while True:
            message = self._read()
            if message.get("id") == msg_id and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result")
            if "method" in message and "id" in message:  # a request from the server
                items = (message.get("params") or {}).get("items") or []
                result = (
                    [None] * len(items) if message["method"] == "workspace/configuration" else None
                )
                self._write({"id": message["id"], "result": result})

    def close(self) -> None:
        self.request("shutdown", None)
        self.notify("exit", None)
        self.process.wait(timeout=30)


def source_file(lines: int) -> str:
    """Classes with methods and module functions calling each other: exactly ``lines``."""
    out: list[str] = []
    for i in itertools.count():
        out += [
            f"class Widget{i}:",
            "    def render(self, value):",
            f"        return helper_{i}(value)",
            "",
            "",
            f"def helper_{i}(value):",
            f"    return value + {i}",
            "",
            "",
        ]
        if len(out) >= lines:
            return "\n".join(out[:lines]) + "\n"
    raise AssertionError("unreachable")


def edit(i: int, line: int) -> tuple[tuple[int, int], tuple[int, int], str, str]:
    """Keystroke ``i``: type "x" after ``helper_100`` (even), delete it again (odd)."""
    column = len("def helper_100")
    if i % 2 == 0:
        return (line, column), (line, column), "x", "helper_100x"
    return (line, column), (line, column + 1), "", "helper_100"


def in_process(text: str, line: int, rounds: int) -> list[float]:
    """The same edit + lookup straight on a CodeMap: the index's own share of a keystroke."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        (root / "big_module.py").write_text(text)
        codemap = CodeMap.open(root)
        codemap.index()
        codemap.open_document("big_module.py", text)
        samples = []
        for i in range(rounds):
            start, end, typed, name = edit(i, line)
            started = time.perf_counter()
            codemap.apply_edit("big_module.py", start, end, typed)
            codemap.find_symbol(name)
            samples.append((time.perf_counter() - started) * 1000)
        codemap.close()
    return samples


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def measure(rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        text = source_file(LINES)
        path = root / "big_module.py"
        path.write_text(text)
        client = StdioClient([sys.executable, "-m", "codekeep.server", "--log-level", "ERROR"])
        client.request(
            "initialize",
            {
                "processId": None,
                "rootUri": path_to_uri(root),
                "workspaceFolders": [{"uri": path_to_uri(root), "name": root.name}],
                "capabilities": {"general": {"positionEncodings": ["utf-8", "utf-16"]}},
            },
        )
        client.notify("initialized", {})
        while not client.request("codekeep/indexStatus", {})["ready"]:
            time.sleep(0.05)
        uri = path_to_uri(path)
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
        )
        line = text.splitlines().index("def helper_100(value):")
        client.request("codekeep/findSymbol", {"name": "helper_100"})  # open is applied

        outside = {
            "textDocument": {"uri": "untitled:floor"},
            "position": {"line": 0, "character": 0},
        }
        floor = []
        for _ in range(rounds):
            started = time.perf_counter()
            client.request("textDocument/hover", outside)
            floor.append((time.perf_counter() - started) * 1000)

        keystroke = []
        for i in range(rounds):
            start, end, typed, name = edit(i, line)
            started = time.perf_counter()
            client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": i + 2},
                    "contentChanges": [
                        {
                            "range": {
                                "start": {"line": start[0], "character": start[1]},
                                "end": {"line": end[0], "character": end[1]},
                            },
                            "text": typed,
                        }
                    ],
                },
            )
            found = client.request("codekeep/findSymbol", {"name": name})
            keystroke.append((time.perf_counter() - started) * 1000)
            if len(found["symbols"]) != 1:
                raise RuntimeError(f"edit not visible to the next request: {name}")
        client.close()
    index_share = in_process(text, line, rounds)

    floor_p50, key_p50 = statistics.median(floor), statistics.median(keystroke)
    index_p50 = statistics.median(index_share)
    return {
        "benchmark": "server_keystroke_to_answer",
        "file_lines": len(text.splitlines()),
        "rounds": rounds,
        "keystroke_p50_ms": round(key_p50, 3),
        "keystroke_p99_ms": round(percentile(keystroke, 0.99), 3),
        "floor_p50_ms": round(floor_p50, 3),
        "floor_p99_ms": round(percentile(floor, 0.99), 3),
        "over_floor_p50_ms": round(key_p50 - floor_p50, 3),
        # The code map's own edit + lookup, in this process, without any protocol:
        "index_edit_and_find_p50_ms": round(index_p50, 3),
        "index_edit_and_find_p99_ms": round(percentile(index_share, 0.99), 3),
        # What the server adds beyond the protocol floor and the index's own work.
        "server_overhead_p50_ms": round(key_p50 - floor_p50 - index_p50, 3),
        "ratio_p50": round(key_p50 / floor_p50, 2) if floor_p50 else None,
        "target_over_floor_ms": TARGET_MS,
        "target_met": key_p50 - floor_p50 <= TARGET_MS,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    print(json.dumps(measure(args.rounds)))


if __name__ == "__main__":
    main()
