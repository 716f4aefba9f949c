"""The ``codekeep`` command line: a thin door onto the same services the server uses.

Each command group lives in its own module of this package exposing
``register(subparsers, only=None)``, ``COMMANDS`` (name -> one-line help) and an integer
``ORDER`` (its place in ``--help``); the module adds its sub-parsers and sets ``handler``
(``args -> exit code``) on each. Modules are discovered, so adding a command group is
adding a file.

Agents call the CLI in loops, so a command pays only for what it uses: a module imports
its services inside its handlers, never at the top (``tests/cli/test_startup.py`` holds
every module to that), and only the invoked command's parser is built: ``register`` runs
only for the group that holds it, with ``only`` naming it (a group of several commands
builds that one alone), and ``--help`` lists every command from ``COMMANDS``. Exit
status: 0 success, 1 an error or nothing found (one line on stderr says which), 2 a
usage error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import functools
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

from codekeep import __version__
from codekeep.cli.options import fail
from codekeep.common.workspace import refusal, resolve_root


def command_modules() -> list[ModuleType]:
    """Every command group of this package, in ``--help`` order.

    Listed from the directory (``pkgutil.iter_modules`` would import ``inspect``, a
    noticeable share of a CLI query's start-up)."""
    names = sorted({
        entry.name.removesuffix(".py") for directory in __path__
        for entry in os.scandir(directory)
        if entry.name.endswith(".py") and not entry.name.startswith("_")
    })
    modules = [importlib.import_module(f"{__name__}.{name}") for name in names]
    groups = [module for module in modules if hasattr(module, "register")]
    return sorted(groups, key=lambda module: getattr(module, "ORDER", 100))


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, with the terminal's width read here: argparse makes
    one per argument added (to check it), and by default imports ``shutil`` (and with it
    zlib, bz2 and lzma) for the width, a noticeable share of a query's start-up."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         _terminal_width() - 2 if width is None else width)


@functools.cache  # argparse makes a formatter per argument it adds
def _terminal_width() -> int:
    """What ``shutil.get_terminal_size`` says: ``$COLUMNS``, else the terminal's, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Parser(argparse.ArgumentParser):
    """The parser of every command (sub-parsers inherit the class): :class:`_Formatter`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with ``command``'s own parser built in full and nothing else (each
    sub-parser argparse builds costs a query a noticeable share of its start-up). An
    unknown or no ``command``: every command listed by name, for the help and the
    "invalid choice" message."""
    parser = _Parser(
        prog="codekeep",
        description="Code map, memory and token ledger for AI coding agents.",
        epilog="Exit status: 0 success, 1 error or nothing found, 2 usage error.",
    )
    parser.add_argument("--version", action="version", version=f"codekeep {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = command_modules()
    owner = next((module for module in modules if command in module.COMMANDS), None)
    if owner is not None:
        owner.register(subparsers, only=command)
        return parser
    for module in modules:
        for name, help_text in module.COMMANDS.items():
            subparsers.add_parser(name, help=help_text, add_help=False)
    return parser


def _command_in(argv: Sequence[str]) -> str | None:
    """The command word: the first argument that is not an option."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def _unrecognized(parser: argparse.ArgumentParser, args: argparse.Namespace,
                  argv: Sequence[str], extras: list[str]) -> NoReturn:
    """Exit 2 with the usage of the command given (argparse prints the top-level
    usage), saying that a folder is given with ``--root`` (``codekeep index src``)."""
    command = _command_parser(parser, argv)
    hint = ""
    if command is not None and hasattr(args, "root") and any(
            not extra.startswith("-") for extra in extras):
        hint = " (a folder to work in goes after --root: --root DIR)"
    (command or parser).error(f"unrecognized arguments: {' '.join(extras)}{hint}")


def _command_parser(parser: argparse.ArgumentParser,
                    argv: Sequence[str]) -> argparse.ArgumentParser | None:
    """The parser of the command ``argv`` names, down to a group's action
    (``memory list``, not ``memory``, whose usage says only ACTION)."""
    found = parser
    for word in argv:
        group = next((action for action in found._actions
                      if isinstance(action, argparse._SubParsersAction)), None)
        if group is None or word.startswith("-"):
            break
        if word not in group.choices:
            break
        found = group.choices[word]
    return None if found is parser else found


def run() -> NoReturn:
    """The ``codekeep`` command (and ``python -m codekeep``): :func:`main`, leaving the
    process at once after a query (see :func:`_leave_now`)."""
    raise SystemExit(main(leave_at_once=True))


def main(argv: Sequence[str] | None = None, *, leave_at_once: bool = False) -> int:
    """Run one command line; its exit status. ``leave_at_once``: this process ends
    with the command, so a read-only query (a command whose parser sets ``read_only``;
    a hook too, which closes its stores before it answers) runs without the cyclic
    garbage collector and ends the process itself."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments == ["--version"]:  # asked before every command: no parser needed
        print(f"codekeep {__version__}")
        return 0
    parser = build_parser(_command_in(arguments))
    args, extras = parser.parse_known_args(arguments)
    if extras:
        _unrecognized(parser, args, arguments, extras)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    if hasattr(args, "root"):
        # Checked once for every group, before any work: a typo in --root must not
        # create a new .codekeep/ (and its parent folders) somewhere, and no command
        # indexes the filesystem root or a home folder (the language server refuses
        # them with the same message). A command whose parser sets
        # ``refuses_folders_itself`` refuses them only where it would work in the folder.
        # Resolved here once for the whole command: every handler reads it through
        # ``options.root_of``.
        given, args.root = args.root, resolve_root(args.root)
        if given is not None and not Path(given).expanduser().is_dir():
            return fail(f"workspace root is not a directory: {args.root}")
        refused = refusal(args.root)
        if refused is not None and not getattr(args, "refuses_folders_itself", False):
            return fail(refused)
    quick = leave_at_once and getattr(args, "read_only", False)
    if quick:
        gc.disable()  # a query's objects live until it ends: collecting them is waste
    try:
        status = int(handler(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `codekeep find x | head` must not print a traceback
        return 0
    if quick:
        _leave_now(status)
    return status


def _leave_now(status: int) -> None:
    """End the process with ``status`` now, without tearing the interpreter down.

    A read-only query has closed its database and answered; what is left is freeing
    every module and object it loaded, which costs it about a tenth of its run. Only
    when nothing could need an exit handler: no other thread, no worker processes (a
    refresh that parsed files), and the output flushed (if that fails, the normal exit
    path reports it)."""
    threading = sys.modules.get("threading")
    if (threading is not None and threading.active_count() > 1) or (
            "multiprocessing" in sys.modules):
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(status)
