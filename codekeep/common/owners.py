"""Which process wrote something, and whether that process still runs.

A row written from an editor buffer is true only while the server holding that buffer
lives. The owner is recorded as ``"<pid>:<start time>"``: a pid alone can be reused by
an unrelated process after a crash, a pid together with the moment it started cannot
(on Linux the start time comes from ``/proc``; elsewhere only the pid is compared).
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

_GONE = "gone"


def _start_time(pid: int) -> str:
    """The process's start time in clock ticks since boot: "" where /proc is absent,
    ``_GONE`` for a process that has exited (a zombie waiting for its parent too)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except FileNotFoundError:
        return _GONE if Path("/proc/self/stat").exists() else ""
    except OSError:
        return ""
    # The command name (field 2) is in parentheses and may contain spaces: split after it.
    fields = stat.rpartition(")")[2].split()
    if len(fields) < 20 or fields[0] in ("Z", "X"):
        return _GONE
    return fields[19]


@cache
def _token(pid: int) -> str:
    return f"{pid}:{_start_time(pid)}"


def this_process() -> str:
    """The owner token of the current process."""
    return _token(os.getpid())


def is_running(owner: str) -> bool:
    """Does the process that wrote ``owner`` (a :func:`this_process` token) still run?"""
    pid_text, _, started = owner.partition(":")
    if not pid_text.isdigit():
        return False
    pid = int(pid_text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, as another user's process
    now = _start_time(pid)
    return now != _GONE and (not started or not now or now == started)
