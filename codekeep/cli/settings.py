"""``codekeep settings``: what every setting resolves to for a folder, and from where.

The same layers every door reads (defaults < user config < project config <
environment < editor < flags; the editor's layer exists only in the language server).
``--reference`` prints the table of every setting that docs/settings.md carries.
"""

from __future__ import annotations

import argparse
import json
import sys

from codekeep.cli.options import common_options, emit_json, root_of

ORDER = 80
COMMANDS = {"settings": "show every setting of the folder and where its value comes from"}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
             only: str | None = None) -> None:
    parser = subparsers.add_parser(
        "settings", parents=[common_options()],
        help=COMMANDS["settings"],
        description="Show what every setting resolves to for --root (user config, "
                    "project config, environment) and which layer decided it.")
    parser.add_argument("--reference", action="store_true",
                        help="print the Markdown table of every setting (docs/settings.md)")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    # here, not at the top: every other command (and --help) would load cattrs for it
    from codekeep.settings import Settings, load_settings
    from codekeep.settings.fields import leaves, unstructure
    from codekeep.settings.reference import markdown_table

    if args.reference:
        sys.stdout.write(markdown_table())
        return 0
    layers = load_settings(root_of(args))
    for report in layers.reports:
        print(f"codekeep: warning: {report}", file=sys.stderr)
    tree = unstructure(layers.settings)  # secrets shown as "<set>"
    keys = [key for key, _ in leaves(Settings)]
    sources = {".".join(key): layers.source_of(key) for key in keys}
    if args.json:
        emit_json({"settings": tree, "sources": sources,
                   "problems": [str(report) for report in layers.reports]})
        return 0
    width = max(len(dotted) for dotted in sources)
    for key in keys:
        value: object = tree
        for part in key:
            value = value[part]  # type: ignore[index]
        dotted = ".".join(key)
        print(f"{dotted:<{width}}  {json.dumps(value)}  ({sources[dotted]})")
    return 0
