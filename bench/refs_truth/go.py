"""Go: the code map's ``find_references`` against gopls on spf13/cobra + spf13/pflag
and gorilla/mux.

Sources are Debian's (``golang-github-spf13-cobra-dev``, ``golang-github-spf13-pflag-dev``,
``golang-github-gorilla-mux-dev``; the Go module proxy is not needed): they are copied
into a GOPATH under the cache directory (``$CODEKEEP_REFS_TRUTH_CACHE``, default
``~/.cache/codekeep/refs_truth``), and gopls runs in GOPATH mode (``GO111MODULE=off``),
fully offline. cobra's ``doc`` package is left out (it needs modules Debian ships
separately). The workspace is ``src/github.com``, so paths read
``spf13/cobra/command.go``, ``gorilla/mux/route.go``.

gopls is driven over LSP on stdio (one workspace load for every symbol), asked for
``textDocument/references`` without the declaration. Symbols: a fixed list of the
names once found confused, then, per project, exported definitions of non-test
files sampled evenly per category (package functions, methods, types, interface
methods).

Usage: ``python -m bench.refs_truth go [--cache DIR] [--show-symbols]``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from bench.refs_truth.common import arguments, brief, close_maps, codekeep_references, score
from codekeep.analysis import CodeMap, Symbol

PACKAGES = ("gopls", "golang-go", "golang-github-spf13-cobra-dev",
            "golang-github-spf13-pflag-dev", "golang-github-gorilla-mux-dev")
DEBIAN_SOURCES = Path("/usr/share/gocode/src/github.com")
# Sampled separately: the spf13 pair, and gorilla/mux.
PROJECTS = {"spf13": ("spf13/cobra", "spf13/pflag"), "gorilla": ("gorilla/mux",)}
# (Container.name or name, file) of the cases once reported confused.
NAMED = (
    ("MarkFlagDirname", "spf13/cobra/shell_completions.go"),
    ("Command.MarkFlagDirname", "spf13/cobra/shell_completions.go"),
    ("String", "spf13/pflag/string.go"),
    ("FlagSet.String", "spf13/pflag/string.go"),
    ("Command.Name", "spf13/cobra/command.go"),
    ("Value.Set", "spf13/pflag/flag.go"),
)
STABLE_ANSWERS, MAX_ASKS, SESSIONS = 6, 30, 3
SAMPLE = {"function": 10, "method": 16, "type": 8, "interface method": 4}


def ensure_tools() -> None:
    """apt-get the checker, the toolchain and the sources, only when one is missing."""
    missing = shutil.which("gopls") is None or shutil.which("go") is None or not all(
        (DEBIAN_SOURCES / name / "go.mod").is_file()
        for names in PROJECTS.values() for name in names)
    if not missing:
        return
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run([*sudo, "apt-get", "install", "-y", "-q", *PACKAGES], check=True, env=env,
                   stdout=subprocess.DEVNULL)


def gopls_version() -> str:
    query = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "gopls"],
                           capture_output=True, text=True, check=False)
    return query.stdout.strip() or "unknown"


def prepare(cache: Path) -> Path:
    """A fresh GOPATH copy of the sources; returns the workspace root."""
    gopath = cache / "go" / "gopath"
    shutil.rmtree(gopath, ignore_errors=True)
    root = gopath / "src" / "github.com"
    for names in PROJECTS.values():
        for name in names:
            shutil.copytree(DEBIAN_SOURCES / name, root / name,
                            ignore=shutil.ignore_patterns("doc", ".*"))
    return root


def go_env(root: Path) -> dict[str, str]:
    gopath = root.parents[1]
    return {**os.environ, "GOPATH": str(gopath), "GO111MODULE": "off", "GOFLAGS": "",
            "GOPROXY": "off", "GOCACHE": str(gopath.parent / "gocache")}


class Gopls:
    """A gopls language server on stdio, for ``textDocument/references``."""

    def __init__(self, root: Path):
        self.root = root
        self._next = 0
        self._process = subprocess.Popen(
            ["gopls", "serve"], cwd=root, env=go_env(root), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.request("initialize", {
            "processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {},
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}]})
        self._send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        assert self._process.stdin is not None
        self._process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self._process.stdin.flush()

    def _receive(self) -> dict[str, Any]:
        stream = self._process.stdout
        assert stream is not None
        length = 0
        while True:
            header = stream.readline()
            if not header:
                raise RuntimeError("gopls exited")
            if header in (b"\r\n", b"\n"):
                break
            key, _colon, value = header.decode().partition(":")
            if key.lower() == "content-length":
                length = int(value)
        message: dict[str, Any] = json.loads(stream.read(length))
        return message

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self._next += 1
        ident = self._next
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        while True:
            message = self._receive()
            if message.get("id") == ident and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"gopls {method}: {message['error']}")
                return message.get("result")
            if "method" in message and "id" in message:  # a request from the server
                items = message.get("params", {}).get("items", [])
                result = [{}] * len(items) if message["method"] == "workspace/configuration" \
                    else None
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    def references(self, path: str, line: int, character: int) -> set[tuple[str, int]]:
        """Uses of the identifier at 0-based ``line``/``character``, declaration excluded.

        gopls 0.5 adds the uses of the interface methods a method implements (and the
        other way round), but checks them in one variant of the packages (with or
        without their tests) picked anew on some requests and some sessions: the
        question is asked until the answer stops growing for :data:`STABLE_ANSWERS`
        requests in a row, in :data:`SESSIONS` sessions, and the union is the truth.
        """
        found: set[tuple[str, int]] = set()
        unchanged = 0
        for _attempt in range(MAX_ASKS):
            answer = self._references_once(path, line, character)
            unchanged = unchanged + 1 if answer <= found else 0
            found |= answer
            if unchanged >= STABLE_ANSWERS:
                break
        return found

    def _references_once(self, path: str, line: int, character: int) -> set[tuple[str, int]]:
        result = self.request("textDocument/references", {
            "textDocument": {"uri": (self.root / path).as_uri()},
            "position": {"line": line, "character": character},
            "context": {"includeDeclaration": False}}) or []
        found = set()
        for location in result:
            where = Path(unquote(urlparse(location["uri"]).path))
            if not where.is_relative_to(self.root):
                continue  # the standard library's own uses (flag.Value's Set, say)
            found.add((where.relative_to(self.root).as_posix(),
                       location["range"]["start"]["line"] + 1))
        return found

    def close(self) -> None:
        try:
            self.request("shutdown", {})
            self._send({"jsonrpc": "2.0", "method": "exit"})
            self._process.wait(timeout=10)
        except (RuntimeError, OSError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait()


def _category(symbol: Symbol, interfaces: set[str]) -> str | None:
    if symbol.kind == "function":
        return "function"
    if symbol.kind == "method":
        return "interface method" if symbol.container in interfaces else "method"
    if symbol.kind in ("struct", "interface", "type"):
        return "type"
    return None


def pick_symbols(root: Path) -> list[Symbol]:
    """The :data:`NAMED` cases, then an even sample per category (see module doc)."""
    codemap = CodeMap.open(root)
    try:
        codemap.index()
        symbols = [s for s in codemap.symbols_in()
                   if not s.path.endswith("_test.go") and s.name[:1].isupper()]
    finally:
        codemap.close()
    qualified = {(f"{s.container}.{s.name}" if s.container else s.name, s.path): s
                 for s in symbols}
    chosen = [qualified[key] for key in NAMED]
    interfaces = {s.name for s in symbols if s.kind == "interface"}
    for owner in PROJECTS:
        for category, count in SAMPLE.items():
            pool = sorted((s for s in symbols if _category(s, interfaces) == category
                           and s.path.startswith(owner + "/") and s not in chosen),
                          key=lambda s: (s.path, s.range.start.line))
            step = len(pool) / count
            chosen += [pool[int(i * step)] for i in range(min(count, len(pool)))]
    return chosen


def label(symbol: Symbol) -> str:
    qualified = f"{symbol.container}.{symbol.name}" if symbol.container else symbol.name
    return f"{symbol.path.split('/')[1]}.{qualified}@{symbol.range.start.line + 1}"


def main(argv: list[str]) -> dict[str, Any]:
    args = arguments("go").parse_args(argv)
    ensure_tools()
    root = prepare(args.cache.resolve())
    symbols = pick_symbols(root)
    started = time.perf_counter()
    truth: dict[str, set[tuple[str, int]]] = {label(s): set() for s in symbols}
    for _session in range(SESSIONS):
        server = Gopls(root)
        try:
            for s in symbols:
                truth[label(s)] |= server.references(
                    s.path, s.selection_range.start.line, s.selection_range.start.utf16_col)
        finally:
            server.close()
    truth_seconds = time.perf_counter() - started
    ours = {label(s): codekeep_references(root, s.name if s.container is None
                                          else f"{s.container}.{s.name}", s.path,
                                          s.range.start.line + 1) for s in symbols}
    close_maps()
    result = brief(score(truth, ours), args.show_symbols)
    return {"language": "go", "truth": f"gopls {gopls_version()}",
            "project": "spf13/cobra + spf13/pflag, gorilla/mux (Debian)",
            "truth_seconds": round(truth_seconds, 1), "checked": len(symbols), **result}
