"""Keystroke-to-answer through the real protocol, against the protocol's own floor.

Starts ``python -m codekeep.server`` on stdio with a 2,000-line Python file open and
measures, from a minimal JSON-RPC client in this process:

* keystroke: send ``didChange`` (one character typed into a function name), then
  ``codekeep/findSymbol`` for the new name, until its answer arrives (the server
  answers from the re-parsed buffer and extracts the facts once the editor is quiet);
* floor: the round trip of a trivial request (``textDocument/hover`` on a document
  outside the workspace: answered by the event loop without touching the index).

Prints one JSON object: p50/p99 of both (ms), the p50 difference and whether it is
within the 3 ms target, plus the code map's own edit + lookup time measured in this
process on the same file (so the server's share can be told from the index's), and
the settling each keystroke's facts get afterwards, off the request path.
Then, typing (the same server process kind: ``codekeep serve``): a method with a
docstring and string literals is typed one keystroke per ``didChange`` (Enter comes with
the editor's indentation) into each of several 2,000-3,000-line Python files of the
installed mypy, each keystroke followed by ``codekeep/findSymbol`` for the method being
typed; the floor (the same trivial request) is measured between keystrokes. Keystrokes
are told apart by where they land: code, inside the docstring (open: the rest of the file
reads as a string until it is closed) or inside a string literal. Every answer is checked
against a full extraction of the text typed so far (``fresh``); this client collects its
own garbage between keystrokes, not inside a timed one.

Usage: ``python bench/server_bench.py [--rounds N] [--files N]``.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from codekeep.analysis.codemap import CodeMap
from codekeep.analysis.parsing import analyse_source
from codekeep.analysis.registry import default_registry
from codekeep.common.uris import path_to_uri

TARGET_MS = 3.0
LINES = 2000
TYPING_TARGETS_MS = {"p50": 2.0, "p99": 10.0}  # over the floor
# What is typed into each file, before a top-level function in its middle.
METHOD = (
    'def typed_method(self, value):\n'
    '    """Return the label of the value, with a suffix."""\n'
    '    label = "typed: " + str(value)\n'
    "    return label + 'done'\n"
    '\n'
    '\n'
)


class StdioClient:
    """Just enough JSON-RPC to drive a server: requests, notifications, and polite
    answers to the server's own requests (progress tokens, configuration)."""

    def __init__(self, command: list[str], env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=env,
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


def in_process(text: str, line: int, rounds: int) -> tuple[list[float], list[float]]:
    """The same edit + lookup straight on a CodeMap, as the server does them (the edit's
    facts owed, the lookup from the new tree): the index's own share of a keystroke;
    and the settling that follows off the request path (extraction + index write)."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        (root / "big_module.py").write_text(text)
        codemap = CodeMap.open(root)
        codemap.index()
        codemap.open_document("big_module.py", text)
        samples, settling = [], []
        for i in range(rounds):
            start, end, typed, name = edit(i, line)
            started = time.perf_counter()
            codemap.apply_edit("big_module.py", start, end, typed, defer=True)
            codemap.find_symbol(name)
            samples.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            codemap.settle()
            settling.append((time.perf_counter() - started) * 1000)
        codemap.close()
    return samples, settling


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
    index_share, settling = in_process(text, line, rounds)

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
        # The extraction and index write that follow, once the editor is quiet:
        "index_settle_p50_ms": round(statistics.median(settling), 3),
        "index_settle_p99_ms": round(percentile(settling, 0.99), 3),
        # What the server adds beyond the protocol floor and the index's own work.
        "server_overhead_p50_ms": round(key_p50 - floor_p50 - index_p50, 3),
        "ratio_p50": round(key_p50 / floor_p50, 2) if floor_p50 else None,
        "target_over_floor_ms": TARGET_MS,
        "target_met": key_p50 - floor_p50 <= TARGET_MS,
    }


def large_files(count: int) -> list[Path]:
    """``count`` Python files of 2,000-3,000 lines from the installed mypy."""
    spec = importlib.util.find_spec("mypy")
    assert spec is not None and spec.submodule_search_locations, "mypy is not installed"
    source = Path(next(iter(spec.submodule_search_locations)))
    sized = sorted((path.read_bytes().count(b"\n"), path) for path in source.rglob("*.py"))
    return [path for lines, path in sized if 2000 <= lines <= 3000][:count]


def keystrokes(text: str) -> list[tuple[str, str]]:
    """``text`` as typed: (what one ``didChange`` inserts, where it lands). Enter comes
    with the next line's indentation, as an editor's auto-indent sends it."""
    typed: list[tuple[str, str]] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\n":
            indent = len(text[index + 1:]) - len(text[index + 1:].lstrip(" "))
            indent = min(indent, len(text[index + 1:].split("\n", 1)[0]))
            typed.append(("\n" + " " * indent, _where(text, index)))
            index += 1 + indent
            continue
        typed.append((char, _where(text, index)))
        index += 1
    return typed


def _where(text: str, index: int) -> str:
    """Code, docstring or string: what the text before ``index`` leaves open."""
    before = text[:index]
    if before.count('"""') % 2:
        return "docstring"
    line = before.rsplit("\n", 1)[-1].replace('"""', "")
    return "string" if line.count('"') % 2 or line.count("'") % 2 else "code"


def expected_symbols(data: bytes, name: str) -> list[tuple[int, int, int, int]]:
    """The ranges of the symbols named ``name`` in a full extraction of ``data``."""
    spec = default_registry().get("python")
    assert spec is not None
    _tree, facts = analyse_source(spec, data)
    return sorted((s.span.line, s.span.col, s.span.end_line, s.span.end_col)
                  for s in facts.symbols if s.name == name)


def answered_ranges(found: dict[str, Any]) -> list[tuple[int, int, int, int]]:
    ranges = []
    for symbol in found["symbols"]:
        start, end = symbol["range"]["start"], symbol["range"]["end"]
        ranges.append((start["line"], start["character"], end["line"], end["character"]))
    return sorted(ranges)


def summary(samples: list[float], floor_p50: float) -> dict[str, Any]:
    p50, p99 = statistics.median(samples), percentile(samples, 0.99)
    return {"count": len(samples), "p50_ms": round(p50, 3), "p99_ms": round(p99, 3),
            "over_floor_p50_ms": round(p50 - floor_p50, 3),
            "over_floor_p99_ms": round(p99 - floor_p50, 3)}


def measure_typing(files: int) -> dict[str, Any]:
    """Type :data:`METHOD` into each large file through ``codekeep serve``."""
    sources = large_files(files)
    floor: list[float] = []
    by_place: dict[str, list[float]] = {"code": [], "docstring": [], "string": []}
    fresh = stale = 0
    outside = {"textDocument": {"uri": "untitled:floor"}, "position": {"line": 0, "character": 0}}
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        for source in sources:
            (root / source.name).write_bytes(source.read_bytes())
        client = StdioClient([sys.executable, "-m", "codekeep", "serve", "--log-level", "ERROR"])
        client.request("initialize", {
            "processId": os.getpid(), "rootUri": path_to_uri(root),
            "workspaceFolders": [{"uri": path_to_uri(root), "name": root.name}],
            "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
        })
        client.notify("initialized", {})
        while not client.request("codekeep/indexStatus", {})["ready"]:
            time.sleep(0.05)
        for number, source in enumerate(sources):
            path = root / source.name
            text = path.read_text(encoding="utf-8")
            lines = text.split("\n")
            line = len(lines) // 2
            while not lines[line].startswith("def "):
                line += 1
            name = f"typed_method_{number}"
            method = METHOD.replace("typed_method", name)
            uri = path_to_uri(path)
            client.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "python", "version": 1, "text": text}})
            client.request("codekeep/findSymbol", {"name": name})  # the open is applied
            data = text.encode("utf-8")
            offset = len("\n".join(lines[:line]).encode("utf-8")) + 1
            at = (line, 0)
            for version, (typed, place) in enumerate(keystrokes(method), start=2):
                # This client's own garbage (the full extraction each answer is checked
                # against) is collected between keystrokes, never inside a timed one.
                gc.collect()
                gc.disable()
                started = time.perf_counter()
                client.request("textDocument/hover", outside)
                floor.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                client.notify("textDocument/didChange", {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"range": {
                        "start": {"line": at[0], "character": at[1]},
                        "end": {"line": at[0], "character": at[1]}}, "text": typed}]})
                found = client.request("codekeep/findSymbol", {"name": name})
                by_place[place].append((time.perf_counter() - started) * 1000)
                gc.enable()
                added = typed.encode("utf-8")
                data = data[:offset] + added + data[offset:]
                offset += len(added)
                at = ((at[0] + typed.count("\n"), len(typed) - typed.rfind("\n") - 1)
                      if "\n" in typed else (at[0], at[1] + len(added)))
                if answered_ranges(found) == expected_symbols(data, name):
                    fresh += 1
                else:
                    stale += 1
        client.close()
    floor_p50 = statistics.median(floor)
    every = [x for samples in by_place.values() for x in samples]
    overall = summary(every, floor_p50)
    return {
        "files": {f"mypy/{p.name}": len(p.read_bytes().splitlines()) for p in sources},
        "floor_p50_ms": round(floor_p50, 3),
        "floor_p99_ms": round(percentile(floor, 0.99), 3),
        "all": overall,
        **{place: summary(samples, floor_p50) for place, samples in by_place.items()},
        "fresh_answers": fresh,
        "stale_answers": stale,
        "targets_over_floor_ms": TYPING_TARGETS_MS,
        "targets_met": overall["over_floor_p50_ms"] <= TYPING_TARGETS_MS["p50"]
        and overall["over_floor_p99_ms"] <= TYPING_TARGETS_MS["p99"] and stale == 0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--files", type=int, default=4)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    result = measure(args.rounds)
    result["typing"] = measure_typing(args.files)
    result["load_1min"] = {"start": round(load, 2), "end": round(os.getloadavg()[0], 2)}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
