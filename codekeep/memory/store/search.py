"""Full-text search over live memories (FTS5, BM25) and the index's vocabulary.

The connection's temporary tables (``memories_vocab`` — the ranker's — and
``term_probe``) are created once per connection: they let the write path learn how
rare a word is without scoring the posting lists of common words. Rankings of
one-token words come from kept posting lists (:mod:`codekeep.memory.store.postings`,
FTS5's BM25 to the last bit); any other query, and any search inside a write
transaction, asks FTS5 itself.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence
from typing import Any

from codekeep.common.sqlite import parameter_batches
from codekeep.memory.store.postings import PostingsRanker
from codekeep.memory.text import fts_words, match_any

_TERM_CACHE_LIMIT = 50_000
# Below this many live memories every posting list is short: looking the words up would
# cost more than scoring their matches.
_FEW_MEMORIES = 2_000


class TextSearch:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        # Per-connection helpers: the index's vocabulary per column (the rows per term,
        # ``memories_vocab``, is the ranker's) and a scratch index with the same
        # tokenizer, to learn which term a word becomes.
        for statement in (
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memories_vocab_col "
            "USING fts5vocab(main, memories_fts, col)",
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.term_probe "
            "USING fts5(word, tokenize='porter unicode61 remove_diacritics 2')",
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.term_probe_terms "
            "USING fts5vocab(temp, term_probe, instance)",
        ):
            conn.execute(statement)
        # word -> the tokens the index makes of it, in order ("caching" -> ("cach",))
        self._tokens: dict[str, tuple[str, ...]] = {}
        self._ranker = PostingsRanker(conn, self._term_counts)
        self._generation = -1  # of the index, when the caches below were filled
        self._column_docs: dict[str, int] = {}  # term -> _column_counts' answer

    def text(
        self, text: str, statuses: Sequence[str], kinds: Sequence[str] | None, limit: int
    ) -> list[tuple[str, float]]:
        """(id, bm25) best first; bm25 is SQLite's (lower is better).

        Words that are one token each are ranked from the kept posting lists, best
        first, until ``limit`` rows of the given statuses and kinds are found. Otherwise
        (inside a write transaction, or at a common word's first use) FTS5 ranks: its
        best ``4 × limit`` matches are joined to the table and filtered there (joining
        every match before ranking would cost a row lookup per match); when that leaves
        fewer than ``limit`` rows and kinds were asked for, the search is repeated with
        the kind filter inside the index (``kind_tag``), which is exact.
        """
        words = fts_words(text)
        if not words:
            return []
        if not self._conn.in_transaction:
            self._fresh()
            if self._ranker.rows() == 0:
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
        rows = self._ranker.rows()
        if rows < _FEW_MEMORIES:
            return list(words)
        terms = self._index_terms(words)
        wanted = sorted(set(terms.values()))
        if not wanted:
            return list(words)
        counts = self._column_counts(wanted)
        return [w for w in words if 2 * counts.get(terms.get(w, ""), 0) < rows]

    def _fresh(self) -> None:
        """Catch the kept lists up with the index; the per-generation caches are cleared
        when it changed since the last search."""
        generation = self._ranker.catch_up()
        if generation != self._generation:
            self._generation = generation
            self._column_docs.clear()

    def _column_counts(self, terms: Sequence[str]) -> dict[str, int]:
        """term -> rows holding it in ``content`` or in ``key``, the larger (0: none);
        remembered until the index changes (:meth:`text` checks), unless asked inside a
        transaction."""
        cache = not self._conn.in_transaction
        wanted = [t for t in terms if not cache or t not in self._column_docs]
        found = dict.fromkeys(wanted, 0)
        if wanted:
            found.update(self._conn.execute(
                "SELECT term, max(doc) FROM temp.memories_vocab_col "
                f"WHERE term IN ({','.join('?' * len(wanted))}) AND col IN ('content', 'key') "
                "GROUP BY term",
                wanted,
            ).fetchall())
        if not cache:
            return found
        self._column_docs.update(found)
        return {t: self._column_docs[t] for t in terms}

    def _search(
        self, words: Sequence[str], statuses: Sequence[str], kinds: Sequence[str] | None,
        limit: int,
    ) -> list[tuple[str, float]]:
        terms = self._tokens_of(words)
        if all(len(t) == 1 for t in terms) and not self._conn.in_transaction:
            kept = self._ranker.ranked(
                [t[0] for t in terms], lambda rows: self._accepted(rows, statuses, kinds), limit
            )
            if kept is not None:
                return kept
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

    def _accepted(
        self, rows: Sequence[int], statuses: Sequence[str], kinds: Sequence[str] | None
    ) -> list[tuple[int, str]]:
        """(rowid, id) of those of ``rows`` with one of ``statuses`` (and ``kinds``)."""
        found: list[tuple[int, str]] = []
        for chunk in parameter_batches(rows):
            params: list[Any] = [*chunk, *statuses]
            sql = (
                f"SELECT rowid, id FROM memories WHERE rowid IN ({','.join('?' * len(chunk))}) "
                f"AND +status IN ({','.join('?' * len(statuses))})"
            )
            if kinds:  # the unary + keeps the planner on rowid lookups, off the status index
                sql += f" AND +kind IN ({','.join('?' * len(kinds))})"
                params.extend(kinds)
            found.extend((int(r[0]), str(r[1])) for r in self._conn.execute(sql, params))
        return found

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
        """The term the index's tokenizer makes of each word (porter: "caching" -> "cach";
        of a word it splits, the first in sort order), for the words it keeps any of."""
        return {w: min(t) for w, t in zip(words, self._tokens_of(words), strict=True) if t}

    def _tokens_of(self, words: Sequence[str]) -> list[tuple[str, ...]]:
        """The tokens the index makes of each word, in order; remembered per connection."""
        unknown = [w for w in dict.fromkeys(words) if w not in self._tokens]
        if unknown:
            if len(self._tokens) > _TERM_CACHE_LIMIT:
                self._tokens.clear()
            for word, tokens in zip(unknown, self._tokenized(unknown), strict=True):
                self._tokens[word] = tuple(tokens)
        return [self._tokens[w] for w in words]

    def _term_counts(self, texts: Sequence[str]) -> list[Counter[str]]:
        """How often each term occurs in each of ``texts``, by the index's tokenizer."""
        return [Counter(tokens) for tokens in self._tokenized(texts)]

    def _tokenized(self, texts: Sequence[str]) -> list[list[str]]:
        """The tokens of each text in order, learnt through the scratch index."""
        if not texts:
            return []
        self._conn.executemany(
            "INSERT INTO temp.term_probe(rowid, word) VALUES (?, ?)",
            list(enumerate(texts, start=1)),
        )
        tokens: list[list[str]] = [[] for _ in texts]
        for doc, term in self._conn.execute(
            "SELECT doc, term FROM temp.term_probe_terms ORDER BY doc, offset"
        ):
            tokens[doc - 1].append(term)
        self._conn.execute("DELETE FROM temp.term_probe")
        return tokens
