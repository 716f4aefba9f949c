"""``codekeep serve``: run the language server on stdio (default) or TCP."""

from __future__ import annotations

import argparse

ORDER = 90
COMMANDS = {"serve": "run the language server (stdio; --tcp HOST:PORT for a socket)"}
DESCRIPTION = (
    "Run the CodeKeep language server. Editors start it with stdio; "
    "logs go to stderr and to the editor's log, never to stdout."
)


def register(subparsers: argparse._SubParsersAction, only: str | None = None) -> None:
    configure(
        subparsers.add_parser(
            "serve",
            help=COMMANDS["serve"],
            description=DESCRIPTION,
        )
    )


def configure(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument(
        "--stdio",
        action="store_true",
        help="serve on stdin/stdout (the default; accepted because many clients pass it)",
    )
    transport.add_argument(
        "--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead of stdio"
    )
    parser.add_argument(
        "--log-level",
        default="INFO",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="stderr log level (default: INFO)",
    )
    parser.set_defaults(handler=run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """``python -m codekeep.server``: the same server without the other command groups."""
    parser = configure(argparse.ArgumentParser(prog="codekeep serve", description=DESCRIPTION))
    return run(parser.parse_args(argv))


def host_port(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}")
    return host, int(port)


def exit_cleanly(signum: int, _frame: object) -> None:
    raise SystemExit(0)


def run(args: argparse.Namespace) -> int:
    import signal  # only a server sets a handler

    from codekeep.cli.options import fail
    from codekeep.hosting.logs import configure_stderr_logging
    from codekeep.server.app import create_server, tune_garbage_collector

    configure_stderr_logging(args.log_level)
    tune_garbage_collector()
    # Editors stop servers with SIGTERM too: leave through the normal shutdown path so
    # the ledger's buffered records are written and the databases closed.
    signal.signal(signal.SIGTERM, exit_cleanly)
    server = create_server()
    if args.tcp:
        try:
            host, port = host_port(args.tcp)
        except argparse.ArgumentTypeError as error:
            return fail(str(error), 2)
        server.start_tcp(host, port)
    else:
        server.start_io()
    return 0
