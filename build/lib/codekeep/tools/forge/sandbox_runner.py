"""Runs model-written tool code inside the sandbox process (started by :mod:`sandbox`).

Started as ``python -I sandbox_runner.py`` with the working directory set to a fresh
temporary directory. Before any generated code runs it pre-imports a small set of
pure modules, then installs an audit hook that refuses: opening or changing files
outside the temporary directory, every socket operation, starting processes, loading
native code and importing anything new. stdin carries ``{"code", "calls"}``; stdout
gets one JSON line ``{"results": [{"ok", "value" | "error"}]}``.

This file must stay free of CodeKeep imports: it runs in an isolated interpreter.
"""

import _strptime  # noqa: F401  (datetime.strptime imports it lazily)

# Pure modules generated code may use; imported now because importing later is refused.
import base64  # noqa: F401
import bisect  # noqa: F401
import collections  # noqa: F401
import copy  # noqa: F401
import dataclasses  # noqa: F401
import datetime  # noqa: F401
import decimal  # noqa: F401
import difflib  # noqa: F401
import fractions  # noqa: F401
import functools  # noqa: F401
import hashlib  # noqa: F401
import heapq  # noqa: F401
import itertools  # noqa: F401
import json
import math  # noqa: F401
import operator  # noqa: F401
import os
import random  # noqa: F401
import re  # noqa: F401
import statistics  # noqa: F401
import string  # noqa: F401
import sys
import textwrap  # noqa: F401
import unicodedata  # noqa: F401

SANDBOX_DIR = os.path.realpath(os.getcwd())
_PATH_EVENTS = {
    "open",
    "os.listdir",
    "os.scandir",
    "os.remove",
    "os.rename",
    "os.rmdir",
    "os.mkdir",
    "os.chmod",
    "os.chown",
    "os.symlink",
    "os.link",
    "os.truncate",
    "os.utime",
    "os.chdir",
    "shutil.rmtree",
    "shutil.copyfile",
    "shutil.move",
    "os.walk",
    "glob.glob",
    "pathlib.Path.glob",
}
_FORBIDDEN_PREFIXES = (
    "socket.",
    "subprocess.",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "os.kill",
    "os.killpg",
    "os.putenv",
    "os.unsetenv",
    "pty.",
    "ctypes.",
    "ftplib.",
    "http.",
    "urllib.",
    "smtplib.",
    "imaplib.",
    "poplib.",
    "nntplib.",
    "telnetlib.",
    "webbrowser.",
    "sys.addaudithook",
    "sys.setprofile",
    "sys.settrace",
    "cpython.",
    "code.__new__",
    "marshal.load",
    "import",
    "compile",
    "exec",
)


class SandboxViolation(PermissionError):
    pass


def _inside(path: object) -> bool:
    if isinstance(path, int):  # an already-open descriptor (stdin/stdout)
        return True
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, str):
        return False
    real = os.path.realpath(os.path.join(SANDBOX_DIR, path))
    return real == SANDBOX_DIR or real.startswith(SANDBOX_DIR + os.sep)


def _hook(event: str, args: tuple) -> None:
    if event in _PATH_EVENTS:
        # open(path, mode, flags): only the path; other events: every path-like argument.
        candidates = args[:1] if event == "open" else args
        paths = [a for a in candidates if isinstance(a, str | bytes | int)]
        if not all(_inside(p) for p in paths):
            raise SandboxViolation(f"sandbox: {event} outside the sandbox directory is not allowed")
        return
    if event.startswith(_FORBIDDEN_PREFIXES):
        if event in ("compile", "exec") and _compiling_allowed[0]:
            return
        raise SandboxViolation(f"sandbox: {event} is not allowed")


_compiling_allowed = [True]


def _block_sockets() -> None:
    import socket

    def refuse(*args: object, **kwargs: object) -> None:
        raise SandboxViolation("sandbox: network access is not allowed")

    socket.socket = refuse  # type: ignore[assignment,misc]
    socket.create_connection = refuse  # type: ignore[assignment]
    socket.getaddrinfo = refuse  # type: ignore[assignment]


def main() -> None:
    request = json.loads(sys.stdin.read())
    _block_sockets()
    sys.addaudithook(_hook)
    namespace: dict[str, object] = {"__name__": "forged_tool"}
    try:
        exec(compile(request["code"], "<forged tool>", "exec"), namespace)
    except BaseException as exc:  # report, never crash without saying why
        _emit([{"ok": False, "error": f"{type(exc).__name__}: {exc}"}] * len(request["calls"]))
        return
    _compiling_allowed[0] = False  # no eval/exec/compile of new code from here on
    handler = namespace.get("tool_handler")
    if not callable(handler):
        _emit(
            [{"ok": False, "error": "the code must define tool_handler(args)"}]
            * len(request["calls"])
        )
        return
    results = []
    for arguments in request["calls"]:
        try:
            value = handler(arguments)
            json.dumps(value)
            results.append({"ok": True, "value": value})
        except BaseException as exc:
            results.append({"ok": False, "error": f"{type(exc).__name__}: {exc}"})
    _emit(results)


def _emit(results: list) -> None:
    sys.stdout.write(json.dumps({"results": results}) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
