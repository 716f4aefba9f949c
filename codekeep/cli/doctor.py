"""``codekeep doctor [--json]``: check the installation and this workspace's stores.

Exit status 0 when nothing is wrong, 1 when a finding is a problem (each says what to do).
"""

from __future__ import annotations

import argparse

from codekeep.cli.options import common_options, root_of

ORDER = 95
COMMANDS = {"doctor": "check versions, grammars, databases, watcher, model and editor setup"}


def register(subparsers: argparse._SubParsersAction, only: str | None = None) -> None:
    parser = subparsers.add_parser(
        "doctor", parents=[common_options()],
        help=COMMANDS["doctor"],
        description="Check what CodeKeep needs: versions, grammars, each database's health "
                    "and schema, the file watcher, model and embeddings, editors' configs. "
                    "Changes nothing.",
    )
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from codekeep.doctor import PROBLEM, diagnose, render_json, render_text

    findings = diagnose(root_of(args))
    print(render_json(findings) if args.json else render_text(findings))
    return 1 if any(f.status == PROBLEM for f in findings) else 0
