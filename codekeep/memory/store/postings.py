"""SQLite's FTS5 BM25 ranking of memories, computed from kept posting lists.

Why: FTS5 scores every row a query word matches before it can keep the best ten. A
project's common words ("cache", "timeout") are in thousands of memories, so one recall
of them scored thousands of rows (~5 ms at 10k memories) although the posting lists
only change when a memory does. Here each word's postings (row, instances in content
and key, the row's length) are read once and kept; a recall combines the kept lists
with the index's current row count and average length in a few array operations.

Exact, not approximate: this is FTS5's own ``bm25(memories_fts, 1.0, 1.0, 0.0)`` for
a MATCH of ``{content key} : ("w1" OR "w2" …)`` — each phrase's IDF
``log((N - n + 0.5) / (n + 0.5))`` (1e-6 when not positive), its term
``idf · f·(k1+1) / (f + k1·(1 - b + b·D/avgdl))`` with k1 = 1.2, b = 0.75, summed in
the query's phrase order with the same double operations, so the values are equal to
the last bit (tests compare them with SQLite's), ties broken by rowid as FTS5's
``ORDER BY rank LIMIT`` does. Only one-token words are ranked here; the caller sends
any other query to FTS5 itself.

Kept true: temporary triggers (this connection's own) note every row a write may have
changed, with its text before the change; the next ranking re-reads those rows and
patches the lists of the words they had or have. A commit by another connection (seen
through ``PRAGMA data_version``) drops every list. Reads inside an open transaction go
to FTS5 (its pending changes are not in the tables read here).
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from codekeep.common.numeric import numpy
from codekeep.common.sqlite import parameter_batches

if TYPE_CHECKING:
    import numpy as np

_K1 = 1.2
_B = 0.75
# kept postings, summed over words (24 bytes each): bounds the memory the lists take
MAX_POSTINGS = 1_000_000
# a word in more rows than this has its list read on its second use, not its first
READ_AT_ONCE = 300
_SEEN_LIMIT = 50_000
# FTS5 keeps the row count and per-column token totals in this record of its data table
_AVERAGES_ROWID = 1

Tokenizer = Callable[[Sequence[str]], list[Counter[str]]]


@dataclass(frozen=True, slots=True)
class _Postings:
    rows: np.ndarray  # rowids, ascending
    freq: np.ndarray  # instances in content and key (their bm25 weights are 1.0)
    length: np.ndarray  # the row's tokens in every column (FTS5's D)


def varints(blob: bytes) -> list[int]:
    """The SQLite varints of an FTS5 record (docsize, averages)."""
    if all(byte < 0x80 for byte in blob):
        return list(blob)
    values: list[int] = []
    position = 0
    while position < len(blob):
        value = 0
        for index in range(9):
            byte = blob[position]
            position += 1
            if index == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if byte < 0x80:
                break
        values.append(value)
    return values


class PostingsRanker:
    """BM25 top-k over ``memories_fts`` from kept posting lists (see the module doc)."""

    def __init__(self, conn: sqlite3.Connection, tokenize: Tokenizer) -> None:
        self._conn = conn
        self._tokenize = tokenize  # texts -> term counts, by the index's own tokenizer
        self._lists: OrderedDict[str, _Postings] = OrderedDict()  # least recently used first
        self._kept = 0
        self._data_version: int | None = None
        self._seen: set[str] = set()  # common terms met once, their lists not read yet
        self._first = True  # no ranking asked of this process yet
        self._generation = 0
        self._totals_now: tuple[int, int] | None = None  # of this generation
        for statement in (
            "CREATE TEMP TABLE IF NOT EXISTS memories_changed (row INTEGER, old_text TEXT)",
            "CREATE TEMP TRIGGER IF NOT EXISTS memories_changed_insert AFTER INSERT ON "
            "main.memories BEGIN INSERT INTO memories_changed VALUES (new.rowid, NULL); END",
            "CREATE TEMP TRIGGER IF NOT EXISTS memories_changed_delete AFTER DELETE ON "
            "main.memories BEGIN INSERT INTO memories_changed VALUES "
            "(old.rowid, old.content || ' ' || coalesce(old.key, '')); END",
            "CREATE TEMP TRIGGER IF NOT EXISTS memories_changed_update AFTER UPDATE OF "
            "content, key, kind, status ON main.memories BEGIN INSERT INTO memories_changed "
            "VALUES (old.rowid, old.content || ' ' || coalesce(old.key, '')); END",
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memories_vocab_instance "
            "USING fts5vocab(main, memories_fts, instance)",
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memories_vocab "
            "USING fts5vocab(main, memories_fts, row)",
        ):
            conn.execute(statement)

    def rows(self) -> int:
        """Rows in the index (FTS5's N) as of the last :meth:`catch_up` (or now, inside
        a transaction)."""
        return self._totals()[0]

    def ranked(
        self, terms: Sequence[str], accept: Callable[[list[int]], list[tuple[int, str]]],
        limit: int,
    ) -> list[tuple[str, float]] | None:
        """(id, bm25) of the best ``limit`` rows that match any of ``terms`` (one per query
        phrase, in phrase order) and that ``accept`` keeps: given rowids best first, it
        returns (rowid, id) of those that qualify (status, kind). None when a common
        word is met for the first time: its list is read on its second use (a one-off
        query, as the CLI asks, costs no more than FTS5's own ranking). Call
        :meth:`catch_up` first.

        The first ranking a process asks for is always None too: the CLI asks one per
        process, and loading numpy (~90 ms) would cost it far more than FTS5's ranking."""
        if self._first:
            self._first = False
            return None
        if not self._ready(terms):
            return None
        np = numpy()

        rows, tokens = self._totals()
        if rows <= 0 or limit <= 0:
            return []
        average = tokens / rows
        lists = [self._postings(term) for term in terms]
        size = max((int(p.rows[-1]) + 1 for p in lists if len(p.rows)), default=0)
        total = np.zeros(size)
        for postings in lists:
            hits = len(postings.rows)
            if not hits:
                continue
            idf = math.log((rows - hits + 0.5) / (hits + 0.5))
            if idf <= 0.0:
                idf = 1e-6
            freq = postings.freq
            # FTS5's expression, operation by operation (see fts5_aux.c, fts5Bm25Function)
            total[postings.rows] += idf * (
                (freq * (_K1 + 1.0)) / (freq + _K1 * (1 - _B + _B * postings.length / average))
            )
        matched = np.flatnonzero(total)
        scores = total[matched]
        found: list[tuple[str, float]] = []
        step = limit  # first ask about just enough rows, then about more at a time
        for ordered in self._best_first(matched, scores, 4 * limit):
            start = 0
            while start < len(ordered):
                block = ordered[start : start + step]
                start, step = start + step, 4 * limit
                ids = dict(accept(block))
                for row in block:
                    memory_id = ids.get(row)
                    if memory_id is not None:
                        found.append((memory_id, -float(total[row])))
                        if len(found) == limit:
                            return found
        return found

    @staticmethod
    def _best_first(matched: np.ndarray, scores: np.ndarray, want: int) -> Iterator[list[int]]:
        """Rowids by score (best first), ties by rowid: first the best ``want`` or so
        (usually all a caller needs; every row tied with the last one comes too), then,
        if asked for, the rest."""
        np = numpy()

        if len(matched) > want:
            threshold = np.partition(scores, len(scores) - want)[len(scores) - want]
            head = scores >= threshold
        else:
            head = np.ones(len(matched), dtype=bool)
        first = np.lexsort((matched[head], -scores[head]))
        yield matched[head][first].tolist()
        if not head.all():
            tail = ~head
            rest = np.lexsort((matched[tail], -scores[tail]))
            yield matched[tail][rest].tolist()

    # ---- the kept lists --------------------------------------------------------------

    def _totals(self) -> tuple[int, int]:
        """(rows, tokens in every column): FTS5's N and N·avgdl, from its averages record
        (read once per generation outside a transaction)."""
        if self._totals_now is not None and not self._conn.in_transaction:
            return self._totals_now
        row = self._conn.execute(
            "SELECT block FROM memories_fts_data WHERE id = ?", (_AVERAGES_ROWID,)
        ).fetchone()
        values = varints(bytes(row[0])) if row is not None and row[0] else [0, 0]
        totals = values[0], sum(values[1:])
        if not self._conn.in_transaction:
            self._totals_now = totals
        return totals

    def _ready(self, terms: Sequence[str]) -> bool:
        """Every term's list is kept or now read, unless a common one is new: short lists
        are read at once, a long one (over ``READ_AT_ONCE`` rows) on its second use."""
        missing = [t for t in dict.fromkeys(terms) if t not in self._lists]
        if not missing:
            return True
        long = {
            str(term)
            for term, rows in self._conn.execute(
                "SELECT term, doc FROM temp.memories_vocab "
                f"WHERE term IN ({','.join('?' * len(missing))})",
                missing,
            )
            if int(rows) > READ_AT_ONCE
        }
        new = long - self._seen
        if len(self._seen) > _SEEN_LIMIT:
            self._seen.clear()
        self._seen |= new
        return not new

    def _postings(self, term: str) -> _Postings:
        kept = self._lists.get(term)
        if kept is not None:
            self._lists.move_to_end(term)
            return kept
        np = numpy()

        found = self._conn.execute(
            "SELECT v.doc, count(*), d.sz FROM temp.memories_vocab_instance v "
            "JOIN memories_fts_docsize d ON d.id = v.doc "
            "WHERE v.term = ? AND v.col IN ('content', 'key') GROUP BY v.doc ORDER BY v.doc",
            (term,),
        ).fetchall()
        postings = _Postings(
            np.fromiter((r[0] for r in found), np.int64, len(found)),
            np.fromiter((r[1] for r in found), np.float64, len(found)),
            np.fromiter((sum(varints(r[2])) for r in found), np.float64, len(found)),
        )
        self._keep(term, postings)
        return postings

    def _keep(self, term: str, postings: _Postings) -> None:
        old = self._lists.pop(term, None)
        if old is not None:
            self._kept -= len(old.rows)
        self._lists[term] = postings
        self._kept += len(postings.rows)
        while self._kept > MAX_POSTINGS and len(self._lists) > 1:
            _, evicted = self._lists.popitem(last=False)
            self._kept -= len(evicted.rows)

    def catch_up(self) -> int:
        """Bring the kept lists up to date with the rows written since the last call; the
        index's generation, which changes whenever any row of it may have (callers key
        what they derive from the index on it). Only outside a write transaction."""
        version = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
        if version != self._data_version:
            self._data_version = version
            self._lists.clear()
            self._kept = 0
            self._conn.execute("DELETE FROM temp.memories_changed")
            return self._changed()
        changed = self._conn.execute("SELECT row, old_text FROM temp.memories_changed").fetchall()
        if not changed:
            return self._generation
        self._conn.execute("DELETE FROM temp.memories_changed")
        if self._lists:
            self._patch(sorted({int(r[0]) for r in changed}), [r[1] for r in changed if r[1]])
        return self._changed()

    def _changed(self) -> int:
        self._generation += 1
        self._totals_now = None
        return self._generation

    def _patch(self, rows: list[int], old_texts: list[str]) -> None:
        """Re-read ``rows`` from the index and patch the lists of every kept word they
        contained (``old_texts``) or contain now."""
        np = numpy()

        current: dict[int, tuple[str, int]] = {}  # row -> (text now, tokens in all columns)
        for chunk in parameter_batches(rows):
            marks = ",".join("?" * len(chunk))
            for row, content, key, size in self._conn.execute(
                "SELECT f.rowid, f.content, f.key, d.sz FROM memories_fts f "
                f"JOIN memories_fts_docsize d ON d.id = f.rowid WHERE f.rowid IN ({marks})",
                chunk,
            ):
                current[int(row)] = (f"{content} {key or ''}", sum(varints(size)))
        now_rows = list(current)
        counts = self._tokenize([current[row][0] for row in now_rows] + old_texts)
        touched = {term for c in counts for term in c if term in self._lists}
        gone = np.asarray(rows, dtype=np.int64)
        for term in touched:
            postings = self._lists[term]
            keep = ~np.isin(postings.rows, gone)
            added = [
                (row, counts[index][term], current[row][1])
                for index, row in enumerate(now_rows)
                if counts[index][term]
            ]
            merged_rows = np.concatenate(
                [postings.rows[keep], np.fromiter((a[0] for a in added), np.int64, len(added))]
            )
            order = np.argsort(merged_rows, kind="stable")
            self._keep(
                term,
                _Postings(
                    merged_rows[order],
                    np.concatenate(
                        [postings.freq[keep], np.asarray([a[1] for a in added], np.float64)]
                    )[order],
                    np.concatenate(
                        [postings.length[keep], np.asarray([a[2] for a in added], np.float64)]
                    )[order],
                ),
            )
