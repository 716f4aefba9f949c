"""The team ledger: each member's ledger records shipped to the team database, and the
report over the whole team.

The member's own ``ledger.db`` is the outbox: its calls are shipped in batches, oldest
first, and ``.codekeep/team_shipped.json`` remembers the last local row the team
database acknowledged. A batch is one PostgreSQL transaction; the mark moves only after
it committed, so while the database is unreachable records simply wait (nothing
acknowledged is lost), and a batch re-sent after a crash between the commit and the
mark adds nothing (the team's ``(member, id)`` key). Senders of one workspace (the
server's background sender, a detached ``codekeep ledger ship``, ``report --team``)
take turns on ``.codekeep/team_ship.lock``. Only counts, costs and file token sums
travel — never prompt or completion text.

The team's daily budget is checked here too: :meth:`TeamLedger.budget_crossings` says
which of the warning thresholds the team's spend today has newly crossed for this member.
"""

from __future__ import annotations

import fcntl
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from codekeep.common.atomic import write_atomically
from codekeep.common.workspace import state_dir
from codekeep.ledger.days import day_of
from codekeep.ledger.ledger import Ledger
from codekeep.ledger.records import BudgetEvent
from codekeep.team.config import TeamConfig
from codekeep.team.store import TeamDatabase
from codekeep.team.store import calls as team_calls

MARK_FILE = "team_shipped.json"
LOCK_FILE = "team_ship.lock"
BATCH = 500
TEAM_GROUPS = ("member", "task", "day", "file")


class TeamLedger:
    def __init__(self, config: TeamConfig, root: Path, db: TeamDatabase | None = None) -> None:
        self.db = db or config.database(root)
        self.member = config.member
        self._mark = state_dir(root) / MARK_FILE
        self._lock_file = state_dir(root) / LOCK_FILE

    def close(self) -> None:
        self.db.close()

    def shipped_upto(self) -> int:
        try:
            return int(json.loads(self._mark.read_text(encoding="utf-8"))["rowid"])
        except (OSError, ValueError, KeyError, TypeError):
            return 0

    def _set_mark(self, rowid: int) -> None:
        write_atomically(self._mark, json.dumps({"rowid": rowid}).encode("utf-8"))

    @contextmanager
    def _turn(self) -> Iterator[None]:
        """One sender of this workspace at a time (across processes)."""
        with self._lock_file.open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def ship(self, ledger: Ledger, *, implicit: bool = False) -> int:
        """Send every call not yet acknowledged; how many the team database added.

        Raises :class:`TeamError` (one line) when the database cannot take a batch;
        the batches already acknowledged stay shipped, the rest wait for the next call.
        ``implicit`` (the background sender): while the database is backing off after a
        failure, fail at once instead of trying.
        """
        with self._turn():
            upto = self.shipped_upto()
            if upto > ledger.last_rowid():  # the local ledger was recreated: start again
                upto = 0
            added = 0
            while True:
                batch = ledger.calls_after(upto, BATCH)
                if not batch:
                    return added
                added += self.db.run(partial(team_calls.insert, member=self.member,
                                             records=[record for _, record in batch]),
                                     implicit=implicit)
                upto = batch[-1][0]
                self._set_mark(upto)

    def budget_crossings(self, budget: int, ratios: Sequence[float], now: float,
                         *, implicit: bool = False) -> list[BudgetEvent]:
        """The warnings this member has not had yet for the team's spend today against
        ``budget`` tokens (each threshold once per member, day and budget)."""
        if budget <= 0:
            return []
        day = day_of(now)

        def check(conn: Any) -> list[BudgetEvent]:
            used = team_calls.spent_on(conn, day)
            return [
                BudgetEvent("", used, budget, used / budget, ratio, "team")
                for ratio in sorted(ratios)
                if used >= ratio * budget
                and team_calls.claim_budget(conn, self.member, day, budget, ratio, used, now)
            ]

        return self.db.run(check, implicit=implicit)

    def waiting(self, ledger: Ledger) -> bool:
        """Whether calls are queued for the team (cheap: the mark against the last row)."""
        ledger.flush()
        return ledger.last_rowid() > self.shipped_upto()

    def queued(self, ledger: Ledger) -> int:
        """Local calls the team database has not acknowledged yet."""
        return len(ledger.calls_after(self.shipped_upto(), 1_000_000))

    def report(self, group: str, since_day: str | None) -> dict[str, Any]:
        """The team's usage grouped by member, task, day or file (``--json`` shape)."""
        if group not in TEAM_GROUPS:
            raise ValueError(f"--team reports group by {', '.join(TEAM_GROUPS)} (not {group!r})")
        rows = self.db.run(lambda conn: team_calls.totals(conn, group, since_day))
        measures = ("calls", "inputTokens", "outputTokens", "cachedTokens", "costUsd",
                    "unpricedCalls", "estimatedCalls")
        items = [{"key": key, **dict(zip(measures, values, strict=True))}
                 for key, *values in rows]
        total: dict[str, Any] = {m: sum(item[m] for item in items) for m in measures}
        if group == "file":  # a call reading two files is in two rows
            total.update(calls=None, unpricedCalls=None, estimatedCalls=None)
        return {"team": True, "by": group, "since": since_day, "rows": items, "total": total}


def render_team(report: dict[str, Any]) -> str:
    """The team report as a text table: a cost with unpriced calls in it is a lower bound
    (">="), and the calls whose tokens CodeKeep counted are named as estimated, as the
    member's own report does."""
    lines = [f"team usage by {report['by']}" + (f" since {report['since']}"
                                                 if report["since"] else "")]
    lines.append(f"{'':<32} {'calls':>7} {'input':>11} {'output':>10} {'cost $':>10}")
    for row in report["rows"] + [{"key": "total", **report["total"]}]:
        calls = "" if row["calls"] is None else row["calls"]
        cost = (">=" if row["unpricedCalls"] else "") + f"{row['costUsd']:.4f}"
        lines.append(f"{row['key'][:32]:<32} {calls:>7} {row['inputTokens']:>11} "
                     f"{row['outputTokens']:>10} {cost:>10}")
    unpriced, estimated = report["total"]["unpricedCalls"], report["total"]["estimatedCalls"]
    if unpriced:
        lines.append(f"{_calls(unpriced)} unpriced (a model the price table does not know): "
                     "their cost is missing")
    if estimated:
        lines.append(f"{_calls(estimated)} estimated (the provider reported no usage; "
                     "CodeKeep counted the tokens)")
    return "\n".join(lines)


def _calls(count: int) -> str:
    return f"{count} call" + ("" if count == 1 else "s")
