"""Run an accepted command: exec without a shell (unless the plan needs one), in the
workspace, with a timeout, a capped output and an environment without secrets."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from codekeep.common.secrets import is_secret_name
from codekeep.tools.command_sandbox import launch_argv
from codekeep.tools.safety.commands import CommandPlan

READ_CHUNK = 65536


@dataclass(frozen=True, slots=True)
class ProcessResult:
    exit_code: int | None
    output: str
    total_chars: int
    timed_out: bool
    duration_s: float

    @property
    def truncated(self) -> bool:
        return self.total_chars > len(self.output)


def scrubbed_environment() -> dict[str, str]:
    """The server's environment minus anything that looks like a credential (API keys ...)."""
    return {k: v for k, v in os.environ.items() if not is_secret_name(k)}


async def run_plan(plan: CommandPlan, cwd: Path, timeout: float, cap: int, *,
                   allow_unsandboxed: bool = False) -> ProcessResult:
    """Run ``plan`` in the sandbox (see :mod:`codekeep.tools.command_sandbox`); output
    beyond ``cap`` characters keeps its head and tail."""
    started = time.perf_counter()
    argv = launch_argv(
        plan.argv if plan.argv is not None else ("/bin/sh", "-c", plan.shell or ""),
        cwd, allow_unsandboxed)
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=scrubbed_environment(),
        start_new_session=True,  # its own process group: a timeout kills every child
    )
    buffer = _HeadTail(cap)
    timed_out = False

    async def pump() -> None:
        assert process.stdout is not None
        while chunk := await process.stdout.read(READ_CHUNK):
            buffer.add(chunk.decode("utf-8", errors="replace"))
        await process.wait()

    try:
        await asyncio.wait_for(pump(), timeout)
    except TimeoutError:
        timed_out = True
        _kill_group(process.pid)
        await process.wait()
    return ProcessResult(
        exit_code=process.returncode,
        output=buffer.text(),
        total_chars=buffer.total,
        timed_out=timed_out,
        duration_s=time.perf_counter() - started,
    )


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


class _HeadTail:
    """Keep the first and last ``cap/2`` characters: errors usually sit at the end."""

    def __init__(self, cap: int) -> None:
        self.half = max(cap // 2, 1)
        self.head = ""
        self.tail = ""
        self.total = 0

    def add(self, text: str) -> None:
        self.total += len(text)
        if len(self.head) < self.half:
            room = self.half - len(self.head)
            self.head += text[:room]
            text = text[room:]
        if text:
            self.tail = (self.tail + text)[-self.half :]

    def text(self) -> str:
        omitted = self.total - len(self.head) - len(self.tail)
        if omitted <= 0:
            return self.head + self.tail
        return f"{self.head}\n… {omitted} characters of output omitted …\n{self.tail}"
