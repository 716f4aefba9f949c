"""The facts cache shared through the team database: a team indexes once.

With ``CODEKEEP_TEAM_DSN`` set, ``codekeep index`` first asks the team database for the
entries of the content it is about to parse (code files' facts, docs pages' chunks,
keyed as in the local facts cache: the content hash and the kind, under this
extractor's fingerprint), adds what the team holds to the local cache, and indexes;
then it publishes the entries the team lacked, which it has just computed. Both ways go
in batches of :data:`BATCH` keys, one statement each.

Only content-addressed entries travel, and nothing read is trusted as it stands: an
entry is added to the local cache only when its bytes unpack and match its checksum,
bound to its content hash, kind and this fingerprint
(:func:`~codekeep.analysis.factcache.entry_checksum`); the cache checks it again on
every use, and looks it up only by the hash of the bytes it reads from disk. A row that
fails is ignored and reported with who published it. (Like an ``--export`` file, the
checksum catches damaged, truncated and misfiled rows, not a member who recomputes it:
who may write to the team database is who the team trusts with its code.)

The team database being down never stops an index: the index goes on from the local
cache and the report says why nothing was shared.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codekeep.analysis.factcache import FactCache, entry_checksum, fingerprint
from codekeep.settings.team import TeamSettings
from codekeep.team.config import team_config
from codekeep.team.errors import TeamError
from codekeep.team.store import TeamDatabase
from codekeep.team.store import facts as rows

BATCH = 1000  # keys per statement
Key = tuple[str, str]


@dataclass(slots=True)
class ShareReport:
    """What the team database gave and took during one index."""

    fetched: int = 0  # entries added to the local cache
    published: int = 0  # entries the team lacked, sent after the index
    refused: int = 0  # rows whose bytes did not match their checksum: ignored
    refused_from: list[str] = field(default_factory=list)  # who published those
    error: str | None = None  # the team database could not be used: why

    def to_json(self) -> dict[str, Any]:
        payload: dict[str, Any] = {"fetched": self.fetched, "published": self.published,
                                   "refused": self.refused}
        if self.refused_from:
            payload["refusedFrom"] = self.refused_from
        if self.error is not None:
            payload["error"] = self.error
        return payload

    def summary(self) -> str:
        """The line ``codekeep index`` prints."""
        text = (f"team facts cache: fetched {self.fetched} entries, "
                f"published {self.published}")
        if self.refused:
            text += (f"; refused {self.refused} whose checksum did not match "
                     f"(published by {', '.join(self.refused_from)})")
        if self.error is not None:
            text += f"; not shared: {self.error} (indexed from the local cache)"
        return text


class TeamFacts:
    """One index's exchange with the team database: :meth:`fetch` before, :meth:`publish`
    after."""

    def __init__(self, database: TeamDatabase | None, member: str, cache: FactCache,
                 error: str | None = None) -> None:
        self.database = database  # None: unusable (``error`` says why)
        self.member = member
        self.cache = cache
        self.report = ShareReport(error=error)
        self._lacking: list[Key] = []  # keys the team did not hold: published after

    def close(self) -> None:
        if self.database is not None:
            self.database.close()

    def fetch(self, keys: Sequence[Key]) -> None:
        """Add the team's entries for ``keys`` (what this index is about to parse) to the
        local cache; remember the keys the team lacks."""
        wanted = list(dict.fromkeys(keys))
        if not wanted or self.report.error is not None:
            return
        local = set(self.cache.entries(wanted))
        try:
            for start in range(0, len(wanted), BATCH):
                self._fetch_batch(wanted[start:start + BATCH], local)
        except TeamError as error:
            self.report.error = str(error)

    def _fetch_batch(self, keys: list[Key], local: set[Key]) -> None:
        assert self.database is not None  # (fetch returned on an error)
        held = self.database.run(lambda conn: rows.held(conn, fingerprint(), keys))
        self._lacking.extend(key for key in keys if key not in held)
        missing = [key for key in keys if key in held and key not in local]
        if not missing:
            return
        found = self.database.run(lambda conn: rows.fetch(conn, fingerprint(), missing))
        good: list[tuple[str, str, bytes]] = []
        for digest, kind, packed, checksum, member in found:
            data = _unpacked(packed)
            if data is None or checksum != entry_checksum(digest, kind, data):
                self.report.refused += 1
                if member not in self.report.refused_from:
                    self.report.refused_from.append(member)
                continue
            good.append((digest, kind, data))
        if good and self.cache.add(good):
            self.report.fetched += len(good)

    def publish(self) -> None:
        """Send the team the entries it lacked that the local cache now holds (the index
        computed them), unless the database already failed this index."""
        if self.report.error is not None or not self._lacking or self.database is None:
            return
        try:
            for start in range(0, len(self._lacking), BATCH):
                keys = self._lacking[start:start + BATCH]
                entries = [(digest, kind, zlib.compress(data, 1),
                            entry_checksum(digest, kind, data))
                           for (digest, kind), data in self.cache.entries(keys).items()]
                self.report.published += self.database.run(functools.partial(
                    rows.publish, fingerprint=fingerprint(), member=self.member,
                    entries=entries))
        except TeamError as error:
            self.report.error = str(error)
        self._lacking = []


def _unpacked(packed: bytes) -> bytes | None:
    try:
        return zlib.decompress(packed)
    except zlib.error:
        return None


def open_team_facts(settings: TeamSettings | None, root: Path,
                    cache: FactCache | None) -> TeamFacts | None:
    """The exchange for an index of ``root``; None without a team DSN or a local cache
    (``CODEKEEP_PARSE_CACHE=off``: nowhere to put what the team gives). A DSN that is
    not a PostgreSQL connection string makes one that shares nothing and says why."""
    config = team_config(settings, root)
    if config is None or cache is None:
        return None
    try:
        database = config.database(root)
    except TeamError as error:  # not a PostgreSQL DSN: said, and the index goes on
        return TeamFacts(None, config.member, cache, str(error))
    return TeamFacts(database, config.member, cache)
