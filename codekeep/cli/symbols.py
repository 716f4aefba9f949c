"""``codekeep rename|impact|path|unused``: symbol-level changes and the call graph from a shell.

A thin door onto ``codekeep.analysis.rename``: the index is brought up to date first,
the whole rename is planned and checked (collisions, stale files, parse) before any file
is written, and ``--dry-run`` prints the edit without writing it.
"""

from __future__ import annotations

import argparse
import sys

from codekeep.cli.codemap import guarded, open_codemap
from codekeep.cli.options import add_common_options, emit_json, fail, nothing_found

ORDER = 11
COMMANDS = {
    "rename": "rename SYMBOL (id or Container.name) to NEW_NAME everywhere it is used",
    "impact": "what a diff changes, who calls it (to --depth), which tests reach it",
    "path": "the shortest call chains from FROM to TO",
    "unused": "definitions nothing uses and no entry point explains",
}


def _rename(args: argparse.Namespace) -> int:
    from codekeep.analysis.rename import apply_rename, plan_rename

    with open_codemap(args) as codemap:
        plan = plan_rename(codemap, args.symbol, args.new_name)
        if not args.dry_run:
            apply_rename(codemap, plan)
        if args.json:
            emit_json(plan.to_json(written=not args.dry_run))
            return 0
        sys.stdout.write(plan.diff())
        verb = "would change" if args.dry_run else "changed"
        print(f"{verb} {len(plan.sites)} places in {len(plan.new_text)} files "
              f"({plan.symbol.id} -> {args.new_name})")
        for ref in plan.unconfirmed:
            start = ref.range.start
            print(f"not changed (name match, check it): {ref.path}:{start.line + 1}:"
                  f"{start.utf16_col + 1}")
    return 0


def _impact(args: argparse.Namespace) -> int:
    from codekeep.analysis.impact import DiffSides, impact

    if sum(map(bool, (args.rev_range, args.staged, args.worktree))) > 1:
        return fail("give one of REV_RANGE, --staged, --worktree")
    if args.depth < 0:
        return fail("--depth must be 0 or more")
    sides = DiffSides.of(args.rev_range, staged=args.staged, worktree=args.worktree)
    with open_codemap(args) as codemap:
        answer = impact(codemap, sides, args.depth)
    if args.json:
        emit_json(answer.to_json())
        return 0
    if not answer.symbols:
        return nothing_found(args, f"no definitions change between {answer.base} and "
                             f"{answer.head} ({len(answer.files)} files differ)", {})
    for item in answer.symbols:
        risk = f"  [{', '.join(item.risk)}]" if item.risk else ""
        print(f"{item.change:<8} {item.kind:<9} {item.id}  {item.path}:{item.line + 1}{risk}")
        for caller in item.callers:
            chain = "".join(f" <- {hop}" for hop in reversed(caller.via))
            named = " (name match)" if caller.confidence == "name" else ""
            print(f"  {'  ' * (caller.depth - 1)}<- {caller.id}  {caller.path}:"
                  f"{caller.line + 1}{named}{'  (via' + chain + ')' if chain else ''}")
        if item.test_files:
            print(f"  tests: {', '.join(item.test_files)}")
    return 0


def _path(args: argparse.Namespace) -> int:
    from codekeep.analysis.callgraph import call_paths

    with open_codemap(args) as codemap:
        chains = call_paths(codemap, args.source, args.target)
        if not chains:
            return nothing_found(args, f"{args.source} does not reach {args.target} through "
                                 "calls the index knows", {"paths": []})
        if args.json:
            emit_json({"paths": [[s.to_json(codemap.root) for s in chain] for chain in chains]})
            return 0
    for chain in chains:
        print(" -> ".join(f"{s.id}:{s.selection_range.start.line + 1}" for s in chain))
    return 0


def _unused(args: argparse.Namespace) -> int:
    from codekeep.analysis.callgraph import unused

    with open_codemap(args) as codemap:
        found = unused(codemap, args.kind, codemap.settings.entry_hooks)
        if not found:
            return nothing_found(args, "every definition is used or an entry point",
                                 {"symbols": []})
        if args.json:
            emit_json({"symbols": [s.to_json(codemap.root) for s in found]})
            return 0
    for symbol in found:
        line = symbol.selection_range.start.line + 1
        print(f"{symbol.kind:<9} {symbol.id}  {symbol.path}:{line}")
    return 0


def register(subparsers: argparse._SubParsersAction, only: str | None = None) -> None:
    for name in COMMANDS if only is None else (only,):
        parser = subparsers.add_parser(name, help=COMMANDS[name], description=COMMANDS[name])
        add_common_options(parser)
        ARGUMENTS[name](parser)


def _rename_arguments(parser: argparse.ArgumentParser) -> None:
    parser.set_defaults(handler=guarded(_rename), read_only=False, max_bytes=None,
                        exclude=None)
    parser.add_argument("symbol", metavar="SYMBOL")
    parser.add_argument("new_name", metavar="NEW_NAME")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the edit; change nothing")


def _impact_arguments(parser: argparse.ArgumentParser) -> None:
    from codekeep.analysis.impact import DEFAULT_DEPTH

    parser.set_defaults(handler=guarded(_impact), read_only=True, max_bytes=None,
                        exclude=None)
    parser.add_argument("rev_range", nargs="?", metavar="REV_RANGE",
                        help="A..B, or A (against the worktree); default: HEAD vs the worktree")
    parser.add_argument("--staged", action="store_true", help="the index against HEAD")
    parser.add_argument("--worktree", action="store_true",
                        help="the worktree against the index (what is not staged)")
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH,
                        help=f"callers followed this many levels (default {DEFAULT_DEPTH})")


def _path_arguments(parser: argparse.ArgumentParser) -> None:
    parser.set_defaults(handler=guarded(_path), read_only=True, max_bytes=None, exclude=None)
    parser.add_argument("source", metavar="FROM")
    parser.add_argument("target", metavar="TO")


def _unused_arguments(parser: argparse.ArgumentParser) -> None:
    parser.set_defaults(handler=guarded(_unused), read_only=True, max_bytes=None,
                        exclude=None)
    parser.add_argument("--kind", choices=("function", "class"), default=None,
                        help="only functions and methods, or only classes and other types")


ARGUMENTS = {"rename": _rename_arguments, "impact": _impact_arguments,
             "path": _path_arguments, "unused": _unused_arguments}
