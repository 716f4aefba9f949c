"""Full-text search over live memories (FTS5, BM25) and the index's vocabulary.

The connection's temporary tables (``memories_vocab``, ``term_probe``) are created
here, once per connection: they let the write path learn how rare a word is without
scoring the posting lists of common words.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from codekeep.memory.text import fts_words, match_any

_TERM_CACHE_LIMIT = 50_000
# Below this many live memories every posting list is short: looking the words up would
# cost more than scoring their matches.
_FEW_MEMORIES = 2_000


class TextSearch:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        # Per-connection helpers: the index's vocabulary (document frequency per term) and
        # a scratch index with the same tokenizer, to learn which term a word becomes.
        for statement in (
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memories_vocab "
            "USING fts5vocab(main, memories_fts, row)",
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memories_vocab_col "
            "USING fts5vocab(main, memories_fts, col)",
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.term_probe "
            "USING fts5(word, tokenize='porter unicode61 remove_diacritics 2')",
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.term_probe_terms "
            "USING fts5vocab(temp, term_probe, instance)",
        ):
            conn.execute(statement)
        self._terms: dict[str, str] = {}

    def text(
        self, text: str, statuses: Sequence[str], kinds: Sequence[str] | None, limit: int
    ) -> list[tuple[str, float]]:
        """(id, bm25) best first; bm25 is SQLite's (lower is better).

        Fast path: rank the index, join only its best ``4 × limit`` matches to the table
        and filter status and kind there (joining every match before ranking would cost
        a row lookup per match). When that leaves fewer than ``limit`` rows and kinds
        were asked for, the kinds may simply be rare among the matches: the search is
        repeated with the kind filter inside the index (``kind_tag``), which is exact.
        """
        words = fts_words(text)
        if not words:
            return []
        informative = self._informative(words)
        if informative and len(informative) < len(words):
            found = self._search(informative, statuses, kinds, limit)
            if len(found) >= limit:
                return found
        return self._search(words, statuses, kinds, limit)

    def _informative(self, words: Sequence[str]) -> list[str]:
        """The words BM25 gives weight to: not those in half of the live memories or more.

        SQLite's bm25 gives such a word an IDF of 1e-6 (its log((N - n + 0.5) / (n +
        0.5)) is not positive), so it changes no ranking, yet ranking has to score every
        memory it matches: the commonest words of a project are most of a recall's time.
        Searching without them gives the same best matches whenever the other words find
        ``limit`` of them (memories matching only common words rank last anyway), which
        :meth:`text` checks. ``n`` here is the larger of the word's counts in ``content``
        and ``key``: never more than the memories bm25 counts as containing it. With
        few memories, every word is kept.
        """
        rows = self._conn.execute("SELECT count(*) FROM memories_fts_docsize").fetchone()[0]
        if rows < _FEW_MEMORIES:
            return list(words)
        terms = self._index_terms(words)
        wanted = sorted(set(terms.values()))
        if not wanted:
            return list(words)
        counts = dict(self._conn.execute(
            "SELECT term, max(doc) FROM temp.memories_vocab_col "
            f"WHERE term IN ({','.join('?' * len(wanted))}) AND col IN ('content', 'key') "
            "GROUP BY term",
            wanted,
        ).fetchall())
        return [w for w in words if 2 * counts.get(terms.get(w, ""), 0) < rows]

    def _search(
        self, words: Sequence[str], statuses: Sequence[str], kinds: Sequence[str] | None,
        limit: int,
    ) -> list[tuple[str, float]]:
        match = "{content key} : (" + match_any(words) + ")"
        found = self._ranked(match, statuses, kinds, limit)
        if kinds and len(found) < limit:
            tags = " OR ".join("k" + kind.replace("_", "") for kind in kinds)
            found = self._ranked(f"{match} AND kind_tag : ({tags})", statuses, None, limit)
        return found

    def _ranked(
        self, match: str, statuses: Sequence[str], kinds: Sequence[str] | None, limit: int
    ) -> list[tuple[str, float]]:
        params: list[Any] = [match, 4 * int(limit), *statuses]
        kind_sql = ""
        if kinds:
            kind_sql = f" AND m.kind IN ({','.join('?' * len(kinds))})"
            params.extend(kinds)
        sql = (
            "SELECT m.id, f.rank FROM (SELECT rowid, bm25(memories_fts, 1.0, 1.0, 0.0) AS rank "
            "FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rank LIMIT ?) f "
            "JOIN memories m ON m.rowid = f.rowid "
            f"WHERE m.status IN ({','.join('?' * len(statuses))}){kind_sql} "
            f"ORDER BY f.rank LIMIT {int(limit)}"
        )
        return [(r[0], float(r[1])) for r in self._conn.execute(sql, params)]

    def document_frequencies(self, words: Sequence[str]) -> dict[str, int]:
        """How many live memories contain each word (0 for words not in the index)."""
        terms = self._index_terms(words)
        wanted = sorted(set(terms.values()))
        if not wanted:
            return dict.fromkeys(words, 0)
        rows = self._conn.execute(
            "SELECT term, doc FROM temp.memories_vocab "
            f"WHERE term IN ({','.join('?' * len(wanted))})",
            wanted,
        )
        frequency = {term: int(doc) for term, doc in rows}
        return {word: frequency.get(terms.get(word, ""), 0) for word in words}

    def _index_terms(self, words: Sequence[str]) -> dict[str, str]:
        """The term the index's tokenizer makes of each word (porter: "caching" -> "cach"),
        remembered per connection; learnt through the scratch index."""
        unknown = [w for w in dict.fromkeys(words) if w not in self._terms]
        if unknown:
            if len(self._terms) > _TERM_CACHE_LIMIT:
                self._terms.clear()
            self._conn.executemany(
                "INSERT INTO temp.term_probe(rowid, word) VALUES (?, ?)",
                list(enumerate(unknown, start=1)),
            )
            for doc, term in self._conn.execute("SELECT doc, term FROM temp.term_probe_terms"):
                self._terms.setdefault(unknown[doc - 1], term)
            self._conn.execute("DELETE FROM temp.term_probe")
            for word in unknown:
                self._terms.setdefault(word, "")
        return {w: self._terms[w] for w in words if self._terms.get(w)}
