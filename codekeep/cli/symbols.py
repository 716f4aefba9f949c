"""``codekeep rename``: change a symbol's name across files from a shell.

A thin door onto ``codekeep.analysis.rename``: the index is brought up to date first,
the whole rename is planned and checked (collisions, stale files, parse) before any file
is written, and ``--dry-run`` prints the edit without writing it.
"""

from __future__ import annotations

import argparse
import sys

from codekeep.cli.codemap import guarded, open_codemap
from codekeep.cli.options import add_common_options, emit_json

ORDER = 11
COMMANDS = {
    "rename": "rename SYMBOL (id or Container.name) to NEW_NAME everywhere it is used",
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


def register(subparsers: argparse._SubParsersAction, only: str | None = None) -> None:
    del only  # one command
    parser = subparsers.add_parser("rename", help=COMMANDS["rename"],
                                   description=COMMANDS["rename"])
    parser.set_defaults(handler=guarded(_rename), read_only=False, max_bytes=None,
                        exclude=None)
    add_common_options(parser)
    parser.add_argument("symbol", metavar="SYMBOL")
    parser.add_argument("new_name", metavar="NEW_NAME")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the edit; change nothing")
