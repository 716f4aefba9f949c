"""The team ledger: each member's ledger records shipped to the team database, and the
report over the whole team.

The member's own ``ledger.db`` is the outbox: its calls are shipped in batches, oldest
first, and ``.codekeep/team_shipped.json`` remembers the last local row the team
database acknowledged. A batch is one PostgreSQL transaction; the mark moves only after
it committed, so while the database is unreachable records simply wait (nothing
acknowledged is lost), and a batch re-sent after a crash between the commit and the
mark adds nothing (the team's ``(member, id)`` key). Only counts, costs and file token
sums travel — never prompt or completion text.
"""

from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path
from typing import Any

from codekeep.common.workspace import state_dir
from codekeep.ledger.ledger import Ledger
from codekeep.team.config import TeamConfig
from codekeep.team.store import TeamDatabase
from codekeep.team.store import calls as team_calls

MARK_FILE = "team_shipped.json"
BATCH = 500
TEAM_GROUPS = ("member", "task", "day", "file")


class TeamLedger:
    def __init__(self, config: TeamConfig, root: Path) -> None:
        self.db = TeamDatabase(config.dsn)
        self.member = config.member
        self._mark = state_dir(root) / MARK_FILE

    def close(self) -> None:
        self.db.close()

    def shipped_upto(self) -> int:
        try:
            return int(json.loads(self._mark.read_text(encoding="utf-8"))["rowid"])
        except (OSError, ValueError, KeyError, TypeError):
            return 0

    def _set_mark(self, rowid: int) -> None:
        temporary = self._mark.with_suffix(".tmp")
        temporary.write_text(json.dumps({"rowid": rowid}), encoding="utf-8")
        os.replace(temporary, self._mark)

    def ship(self, ledger: Ledger) -> int:
        """Send every call not yet acknowledged; how many the team database added.

        Raises :class:`TeamError` (one line) when the database cannot take a batch;
        the batches already acknowledged stay shipped, the rest wait for the next call.
        """
        upto = self.shipped_upto()
        if upto > ledger.last_rowid():  # the local ledger was recreated: start again
            upto = 0
        added = 0
        while True:
            batch = ledger.calls_after(upto, BATCH)
            if not batch:
                return added
            added += self.db.run(partial(team_calls.insert, member=self.member,
                                         records=[record for _, record in batch]))
            upto = batch[-1][0]
            self._set_mark(upto)

    def queued(self, ledger: Ledger) -> int:
        """Local calls the team database has not acknowledged yet."""
        return len(ledger.calls_after(self.shipped_upto(), 1_000_000))

    def report(self, group: str, since_day: str | None) -> dict[str, Any]:
        """The team's usage grouped by member, task, day or file (``--json`` shape)."""
        if group not in TEAM_GROUPS:
            raise ValueError(f"--team reports group by {', '.join(TEAM_GROUPS)} (not {group!r})")
        rows = self.db.run(lambda conn: team_calls.totals(conn, group, since_day))
        measures = ("calls", "inputTokens", "outputTokens", "cachedTokens", "costUsd")
        items = [{"key": key, **dict(zip(measures, values, strict=True))}
                 for key, *values in rows]
        total: dict[str, Any] = {m: sum(item[m] for item in items) for m in measures}
        if group == "file":
            total["calls"] = None  # a call reading two files is in two rows
        return {"team": True, "by": group, "since": since_day, "rows": items, "total": total}


def render_team(report: dict[str, Any]) -> str:
    """The team report as a text table."""
    lines = [f"team usage by {report['by']}" + (f" since {report['since']}"
                                                 if report["since"] else "")]
    lines.append(f"{'':<32} {'calls':>7} {'input':>11} {'output':>10} {'cost $':>9}")
    for row in report["rows"] + [{"key": "total", **report["total"]}]:
        calls = "" if row["calls"] is None else row["calls"]
        lines.append(f"{row['key'][:32]:<32} {calls:>7} {row['inputTokens']:>11} "
                     f"{row['outputTokens']:>10} {row['costUsd']:>9.4f}")
    return "\n".join(lines)
