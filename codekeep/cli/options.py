"""Options and output shared by every command group (``--root``, ``--json``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from codekeep.common.sqlite import explain_damage
from codekeep.common.workspace import resolve_root

if TYPE_CHECKING:
    from codekeep.settings import Settings
    from codekeep.settings.codemap import IndexSettings
    from codekeep.settings.layers import LayerStack

T = TypeVar("T")


def common_options() -> argparse.ArgumentParser:
    """A parent parser giving a sub-command ``--root`` and ``--json``."""
    parent = argparse.ArgumentParser(add_help=False)
    add_common_options(parent)
    return parent


def add_common_options(parser: argparse.ArgumentParser) -> None:
    """``--root`` and ``--json`` on ``parser`` itself (no parent parser to build and copy)."""
    parser.add_argument(
        "--root", default=None, help="workspace root (default: the current directory)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def store_options() -> argparse.ArgumentParser:
    """:func:`common_options` plus ``--repair``, for the sub-commands of a durable store
    (memory, ledger): a damaged database is salvaged before the command runs."""
    parent = argparse.ArgumentParser(add_help=False, parents=[common_options()])
    parent.add_argument(
        "--repair", action="store_true",
        help="if the database is damaged, first keep every readable row in a fresh file "
             "(the damaged one stays beside it as <name>.damaged-<time>)",
    )
    return parent


def repair_first(args: argparse.Namespace, paths: Sequence[Path],
                 migrations: Sequence[str]) -> None:
    """With ``--repair``: salvage each damaged file of ``paths`` and say what was kept."""
    if not getattr(args, "repair", False):
        return
    from codekeep.common.salvage import repair_damaged  # only when asked to repair

    for report in repair_damaged(paths, migrations):
        print(f"codekeep: {report.summary()}", file=sys.stderr)


def damage_failure(error: BaseException, paths: Sequence[Path]) -> int | None:
    """The exit code after a one-line report when ``error`` is a damaged database (the
    file among ``paths`` that fails its check is named); None for any other error."""
    damage = explain_damage(error, paths, "rerun with `--repair`")
    return None if damage is None else fail(str(damage))


def root_of(args: argparse.Namespace) -> Path:
    """The command's workspace root: resolved once by :func:`codekeep.cli.main` (a handler
    called without it resolves ``--root`` here)."""
    return args.root if isinstance(args.root, Path) else resolve_root(args.root)


def settings_of(args: argparse.Namespace, flags: Mapping[str, Any] | None = None) -> Settings:
    """Every settings layer of ``--root`` with ``flags`` on top (wire names, None = not given).

    The same layers the language server reads, so ``codekeep index`` and the editor
    index by the same rules. What is not accepted is said on stderr, and the layers
    below decide that key.
    """
    from codekeep.settings import load_settings  # read only by commands that need it

    return _reported(load_settings(root_of(args), flags=flags))


def index_settings_of(args: argparse.Namespace,
                      flags: Mapping[str, Any] | None = None) -> IndexSettings:
    """:func:`settings_of` for a code map query: only the code map's settings are
    resolved (and reported on), not every area's (see ``load_index_settings``)."""
    from codekeep.settings.layers import load_index_settings

    return _reported(load_index_settings(root_of(args), flags=flags))


def _reported(layers: LayerStack[T]) -> T:
    """The resolved settings, after a warning on stderr for each thing not accepted."""
    for report in layers.reports:
        print(f"codekeep: warning: {report}", file=sys.stderr)
    return layers.settings


def positive_int(text: str) -> int:
    """An argparse type for a count (``--limit``, ``--tokens`` ...): zero or less is a
    typo, never a request (``--limit 0`` would claim nothing is there), so argparse
    reports it as a usage error (exit 2) with the command's own usage line."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {value}")
    return value


def emit_json(payload: Any) -> None:
    json.dump(payload, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def fail(message: str, code: int = 1) -> int:
    """Print a one-line error to stderr and return the exit code to use."""
    print(f"codekeep: {message}", file=sys.stderr)
    return code


# Exit status of every command (README/docs say the same): 0 done, something found;
# NOTHING_FOUND when a query had no answer (and for errors: stderr says which);
# 2 a usage error (argparse); 3 a ledger call over a hard budget; 130 interrupted.
NOTHING_FOUND = 1


def nothing_found(args: argparse.Namespace, message: str, empty: dict[str, Any]) -> int:
    """A query with no answer, the same way in every command: one line on stderr, and
    with ``--json`` the usual object (``empty``, its lists empty) plus ``reason``."""
    if getattr(args, "json", False):
        emit_json({**empty, "reason": message})
    return fail(message, NOTHING_FOUND)
