"""``codekeep docs search|index``: the project's knowledge base from a shell.

``search`` first brings the knowledge base up to date (a warm start only stats files),
so answers never come from a stale copy of a page; ``--no-refresh`` skips that. Text
output is one result per block, ``path:start-end  heading`` then the chunk's first
lines; ``--json`` prints ``{results: [{path, heading, startLine, endLine, text,
score}]}`` (1-based, inclusive lines) and, when nothing matched, ``reason``.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from codekeep.cli.options import common_options, emit_json, fail, positive_int, root_of, settings_of
from codekeep.common.sqlite import SchemaTooNewError

if TYPE_CHECKING:
    from codekeep.agent.docs_expansion import Expanded
    from codekeep.settings import Settings
    from codekeep.settings.docs import Expansion

ORDER = 15
COMMANDS = {"docs": "search the project's documentation (Markdown, reST, AsciiDoc, text)"}
PREVIEW_LINES = 4


def _guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Bad input ends in one clear line on stderr and exit status 1, never a traceback."""

    def run(args: argparse.Namespace) -> int:
        from codekeep.analysis import CodeMapError
        from codekeep.docs import DocsError

        try:
            return handler(args)
        except (DocsError, CodeMapError, SchemaTooNewError) as error:
            return fail(str(error))
        except BrokenPipeError:
            raise
        except (OSError, sqlite3.Error) as error:
            return fail(f"{type(error).__name__}: {error}")

    return run


def _search(args: argparse.Namespace) -> int:
    from codekeep.analysis import CodeMap
    from codekeep.docs import DocsIndex
    from codekeep.settings.docs import EXPANSIONS, expansion

    root, settings = root_of(args), settings_of(args)
    try:
        mode = expansion(args.expand or settings.docs.expand)
    except ValueError:
        return fail(f"--expand must be one of {', '.join(EXPANSIONS)}, got {args.expand!r}")
    expanded, note = (_expansions(args.query, mode, root, settings) if mode != "off"
                      else (None, None))
    with (CodeMap.open(root, settings.index) as codemap,
          DocsIndex.open(root, settings.index, settings.docs) as docs):
        if not args.no_refresh:  # the words only: vectors come from an index
            docs.index(embed="skip")
        outcome = docs.search(args.query, args.limit, codemap=codemap,
                              expansions=expanded.queries if expanded else (),
                              passages=expanded.passages if expanded else ())
    if note:
        print(f"codekeep: {note}", file=sys.stderr)
    if args.json:
        payload = outcome.to_json()
        if expanded is not None and expanded.texts:
            payload["expansions"] = expanded.texts
        emit_json(payload)
        return 0 if outcome.hits else 1
    if not outcome.hits:
        return fail(outcome.reason or f"nothing in the docs matches {args.query!r}")
    for hit in outcome.hits:
        print(f"{hit.path}:{hit.start_line}-{hit.end_line}  {hit.heading}  ({hit.score:.4f})")
        preview = hit.text.strip().splitlines()[:PREVIEW_LINES]
        print("\n".join(f"    {line}" if line.strip() else line for line in preview))
        print()
    return 0


def _expansions(query: str, mode: Expansion, root: Path,
                settings: Settings) -> tuple[Expanded | None, str | None]:
    """The model's rewrites of the question (the ``agent`` settings: ``CODEKEEP_MODEL``
    ...), recorded in the workspace's ledger; none and a note on stderr when no model
    answers."""
    import asyncio

    from codekeep.agent.docs_expansion import expand_question
    from codekeep.agent.model_client import ModelClient
    from codekeep.ledger import Ledger
    from codekeep.settings.agent import ModelNotConfigured

    model = settings.agent
    try:
        model.require_model()
    except ModelNotConfigured as error:
        return None, f"--expand needs a model, searching without it: {error}"

    async def ask(ledger: Ledger) -> tuple[Expanded | None, str | None]:
        async with ModelClient(model) as client:
            expanded = await expand_question(query, mode, client, ledger)
        return expanded, "; ".join(expanded.errors) or None

    with Ledger.open(root, settings.ledger) as ledger:
        return asyncio.run(ask(ledger))


def _index(args: argparse.Namespace) -> int:
    from codekeep.docs import DocsIndex

    settings = settings_of(args)
    with DocsIndex.open(root_of(args), settings.index, settings.docs) as docs:
        stats = docs.index(embed="now")
    if args.json:
        emit_json(stats.to_json())
        return 0
    print(stats.summary())
    return 0


def register(subparsers: argparse._SubParsersAction, only: str | None = None) -> None:
    parent = common_options()
    docs = subparsers.add_parser(
        "docs", help=COMMANDS["docs"],
        description="The project's knowledge base: its docs, chunked by heading.")
    commands = docs.add_subparsers(dest="docs_command", metavar="COMMAND")
    docs.set_defaults(handler=lambda _args: (docs.print_help(sys.stderr), 2)[1])

    search = commands.add_parser(
        "search", parents=[parent], help="the doc sections that best answer QUERY",
        description="The doc sections that best answer QUERY, best first.")
    search.add_argument("query", metavar="QUERY")
    search.add_argument("--limit", type=positive_int, default=10, help="most results (default 10)")
    search.add_argument("--expand", default=None, metavar="MODE",
                        help="off, multi-query, hyde or both (default: the setting "
                             "docs.expand, off): the model (CODEKEEP_MODEL ...) rewrites the "
                             "question first, in the ledger")
    search.add_argument("--no-refresh", action="store_true",
                        help="answer from the knowledge base as it is, without re-reading files")
    search.set_defaults(handler=_guarded(_search))

    index = commands.add_parser(
        "index", parents=[parent], help="index the workspace's docs (unchanged files skipped)",
        description="Index the workspace's docs (unchanged files are skipped).")
    index.set_defaults(handler=_guarded(_index))

