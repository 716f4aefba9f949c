"""The ``codekeep`` command line: a thin door onto the same services the server uses.

Each command group lives in its own module of this package exposing
``register(subparsers)`` and an integer ``ORDER`` (its place in ``--help``); the module
adds its sub-parsers and sets ``handler`` (``args -> exit code``) on each. Modules are
discovered, so adding a command group is adding a file.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from pathlib import Path

from codekeep.cli.options import fail
from codekeep.common.workspace import resolve_root


def _command_modules() -> list[object]:
    modules = [
        importlib.import_module(f"{__name__}.{info.name}")
        for info in pkgutil.iter_modules(__path__)
    ]
    groups = [module for module in modules if hasattr(module, "register")]
    return sorted(groups, key=lambda module: getattr(module, "ORDER", 100))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="codekeep",
        description="Code map, memory and token ledger for AI coding agents.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _command_modules():
        module.register(subparsers)  # type: ignore[attr-defined]
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    root = getattr(args, "root", None)
    if root is not None and not Path(root).expanduser().is_dir():
        # Checked once for every group: a typo in --root must not create a new
        # .codekeep/ (and its parent folders) somewhere and store things there.
        return fail(f"workspace root is not a directory: {resolve_root(root)}")
    try:
        return int(handler(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `codekeep find x | head` must not print a traceback
        return 0
