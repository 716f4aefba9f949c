"""Days and report windows. Days are UTC calendar days everywhere in the ledger.

UTC keeps roll-ups from two machines (or a laptop that travelled) comparable; a report
says so in its ``since`` field.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

SECONDS_PER_DAY = 86_400


@functools.lru_cache(maxsize=64)
def _day_name(day_number: int) -> str:
    return (date(1970, 1, 1) + timedelta(days=day_number)).isoformat()


def day_of(ts: float) -> str:
    """``YYYY-MM-DD`` (UTC) of a POSIX timestamp — cached, it runs on every record."""
    return _day_name(int(ts // SECONDS_PER_DAY))


def day_start(ts: float) -> float:
    return float(int(ts // SECONDS_PER_DAY) * SECONDS_PER_DAY)


@dataclass(frozen=True, slots=True)
class Window:
    """Which rows a report reads: whole days from roll-ups, a partial first day raw."""

    first_full_day: str | None   # roll-up rows from this day on (None: all of them)
    raw_from: float | None       # raw rows in [raw_from, raw_to) for a partial first day
    raw_to: float | None

    @classmethod
    def since(cls, since: datetime | None, raw_kept_from: float) -> Window:
        """The window starting at ``since``; raw rows exist only from ``raw_kept_from``.

        When the partial first day has already been compacted, the window widens to the
        whole day rather than silently dropping it.
        """
        if since is None:
            return cls(None, None, None)
        start = _as_utc(since).timestamp()
        midnight = day_start(start)
        if start == midnight or start < raw_kept_from:
            return cls(day_of(midnight), None, None)
        next_midnight = midnight + SECONDS_PER_DAY
        return cls(day_of(next_midnight), start, next_midnight)


_RELATIVE = re.compile(r"^\s*(\d+)\s*([hdw])\s*$", re.I)
_UNIT_SECONDS = {"h": 3600, "d": SECONDS_PER_DAY, "w": 7 * SECONDS_PER_DAY}


def parse_since(text: str, now: float) -> datetime:
    """``2026-11-01``, an ISO date-time, or a relative ``24h`` / ``7d`` / ``2w``."""
    relative = _RELATIVE.match(text)
    if relative:
        seconds = int(relative.group(1)) * _UNIT_SECONDS[relative.group(2).lower()]
        return datetime.fromtimestamp(now - seconds, UTC)
    try:
        parsed = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"cannot read {text!r} as a date: use YYYY-MM-DD, an ISO date-time, or 24h/7d/2w"
        ) from None
    return _as_utc(parsed)


def _as_utc(moment: datetime) -> datetime:
    """Naive date-times are taken as UTC, like the stored days."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
