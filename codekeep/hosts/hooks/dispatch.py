"""``codekeep hook EVENT``: read the hook's JSON, answer, and never hurt the session.

Claude Code waits for a hook and shows its failures; a memory store that is locked, a
transcript that is half written or a bug of ours must cost the user nothing. So every
failure — empty or malformed stdin, an unknown event, a workspace that is not one, an
exception, the deadline passing — ends the same way: exit status 0, nothing on stdout,
one line in ``.codekeep/hooks.log`` (the user's data folder when there is no workspace).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from codekeep.hosts.hooks.session import HookInputError

#: Seconds a hook may take before it gives up (Claude Code's own timeout is longer).
DEADLINE_S = 5.0
LOG_NAME = "hooks.log"


class DeadlinePassed(Exception):
    pass


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise :class:`DeadlinePassed` in this (main) thread after ``seconds``."""
    def expire(_signum: int, _frame: object) -> None:
        raise DeadlinePassed(f"gave up after {seconds:g} s")

    usable = hasattr(signal, "setitimer") and _main_thread()
    if usable:
        previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        if usable:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def parse_input(raw: str) -> dict[str, Any]:
    if not raw.strip():
        raise HookInputError("the hook's stdin was empty")
    try:
        payload = json.loads(raw)
    except json.JSONDecodeError as error:
        raise HookInputError(f"the hook's stdin is not JSON ({error.msg})") from error
    if not isinstance(payload, dict):
        raise HookInputError("the hook's stdin is not a JSON object")
    return payload


def workspace(chosen: Any) -> Path:
    """The hook's workspace: an existing folder, never the file system root or the home
    folder (no store is made there)."""
    if not isinstance(chosen, str) or not chosen:
        raise HookInputError("no workspace: no --root, CLAUDE_PROJECT_DIR or cwd")
    root = Path(chosen).expanduser().resolve()
    if not root.is_dir():
        raise HookInputError(f"workspace {root} is not a directory")
    if root == Path(root.anchor) or root == Path.home().resolve():
        raise HookInputError(f"{root} is not a project (the file system root or home folder)")
    return root


def answer(event: str, root_option: str | None, stdin: IO[str] | None = None,
           stdout: IO[str] | None = None) -> int:
    """Run ``event``'s handler on the JSON from ``stdin``; always 0."""
    started = time.monotonic()
    named = root_option or os.environ.get("CLAUDE_PROJECT_DIR")  # --root, else Claude Code's
    root: Path | None = Path(named) if named else None  # where a failure is logged
    call = None
    try:
        with deadline(DEADLINE_S):
            source = stdin or sys.stdin
            raw = "" if source.isatty() else source.read()
            payload = parse_input(raw)
            root = workspace(named or payload.get("cwd"))
            from codekeep.common.tokens import estimate_only

            estimate_only()
            from codekeep.hosts.hooks.events import HANDLERS, HookCall

            handler = HANDLERS.get(event)
            if handler is None:
                raise HookInputError(f"unknown hook event {event!r}")
            call = HookCall(event, payload, root)
            output = handler(call)
            call.close()
            call = None
        if output:
            (stdout or sys.stdout).write(json.dumps(output, ensure_ascii=False) + "\n")
    except BaseException as error:  # nothing may reach the session
        if call is not None:
            _quietly(call.close)
        _log(root, event, error, time.monotonic() - started)
    return 0


def _quietly(action: Any) -> None:
    try:
        action()
    except Exception:  # already failing: the log has the first error
        return


def _log(root: Path | None, event: str, error: BaseException, seconds: float) -> None:
    from datetime import UTC, datetime

    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    line = f"{stamp} {event}: {type(error).__name__}: {error} ({seconds * 1000:.0f} ms)\n"
    try:
        folder = (root / ".codekeep") if root is not None and (root / ".codekeep").is_dir() \
            else _user_folder()
        with (folder / LOG_NAME).open("a", encoding="utf-8") as handle:
            handle.write(line)
    except OSError:
        return  # nowhere to write: the session still goes on


def _user_folder() -> Path:
    from codekeep.common.workspace import user_data_dir

    return user_data_dir()
