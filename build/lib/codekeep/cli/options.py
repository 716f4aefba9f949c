"""Options and output shared by every command group (``--root``, ``--json``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from codekeep.common.workspace import resolve_root


def common_options() -> argparse.ArgumentParser:
    """A parent parser giving a sub-command ``--root`` and ``--json``."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--root", default=None, help="workspace root (default: the current directory)"
    )
    parent.add_argument("--json", action="store_true", help="print JSON instead of text")
    return parent


def root_of(args: argparse.Namespace) -> Any:
    return resolve_root(args.root)


def emit_json(payload: Any) -> None:
    json.dump(payload, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def fail(message: str, code: int = 1) -> int:
    """Print a one-line error to stderr and return the exit code to use."""
    print(f"codekeep: {message}", file=sys.stderr)
    return code
