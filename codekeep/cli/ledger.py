"""``codekeep ledger``: report, record, budget, import and ship model-call usage.

A thin door onto :class:`codekeep.ledger.Ledger`: any agent or script (not only ours)
can report its calls here, and budget crossings print a warning on stderr. With a team
database configured, a command that recorded calls hands them to a detached
``codekeep ledger ship`` on its way out (it does not wait for the network).
"""

from __future__ import annotations

import argparse
import contextlib
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from codekeep.cli.options import (
    damage_failure,
    emit_json,
    fail,
    repair_first,
    root_of,
    settings_of,
    store_options,
)
from codekeep.common.sqlite import SchemaTooNewError
from codekeep.common.workspace import state_dir

if TYPE_CHECKING:
    from codekeep.analysis.codemap import CodeMap
    from codekeep.ledger import BudgetEvent, Ledger
    from codekeep.ledger.fold import FoldResult
    from codekeep.team.ledger import TeamLedger

ORDER = 60
# register() reads call types and groupings from the ledger package: it runs only for
# this group's commands (see codekeep.cli).
COMMANDS = {"ledger": "token ledger: report, record, budget, import, ship"}
EXIT_BUDGET_EXHAUSTED = 3


def register(subparsers: argparse._SubParsersAction, only: str | None = None) -> None:
    from codekeep.ledger import CALL_TYPE_INPUTS
    from codekeep.ledger.ledger import GROUPS
    from codekeep.ledger.store import HOSTS

    parser = subparsers.add_parser("ledger", help=COMMANDS["ledger"],
                                   description="Count, attribute and budget model calls.")
    actions = parser.add_subparsers(dest="ledger_action", metavar="ACTION", required=True)
    common = store_options()

    report = actions.add_parser("report", parents=[common], help="usage table and top files")
    report.add_argument("--task", help="only this task (and its continuations)")
    report.add_argument("--since", help="YYYY-MM-DD, an ISO date-time, or 24h / 7d / 2w")
    report.add_argument("--by", choices=[*GROUPS, "member"], default=None,
                        help="row grouping (default type; --team: member, task, day, file)")
    report.add_argument("--team", action="store_true",
                        help="the whole team's usage from the team database (docs/team.md)")
    report.add_argument("--top", type=int, default=10, help="how many top files (default 10)")
    report.add_argument("--host", choices=HOSTS,
                        help="only this agent host's calls (codekeep: our own agent and doors)")
    report.set_defaults(handler=_with_ledger(_report))

    record = actions.add_parser("record", parents=[common], help="record one model call")
    record.add_argument("--task", required=True, help="task id the call belongs to")
    record.add_argument("--type", required=True, choices=CALL_TYPE_INPUTS, dest="call_type")
    record.add_argument("--model", required=True)
    record.add_argument("--input", type=int, help="provider-reported input tokens")
    record.add_argument("--output", type=int, help="provider-reported output tokens")
    record.add_argument("--cached", type=int, default=0, help="input tokens served from cache")
    record.add_argument("--reasoning", type=int, default=0, help="output tokens spent reasoning")
    record.add_argument("--prompt-file", type=Path, help="count the input from this text")
    record.add_argument("--completion-file", type=Path, help="count the output from this text")
    record.add_argument("--file", action="append", default=[], dest="files", metavar="PATH",
                        help="a file the call read (repeatable; weighted by its size)")
    record.add_argument("--latency-ms", type=float, default=0.0)
    record.add_argument("--retry", type=int, default=0, help="retry number (0: first try)")
    record.add_argument("--stream", action="store_true", help="the call was streamed")
    record.set_defaults(handler=_with_ledger(_record, records=True))

    budget = actions.add_parser("budget", parents=[common],
                                help="set or show token budgets (0 removes one)")
    budget.add_argument("--task", help="task the --limit applies to")
    budget.add_argument("--limit", type=int, help="token limit of --task")
    budget.add_argument("--daily", type=int, help="token limit per UTC day, all tasks")
    budget.add_argument("--hard-stop", action="store_true",
                        help="calls over the limit fail (they are still recorded)")
    budget.set_defaults(handler=_with_ledger(_budget))

    importer = actions.add_parser(
        "import", parents=[common],
        help="import Claude Code (~/.claude/projects) or Codex CLI (~/.codex/sessions) usage")
    importer.add_argument("source", nargs="?", type=Path, default=None,
                          help="a log directory or one .jsonl file (default: the agent's own)")
    importer.add_argument("--from", dest="agent", choices=sorted(_importers()),
                          default="claude-code", help="whose logs (default: claude-code)")
    importer.set_defaults(handler=_with_ledger(_import, records=True))

    ship = actions.add_parser(
        "ship", parents=[common],
        help="send this member's queued calls to the team database now (docs/team.md)")
    ship.add_argument("--quiet", action="store_true", help="print nothing on success")
    ship.set_defaults(handler=_with_ledger(_ship))


def _with_ledger(action: Callable[[Ledger, argparse.Namespace], int], *, records: bool = False
                 ) -> Callable[[argparse.Namespace], int]:
    """Open the workspace ledger, run ``action``, and always flush and close it.

    ``records``: the action records calls, which then leave for the team database (if
    one is configured) through a detached sender."""
    def handler(args: argparse.Namespace) -> int:
        from codekeep.ledger import Ledger
        from codekeep.ledger.ledger import DB_NAME
        from codekeep.ledger.schema import MIGRATIONS

        files = [state_dir(root_of(args)) / DB_NAME]
        try:
            repair_first(args, files, MIGRATIONS)
            ledger = Ledger.open(root_of(args), settings_of(args).ledger, start_flusher=False)
        except SchemaTooNewError as error:
            return fail(f"cannot open the ledger database .codekeep/ledger.db: {error}")
        except sqlite3.DatabaseError as error:
            return damage_failure(error, files) or fail(
                f"cannot open the ledger database .codekeep/ledger.db: {error}")
        ledger.subscribe(_warn)
        try:
            code = action(ledger, args)
            if records:
                _ship_later(ledger, args)
            ledger.close()  # its last write can fail too: then the command fails
            return code
        except ValueError as exc:
            return fail(str(exc))
        except sqlite3.DatabaseError as error:
            damaged = damage_failure(error, files)
            if damaged is None:
                raise
            return damaged
        finally:
            with contextlib.suppress(sqlite3.DatabaseError):
                ledger.close()  # after a failure: release the file, the error is told
    return handler


def _team_report(ledger: Ledger, args: argparse.Namespace, since: datetime | None) -> int:
    """Ship this member's unsent calls, then report the team (a database that cannot be
    reached is one line; the calls stay queued in the local ledger)."""
    from codekeep.settings.team import NOT_CONFIGURED
    from codekeep.team.errors import TeamError
    from codekeep.team.ledger import render_team

    try:
        team = _team_ledger(ledger, args)
        if team is None:
            return fail(NOT_CONFIGURED)
        try:
            team.ship(ledger)
            report = team.report(args.by or "member", since.strftime("%Y-%m-%d") if since else None)
        finally:
            team.close()
    except TeamError as exc:
        return fail(f"{exc} (this member's calls stay queued)")
    if args.json:
        emit_json(report)
    else:
        print(render_team(report))
    return 0


def _team_ledger(ledger: Ledger, args: argparse.Namespace) -> TeamLedger | None:
    """This member's team ledger (None: no team database configured)."""
    from codekeep.team.config import team_config
    from codekeep.team.ledger import TeamLedger

    config = team_config(settings_of(args).team, ledger.root)
    return None if config is None else TeamLedger(config, ledger.root)


def _ship_later(ledger: Ledger, args: argparse.Namespace) -> None:
    """Hand the calls just recorded to a detached sender, unless the team database
    failed a moment ago (the next sender, or ``ledger ship``, sends them)."""
    from codekeep.team.errors import TeamError
    from codekeep.team.sender import ship_later

    try:
        team = _team_ledger(ledger, args)
    except TeamError as exc:
        print(f"codekeep: warning: calls not sent to the team: {exc}", file=sys.stderr)
        return
    if team is None:
        return
    try:
        if team.db.backoff.waiting() is None and team.waiting(ledger):
            ship_later(ledger.root)
    finally:
        team.close()


def _ship(ledger: Ledger, args: argparse.Namespace) -> int:
    """Send the queued calls now (what the detached sender runs)."""
    from codekeep.settings.team import NOT_CONFIGURED
    from codekeep.team.errors import TeamError

    try:
        team = _team_ledger(ledger, args)
        if team is None:
            return fail(NOT_CONFIGURED)
        try:
            added = team.ship(ledger)
        finally:
            team.close()
    except TeamError as exc:
        return fail(f"{exc} (this member's calls stay queued)")
    if not args.quiet:
        print(f"sent {added} call(s) to the team database")
    return 0


def _warn(event: BudgetEvent) -> None:
    print(f"codekeep: warning: {event.message()}", file=sys.stderr)


def _report(ledger: Ledger, args: argparse.Namespace) -> int:
    from codekeep.analysis.reads import symbol_read
    from codekeep.ledger.days import parse_since
    from codekeep.ledger.reports import render_text

    since = parse_since(args.since, time.time()) if args.since else None
    if args.team:
        return _team_report(ledger, args, since)
    if args.by == "member":
        return fail("--by member needs --team (this ledger is one member's)")
    args.by = args.by or "type"
    with _code_map(ledger.root) as codemap:
        suggest = (lambda path: symbol_read(codemap, path)) if codemap else None
        report = ledger.report(task_id=args.task, since=since, group_by=args.by,
                               top_files=args.top, suggest=suggest, host=args.host)
    if args.json:
        emit_json(report)  # with the reason, for scripts that read stdout only
    elif "reason" not in report:
        print(render_text(report))
    return fail(report["reason"]) if "reason" in report else 0


@contextmanager
def _code_map(root: Path) -> Iterator[CodeMap | None]:
    """The workspace's code map as last indexed (no indexing here), for cheaper-read hints;
    None when the workspace was never indexed."""
    from codekeep.analysis.codemap import INDEX_FILE, CodeMap

    if not (state_dir(root) / INDEX_FILE).is_file():
        yield None
        return
    try:
        codemap = CodeMap.open(root)
    except (sqlite3.Error, OSError, SchemaTooNewError):
        yield None
        return
    try:
        yield codemap
    finally:
        codemap.close()


def _record(ledger: Ledger, args: argparse.Namespace) -> int:
    from codekeep.ledger import BudgetExceeded
    from codekeep.ledger.attribution import characters_in_files

    if args.input is not None and args.prompt_file is not None:
        return fail("give either --input or --prompt-file, not both")
    if args.output is not None and args.completion_file is not None:
        return fail("give either --output or --completion-file, not both")
    if args.input is None and args.prompt_file is None:
        return fail("give --input N (reported tokens) or --prompt-file F (text to count)")
    exhausted: BudgetExceeded | None = None
    try:
        record = ledger.record(
            task_id=args.task, call_type=args.call_type, model=args.model,
            input_tokens=args.input, output_tokens=args.output, cached_tokens=args.cached,
            reasoning_tokens=args.reasoning, prompt_text=_read(args.prompt_file),
            completion_text=_read(args.completion_file),
            files=characters_in_files(args.files, ledger.root), latency_ms=args.latency_ms,
            retry=args.retry, stream=args.stream,
        )
    except BudgetExceeded as exc:
        exhausted, record = exc, exc.record
    ledger.flush()  # "recorded" is said only of a call that is on disk
    if args.json:
        emit_json(record.to_json())
    else:
        print(f"recorded {record.call_type} call on task {record.task_id}: "
              f"{record.input_tokens:,} in / {record.output_tokens:,} out tokens "
              f"({record.token_source}), ${record.cost_usd:.4f}")
    if exhausted is not None:
        return fail(str(exhausted), EXIT_BUDGET_EXHAUSTED)
    return 0


def _read(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from exc


def _budget(ledger: Ledger, args: argparse.Namespace) -> int:
    from codekeep.ledger.reports import budget_lines

    if args.limit is not None or args.daily is not None:
        ledger.set_budget(args.task, limit=args.limit, daily=args.daily, hard_stop=args.hard_stop)
    state = ledger.budget_state(args.task)
    if args.json:
        emit_json(state)
    else:
        print("\n".join(budget_lines(state)))
    return 0


def _importers() -> dict[str, tuple[Callable[[], Path], Callable[[Path], list[Path]],
                                      Callable[[Ledger, Path], FoldResult]]]:
    """agent -> (default log directory, files below a source, fold of one file)"""
    from codekeep.ledger.codex_logs import codex_log_files, codex_sessions_dir
    from codekeep.ledger.fold import fold_codex, fold_file
    from codekeep.ledger.importers import CLAUDE_PROJECTS, claude_code_log_files

    return {
        "claude-code": (lambda: CLAUDE_PROJECTS, claude_code_log_files,
                        lambda ledger, path: fold_file(ledger, path, "claude-code")),
        "codex": (codex_sessions_dir, codex_log_files, fold_codex),
    }


def _import(ledger: Ledger, args: argparse.Namespace) -> int:
    from codekeep.ledger.fold import FoldResult

    default_source, log_files, fold = _importers()[args.agent]
    source = args.source or default_source()
    if not source.exists():
        return fail(f"{source} does not exist")
    result = FoldResult()
    for path in log_files(source):
        result.add(fold(ledger, path))
    summary = {"files": result.files, "imported": result.calls,
               "duplicates": result.duplicates + result.grown, "errors": result.errors,
               "skipped": result.skipped}
    if args.json:
        emit_json(summary)
    else:
        skipped = "".join(f"; skipped {count} {reason}" for reason, count in result.skipped.items())
        errors = f", {result.errors:,} error events" if result.errors else ""
        print(f"imported {result.calls:,} calls{errors} from {result.files} files "
              f"({result.duplicates + result.grown:,} already imported{skipped})")
    return 0
