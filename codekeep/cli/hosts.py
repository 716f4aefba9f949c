"""``codekeep install HOST`` / ``codekeep uninstall HOST`` / ``codekeep hook EVENT``:
set CodeKeep up inside an agent host, and answer Claude Code's hooks.

Install and uninstall compute every file's change first (:mod:`codekeep.hosts.catalog`)
and write only when all of them could be computed, so a config the host's format does
not allow leaves every file as it was; ``--dry-run`` prints the diff instead.
"""

from __future__ import annotations

import argparse
import sys

from codekeep.cli.options import emit_json, fail, root_of
from codekeep.common.workspace import refusal

ORDER = 92
HOST_NAMES = ("claude-code", "codex", "cursor", "gemini-cli", "vscode", "cline")
COMMANDS = {
    "install": "set CodeKeep up in an agent host (MCP config, instructions, Claude Code hooks)",
    "uninstall": "remove exactly what `codekeep install` added to an agent host",
    "hook": "answer a Claude Code hook event (JSON on stdin; never fails a session)",
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
             only: str | None = None) -> None:
    for name in ("install", "uninstall"):
        if only not in (None, name):
            continue
        parser = subparsers.add_parser(name, help=COMMANDS[name], description=COMMANDS[name])
        parser.add_argument("host", choices=HOST_NAMES)
        parser.add_argument("--root", default=None,
                            help="workspace root (default: the current directory)")
        parser.add_argument("--scope", choices=("project", "user"), default="project",
                            help="the workspace's own files (default) or your home folder's")
        parser.add_argument("--dry-run", action="store_true",
                            help="print the diff of every file and write nothing")
        parser.add_argument("--json", action="store_true", help="print JSON instead of text")
        # --scope user works from anywhere, the home folder too: _run refuses the rest.
        parser.set_defaults(handler=_run, installing=name == "install",
                            refuses_folders_itself=True)
    if only in (None, "hook"):
        parser = subparsers.add_parser("hook", help=COMMANDS["hook"], description=(
            "Answer one Claude Code hook event: its JSON on stdin, the documented answer "
            "on stdout. Any failure exits 0 with a line in .codekeep/hooks.log."))
        parser.add_argument("event", help="SessionStart, UserPromptSubmit, PostToolUse, "
                                          "PreCompact, Stop or SessionEnd")
        # Not --root's usual dest: a stale root must not make the hook exit non-zero.
        parser.add_argument("--root", dest="hook_root", default=None,
                            help="workspace root (default: the hook's project folder)")
        # Like a query, a hook ends the process at once: its stores are closed before it
        # answers, and tearing the interpreter down would cost a tenth of its run.
        parser.set_defaults(handler=_hook, read_only=True)


def _run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from codekeep.hosts.catalog import HOSTS, Context, install_plan, launcher, uninstall_plan
    from codekeep.hosts.changes import ConfigError, apply

    root = root_of(args)
    home = Path.home().resolve()
    if args.scope == "project" and (refused := refusal(root)) is not None:
        return fail(f"{refused} (Or pass --scope user for your home folder's files.)")
    host = HOSTS[args.host]
    context = Context(root, args.scope, home, launcher())
    try:
        plan = (install_plan if args.installing else uninstall_plan)(host, context)
    except ConfigError as error:
        return fail(f"{error}; nothing was written")
    changed = [change for change in plan if change.changes_anything]
    if args.dry_run:
        sys.stdout.write("".join(change.diff() for change in changed))
    else:
        apply(changed)
    if args.json:
        emit_json({"host": host.name, "scope": args.scope, "dryRun": args.dry_run,
                   "files": [{"path": str(c.path), "what": c.note,
                              "changed": c.changes_anything} for c in plan]})
    elif not args.dry_run:
        verb = "installed in" if args.installing else "removed from"
        for change in plan:
            action = "unchanged" if not change.changes_anything else (
                "deleted" if change.after is None else
                "created" if change.before is None else "updated")
            print(f"{action:9} {change.path} ({change.note})")
        print(f"CodeKeep {verb} {host.title} ({args.scope} scope)")
    return 0


def _hook(args: argparse.Namespace) -> int:
    from codekeep.hosts.hooks.dispatch import answer

    return answer(args.event, args.hook_root)
