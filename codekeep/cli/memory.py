"""``codekeep memory …``: remember, recall, list, forget, not-this, confirm, promote,
extract, history, notes, purge (``--scope team``: the team database, see docs/team.md).

A thin door onto :class:`codekeep.memory.MemoryService`: parse arguments, call one
service method, print text or ``--json``. Rejections and bad input exit with 1 and a
one-line reason on stderr (the JSON form carries the same reason).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from codekeep.cli.options import (
    damage_failure,
    emit_json,
    fail,
    nothing_found,
    positive_int,
    repair_first,
    root_of,
    settings_of,
    store_options,
)
from codekeep.common.sqlite import SchemaTooNewError

if TYPE_CHECKING:
    from codekeep.memory import Memory, MemoryService, WriteResult

ORDER = 40
# register() reads the kinds, scopes and statuses from the memory package: it runs
# only for this group's commands (see codekeep.cli).
COMMANDS = {"memory": "project and user memory for the agent"}


def _open(args: argparse.Namespace) -> MemoryService:
    from codekeep.services import open_memory

    settings = settings_of(args)
    return open_memory(root_of(args), settings.memory, settings.team)


def _run(args: argparse.Namespace, body: Callable[[MemoryService], int]) -> int:
    """Run ``body`` on the opened service; a damaged database (at open or in the middle
    of the command) is one line naming the file and what to do, never a traceback."""
    from codekeep.memory import MemoryInputError, MemoryService
    from codekeep.memory.schema import MIGRATIONS

    files = MemoryService.files(root_of(args))
    try:
        repair_first(args, files, MIGRATIONS)
        with _open(args) as service:
            return body(service)
    except MemoryInputError as exc:
        return fail(str(exc))
    except SchemaTooNewError as exc:  # a newer database is reported and left as it is
        return fail(f"cannot open the memory database: {exc}")
    except sqlite3.DatabaseError as exc:
        code = damage_failure(exc, files)
        return fail(f"cannot use the memory database: {exc}") if code is None else code


def _memory_line(memory: Memory) -> str:
    flags = f" [{', '.join(memory.flags)}]" if memory.flags else ""
    links = ", ".join(memory.files + memory.symbols)
    if memory.author:
        flags += f" (by {memory.author})"
    return (
        f"{memory.id}  {memory.kind:<15} {memory.status:<10} {memory.scope:<7} "
        f"{memory.content}{flags}" + (f"  ({links})" if links else "")
    )


def _remember(args: argparse.Namespace) -> int:
    def body(service: MemoryService) -> int:
        result = service.remember(
            args.text,
            kind=args.kind,
            key=args.key,
            importance=args.importance,
            scope=args.scope,
            files=args.file,
            symbols=args.symbol,
            evidence={"file": args.evidence, "quote": args.quote} if args.evidence else None,
            source="explicit_command",
            ttl_days=args.ttl_days,
        )
        return _written(args, result)

    return _run(args, body)


def _written(args: argparse.Namespace, result: WriteResult) -> int:
    """What a write decided, as text or JSON; a rejection exits 1 with its reason."""
    if args.json:
        emit_json(result.to_json())
    elif not result.rejected:
        print(f"{result.action} {result.id}" + (f" ({result.reason})" if result.reason else ""))
    return fail(result.reason or "rejected") if result.rejected else 0


def _recall(args: argparse.Namespace) -> int:
    def body(service: MemoryService) -> int:
        found = service.recall(
            args.query,
            limit=args.limit,
            kinds=args.kind or None,
            files=args.file,
            symbols=args.symbol,
        )
        if service.team_warning:  # local results still answer; say why the team's do not
            print(f"team memories not searched: {service.team_warning}", file=sys.stderr)
        if not found:
            return nothing_found(args, f"no memories match {args.query!r}", {"memories": []})
        if args.json:
            emit_json({"memories": [r.to_json() for r in found]})
        for recalled in [] if args.json else found:
            parts = recalled.parts
            print(
                f"{recalled.score:.3f}  (recency {parts.recency:.2f}, importance "
                f"{parts.importance:.2f}, "
                f"relevance {parts.relevance:.2f})  {_memory_line(recalled.memory)}"
            )
        return 0

    return _run(args, body)


def _list(args: argparse.Namespace) -> int:
    from codekeep.memory import STATUSES

    def body(service: MemoryService) -> int:
        statuses = list(STATUSES) if args.all else (args.status or None)
        found = service.list(
            kinds=args.kind or None, statuses=statuses, scope=args.scope, limit=args.limit
        )
        if not found:
            return nothing_found(args, "no memories", {"memories": []})
        if args.json:
            emit_json({"memories": [m.to_json() for m in found]})
        else:
            for memory in found:
                print(_memory_line(memory))
        return 0

    return _run(args, body)


def _by_id(
    action: Callable[[MemoryService, argparse.Namespace], bool],
    failure: str = "no memory with id {id!r}",
) -> Callable[[argparse.Namespace], int]:
    def handler(args: argparse.Namespace) -> int:
        def body(service: MemoryService) -> int:
            ok = action(service, args)
            if args.json:
                emit_json({"ok": ok, "id": args.id})
            elif ok:
                print(f"ok {args.id}")
            return 0 if ok else fail(failure.format(id=args.id))

        return _run(args, body)

    return handler


def _not_this(service: MemoryService, args: argparse.Namespace) -> bool:
    if args.undo:
        return service.undo_not_this(args.id)
    return service.not_this(args.id, args.reason)


def _extract(args: argparse.Namespace) -> int:
    """On demand: the rule stage over a task's events (the model stage runs in the agent)."""
    from codekeep.memory import extraction

    def body(service: MemoryService) -> int:
        if not service.events.events(args.task):
            return fail(f"no events recorded for task {args.task!r}")
        found = extraction.extract(service, args.task)
        if args.json:
            emit_json(found.to_json())
            return 0
        for entry in found.written:
            print(f"{entry['action']:<9} {entry['id'] or '-':<14} {entry['content']}")
        for entry in found.rejected:
            print(f"rejected  {entry.get('content', '-')}: {entry['reason']}")
        if not found.written and not found.rejected:
            print("nothing to learn from this task")
        return 0

    return _run(args, body)


def _promote(args: argparse.Namespace) -> int:
    def body(service: MemoryService) -> int:
        return _written(args, service.promote(args.id, args.to))

    return _run(args, body)


def _history(args: argparse.Namespace) -> int:
    def body(service: MemoryService) -> int:
        memory = service.get(args.id)
        if memory is None:
            return fail(f"no memory with id {args.id!r}")
        history = service.history(args.id)
        if args.json:
            emit_json({"memory": memory.to_json(), "history": history})
        else:
            print(_memory_line(memory))
            for entry in history:
                when = datetime.fromtimestamp(entry["at"], UTC).strftime("%Y-%m-%d %H:%M:%S")
                detail = json.dumps(entry["detail"], ensure_ascii=False) if entry["detail"] else ""
                print(f"  {when}  {entry['action']:<18} {detail}")
        return 0

    return _run(args, body)


def _notes(args: argparse.Namespace) -> int:
    def body(service: MemoryService) -> int:
        path = service.notes_path
        if args.template:
            return _template(args, service)
        if args.edit:
            service.create_notes()
            import shlex
            import subprocess  # only to start the user's editor

            editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
            subprocess.run([*shlex.split(editor), str(path)], check=False)
        report = service.sync_notes()
        return _print_notes(args, path, report)

    return _run(args, body)


def _template(args: argparse.Namespace, service: MemoryService) -> int:
    """Print the template, or with ``--init`` create MEMORY.md from it — never over yours."""
    if not args.init:
        template = service.catalog.template()
        if args.json:
            emit_json({"template": template})
        else:
            sys.stdout.write(template)
        return 0
    path = service.notes_path
    if not service.create_notes():
        return fail(f"{path} already exists (left as it is); edit it with: "
                    "codekeep memory notes --edit")
    if args.json:
        emit_json({"path": str(path)})
    else:
        print(f"wrote {path}", file=sys.stderr)
    return 0


def _print_notes(args: argparse.Namespace, path: Any, report: dict[str, Any]) -> int:
    if args.json:
        emit_json(report)
        return 0
    if not report["exists"]:
        print(f"{path} does not exist; create it with: codekeep memory notes --template --init")
        return 0
    sys.stdout.write(path.read_text(encoding="utf-8", errors="replace"))
    for problem in report["invalid"]:
        print(f"{path}:{problem['line']}: {problem['reason']}: {problem['text']}", file=sys.stderr)
    return 0


def _purge(args: argparse.Namespace) -> int:
    from codekeep.memory.service import PURGEABLE_STATUSES

    def body(service: MemoryService) -> int:
        statuses = args.status or list(PURGEABLE_STATUSES)
        count = len(args.id) if args.id else service.count(statuses=statuses)
        what = f"{count} memories" + ("" if args.id else f" with status {', '.join(statuses)}")
        if count == 0:
            print("nothing to purge")
            return 0
        if not args.yes:
            if not sys.stdin.isatty():
                return fail(f"purge would delete {what}; pass --yes to confirm non-interactively")
            answer = input(f"Permanently delete {what}? This cannot be undone. [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                print("purge cancelled")
                return 1
        deleted = service.purge(ids=args.id, statuses=statuses)
        if args.json:
            emit_json({"deleted": deleted})
        else:
            print(f"deleted {deleted} memories")
        return 0

    return _run(args, body)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
             only: str | None = None) -> None:
    from codekeep.memory import KINDS, SCOPES, STATUSES
    from codekeep.memory.model import (
        DEFAULT_IMPORTANCE,
        DEFAULT_KIND,
        DEFAULT_SCOPE,
        IMPORTANCE_MAX,
        IMPORTANCE_MIN,
        LIST_LIMIT,
        RECALL_LIMIT,
        WRITABLE_SCOPES,
    )

    common = store_options()
    memory = subparsers.add_parser("memory", help=COMMANDS["memory"])
    commands = memory.add_subparsers(dest="memory_command", metavar="ACTION")

    def usage(_args: argparse.Namespace) -> int:
        memory.print_help(sys.stderr)
        return 2

    memory.set_defaults(handler=usage)

    p = commands.add_parser("remember", parents=[common], help="store a memory (consolidated)")
    p.add_argument("text")
    p.add_argument("--kind", default=DEFAULT_KIND, choices=[k for k in KINDS if k != "event"])
    p.add_argument("--key", default=None, help="subject key; same key with a new value supersedes")
    p.add_argument("--importance", type=int, default=DEFAULT_IMPORTANCE,
                   choices=range(IMPORTANCE_MIN, IMPORTANCE_MAX + 1),
                   metavar=f"{IMPORTANCE_MIN}-{IMPORTANCE_MAX}")
    p.add_argument("--scope", default=DEFAULT_SCOPE, choices=WRITABLE_SCOPES)
    p.add_argument("--file", action="append", default=[], help="link to a file (repeatable)")
    p.add_argument("--symbol", action="append", default=[], help="link to a symbol id (repeatable)")
    p.add_argument(
        "--evidence",
        metavar="FILE",
        default=None,
        help="workspace file that proves it (required for --kind case)",
    )
    p.add_argument("--quote", default="", help="with --evidence: the text found in FILE")
    p.add_argument(
        "--ttl-days",
        type=float,
        default=None,
        help="expire unless seen again within this many days",
    )
    p.set_defaults(handler=_remember)

    p = commands.add_parser("recall", parents=[common], help="the best memories for a query")
    p.add_argument("query")
    p.add_argument("--limit", type=positive_int, default=RECALL_LIMIT)
    p.add_argument("--kind", action="append", default=[], choices=KINDS)
    p.add_argument("--file", action="append", default=[])
    p.add_argument("--symbol", action="append", default=[])
    p.set_defaults(handler=_recall)

    p = commands.add_parser("list", parents=[common], help="memories, newest first")
    p.add_argument("--kind", action="append", default=[], choices=KINDS)
    p.add_argument("--status", action="append", default=[], choices=STATUSES)
    p.add_argument("--scope", default=None, choices=SCOPES)
    p.add_argument(
        "--all", action="store_true", help="every status, including superseded and disabled"
    )
    p.add_argument("--limit", type=positive_int, default=LIST_LIMIT)
    p.set_defaults(handler=_list)

    p = commands.add_parser(
        "promote", parents=[common], help="share a project or user memory with the team"
    )
    p.add_argument("id")
    p.add_argument("--to", default="team", choices=["team"])
    p.set_defaults(handler=_promote)

    p = commands.add_parser("forget", parents=[common], help="disable a memory (kept for audit)")
    p.add_argument("id")
    p.add_argument("--reason", default=None)
    p.set_defaults(handler=_by_id(lambda service, args: service.forget(args.id, args.reason)))

    p = commands.add_parser(
        "not-this", parents=[common], help="negative feedback: halve a memory's score"
    )
    p.add_argument("id")
    p.add_argument("--reason", default=None)
    p.add_argument("--undo", action="store_true", help="retract the feedback")
    p.set_defaults(handler=_by_id(_not_this))

    p = commands.add_parser(
        "confirm", parents=[common], help="confirm an observed (inferred) memory: it is acted on"
    )
    p.add_argument("id")
    p.set_defaults(handler=_by_id(lambda service, args: service.confirm(args.id),
                                  "no observed memory with id {id!r} (unknown, or not waiting "
                                  "for confirmation)"))

    p = commands.add_parser(
        "extract", parents=[common], help="learn from a task's conversation (rule stage)"
    )
    p.add_argument("--task", required=True, help="the task id (codekeep agent prints it)")
    p.set_defaults(handler=_extract)

    p = commands.add_parser("history", parents=[common], help="every change to one memory")
    p.add_argument("id")
    p.set_defaults(handler=_history)

    p = commands.add_parser("notes", parents=[common], help="print and re-sync .codekeep/MEMORY.md")
    p.add_argument("--template", action="store_true", help="print the MEMORY.md scaffold")
    p.add_argument(
        "--init", action="store_true", help="with --template: write it if MEMORY.md is missing"
    )
    p.add_argument("--edit", action="store_true", help="open MEMORY.md in $EDITOR, then sync")
    p.set_defaults(handler=_notes)

    p = commands.add_parser(
        "purge", parents=[common], help="physically delete disabled/superseded/archived"
    )
    p.add_argument("--id", action="append", default=[], help="purge these ids (any status)")
    p.add_argument("--status", action="append", default=[], choices=STATUSES)
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.set_defaults(handler=_purge)
