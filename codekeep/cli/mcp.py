"""``codekeep mcp``: serve the workspace to MCP hosts (stdio, or streamable HTTP).

The ``mcp`` SDK is imported only when the command runs, so other commands never pay
for it.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from codekeep.cli.options import fail, root_of

if TYPE_CHECKING:
    from codekeep.mcp.options import McpOptions

ORDER = 91
COMMANDS = {"mcp": "serve the workspace to MCP hosts (stdio; --http HOST:PORT)"}
DESCRIPTION = (
    "Serve this workspace's code map, memory and ledger to MCP hosts (Claude Code, Cursor, "
    "Codex, Cline, Gemini CLI ...). stdio by default; --http HOST:PORT serves streamable "
    "HTTP at /mcp. Logs go to stderr, never to stdout."
)
TOKEN_ENV = "CODEKEEP_MCP_TOKEN"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
             only: str | None = None) -> None:
    parser = subparsers.add_parser(
        "mcp", help=COMMANDS["mcp"],
        description=DESCRIPTION,
    )  # fmt: skip
    parser.add_argument(
        "--root", default=None, help="workspace root (default: the current directory)"
    )
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow --http on a non-loopback address (needs a token)",
    )
    parser.add_argument(
        "--token-env",
        metavar="NAME",
        default=TOKEN_ENV,
        help=f"environment variable holding the bearer token HTTP clients must "
        f"send (default: {TOKEN_ENV}; unset: no token on loopback)",
    )
    parser.add_argument(
        "--allow-write",
        action="store_true",
        help="offer write_file (still limited to the workspace)",
    )
    parser.add_argument(
        "--allow-commands",
        action="store_true",
        help="offer run_command (still checked against the command policy)",
    )
    parser.add_argument(
        "--all-tools",
        action="store_true",
        help="list every tool up front (for hosts that ignore tools/list_changed)",
    )
    parser.add_argument(
        "--max-answer-chars",
        type=int,
        default=None,
        metavar="N",
        help="bound on each answer in characters (default: 12000)",
    )
    parser.add_argument("--log-level", default="WARNING",
                        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                        help="stderr log level (default: WARNING)")  # fmt: skip
    parser.set_defaults(handler=_run)


def _exit_cleanly(signum: int, _frame: object) -> None:
    raise SystemExit(0)


def _run(args: argparse.Namespace) -> int:
    import signal  # only a server sets a handler

    from codekeep.hosting.logs import configure_stderr_logging
    from codekeep.mcp.options import DEFAULT_ANSWER_CHARS, HttpBind, McpOptions, OptionsError

    configure_stderr_logging(args.log_level)
    try:
        options = McpOptions(
            root=root_of(args),
            allow_write=args.allow_write,
            allow_commands=args.allow_commands,
            all_tools=args.all_tools,
            answer_chars=args.max_answer_chars or DEFAULT_ANSWER_CHARS,
            http=HttpBind.parse(args.http) if args.http else None,
            allow_remote=args.allow_remote,
            token=os.environ.get(args.token_env) or None,
        ).checked()
    except OptionsError as error:
        return fail(str(error), 2)
    # Hosts stop servers with SIGTERM: leave through the normal path so the ledger is
    # flushed and the databases closed.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    import asyncio  # here, not at the top: every other command would pay for it

    try:
        asyncio.run(_serve(options))
    except OSError as error:  # the port is taken, the root is unwritable ...
        return fail(str(error))
    return 0


async def _serve(options: McpOptions) -> None:
    if options.http is None:
        from codekeep.mcp.server import serve_stdio

        await serve_stdio(options)
    else:
        from codekeep.mcp.http import serve_http

        await serve_http(options)
