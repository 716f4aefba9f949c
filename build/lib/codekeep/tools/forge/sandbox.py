"""The subprocess sandbox for generated tools: a separate, isolated, network-less Python.

Layers, outermost first: a fresh network namespace (``unshare -n``, when the kernel
lets us), resource limits (CPU seconds, memory, open files, file size), an empty
temporary working directory and a minimal environment, ``python -I`` (no user site,
no ``PYTHON*`` variables), and inside the process an audit hook that refuses file
access outside the temporary directory, sockets, processes, native code and imports
(see :mod:`codekeep.tools.forge.sandbox_runner`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import resource
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RUNNER = Path(__file__).with_name("sandbox_runner.py")
MEMORY_LIMIT_BYTES = 512 * 1024 * 1024
FILE_SIZE_LIMIT_BYTES = 1024 * 1024
OPEN_FILES_LIMIT = 64
MAX_OUTPUT_BYTES = 1024 * 1024


class SandboxError(RuntimeError):
    """The sandbox could not run the code at all (timeout, crash, unreadable output)."""


@dataclass(frozen=True, slots=True)
class SandboxOutcome:
    ok: bool
    value: Any = None
    error: str | None = None


@functools.lru_cache(maxsize=1)
def network_isolation_prefix() -> tuple[str, ...]:
    """``unshare`` arguments that give the child no network, or ``()`` if unavailable."""
    for prefix in (("unshare", "-n", "--"), ("unshare", "-rn", "--")):
        try:
            done = subprocess.run([*prefix, "true"], capture_output=True, timeout=5, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return prefix
    return ()


def _limit_resources(cpu_seconds: int) -> None:
    """Runs in the child before exec: hard caps so a runaway tool cannot hurt the host."""
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT_BYTES, FILE_SIZE_LIMIT_BYTES))
    resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES_LIMIT, OPEN_FILES_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


async def run_sandboxed(
    code: str, calls: Sequence[Mapping[str, Any]], timeout: float
) -> list[SandboxOutcome]:
    """Run ``tool_handler(args)`` from ``code`` once per entry of ``calls``, isolated."""
    request = json.dumps({"code": code, "calls": list(calls)}).encode("utf-8")
    with tempfile.TemporaryDirectory(prefix="codekeep-sandbox-") as directory:
        process = await asyncio.create_subprocess_exec(
            *network_isolation_prefix(),
            sys.executable,
            "-I",
            str(RUNNER),
            cwd=directory,
            env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"},
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            preexec_fn=functools.partial(_limit_resources, max(int(timeout), 1) + 1),
            start_new_session=True,
        )
        try:
            stdout, stderr = await asyncio.wait_for(process.communicate(request), timeout)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
            raise SandboxError(f"the generated code did not finish within {timeout:g}s") from None
    try:
        payload = json.loads(stdout[:MAX_OUTPUT_BYTES].decode("utf-8").strip().splitlines()[-1])
        results = payload["results"]
    except (ValueError, IndexError, KeyError) as exc:
        tail = stderr.decode("utf-8", errors="replace").strip().splitlines()[-3:]
        raise SandboxError(
            f"the sandbox failed (exit {process.returncode}): {' | '.join(tail) or exc}"
        ) from None
    return [SandboxOutcome(r["ok"], r.get("value"), r.get("error")) for r in results]
