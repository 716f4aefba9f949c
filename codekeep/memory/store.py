"""One memory database (one scope family): rows, links, FTS search, history, feedback.

``MemoryStore`` knows SQL and nothing about policy. The service owns two of them
(project and user) and decides what to write; every multi-statement change runs in
``with store.transaction():`` (``BEGIN IMMEDIATE``) so concurrent writers serialise on
the busy timeout instead of failing, and a killed writer leaves either all or none of
a change.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from codekeep.common.sqlite import open_db
from codekeep.memory.model import Memory, dumps
from codekeep.memory.schema import MIGRATIONS
from codekeep.memory.text import fts_query

_COLUMNS = (
    "id, kind, status, scope, key, value, content, fingerprint, importance, confidence, source, "
    "evidence, support_count, access_count, created_at, last_seen_at, last_accessed_at, "
    "expires_at, superseded_by, task_id"
)


class MemoryStore:
    def __init__(self, path: Path, scopes: Sequence[str]) -> None:
        self.path = path
        self.scopes = tuple(scopes)
        self.conn = open_db(path, MIGRATIONS, check_same_thread=False)
        # Per-connection helpers: the index's vocabulary (document frequency per term) and
        # a scratch index with the same tokenizer, to learn which term a word becomes.
        for statement in (
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memories_vocab "
            "USING fts5vocab(main, memories_fts, row)",
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.term_probe "
            "USING fts5(word, tokenize='porter unicode61 remove_diacritics 2')",
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.term_probe_terms "
            "USING fts5vocab(temp, term_probe, instance)",
        ):
            self.conn.execute(statement)
        self._terms: dict[str, str] = {}
        self._depth = 0

    def owns(self, memory_id: str) -> bool:
        """Ids begin with their scope's first letter (see ``write.new_id``)."""
        return any(memory_id.startswith(scope[0]) for scope in self.scopes)

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; nested uses join the outer one."""
        if self._depth:
            self._depth += 1
            try:
                yield self.conn
            finally:
                self._depth -= 1
            return
        self.conn.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield self.conn
        except BaseException:
            self._depth = 0
            self.conn.execute("ROLLBACK")
            raise
        self._depth = 0
        self.conn.execute("COMMIT")

    # ---- rows -------------------------------------------------------------------------

    def insert(self, row: dict[str, Any], files: Sequence[str], symbols: Sequence[str]) -> None:
        row = dict(row)
        row["evidence"] = dumps(row["evidence"]) if row.get("evidence") is not None else None
        names = ", ".join(row)
        marks = ", ".join(f":{name}" for name in row)
        with self.transaction() as conn:
            conn.execute(f"INSERT INTO memories ({names}) VALUES ({marks})", row)
            self.add_links(row["id"], files, symbols)

    def add_links(self, memory_id: str, files: Iterable[str], symbols: Iterable[str]) -> None:
        self.conn.executemany(
            "INSERT OR IGNORE INTO memory_files(memory_id, path) VALUES (?, ?)",
            [(memory_id, f) for f in files],
        )
        self.conn.executemany(
            "INSERT OR IGNORE INTO memory_symbols(memory_id, symbol_id) VALUES (?, ?)",
            [(memory_id, s) for s in symbols],
        )

    def update(self, memory_id: str, **fields: Any) -> None:
        if "evidence" in fields and fields["evidence"] is not None:
            fields["evidence"] = dumps(fields["evidence"])
        assignments = ", ".join(f"{name} = :{name}" for name in fields)
        self.conn.execute(
            f"UPDATE memories SET {assignments} WHERE id = :_id", {**fields, "_id": memory_id}
        )

    def log(
        self, memory_id: str, at: float, action: str, detail: dict[str, Any] | None = None
    ) -> None:
        self.conn.execute(
            "INSERT INTO history(memory_id, at, action, detail) VALUES (?, ?, ?, ?)",
            (memory_id, at, action, dumps(detail) if detail else None),
        )

    def get(self, memory_id: str) -> Memory | None:
        found = self.load_many([memory_id])
        return found[0] if found else None

    def load_many(self, ids: Sequence[str]) -> list[Memory]:
        """Rows for ``ids`` (in that order) with links and live feedback counts."""
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = {
            r["id"]: r
            for r in self.conn.execute(
                f"SELECT {_COLUMNS} FROM memories WHERE id IN ({marks})", ids
            )
        }
        files = self._links("memory_files", "path", ids)
        symbols = self._links("memory_symbols", "symbol_id", ids)
        negative = dict(
            self.conn.execute(
                f"SELECT memory_id, count(*) FROM feedback WHERE retracted_at IS NULL "
                f"AND memory_id IN ({marks}) GROUP BY memory_id",
                ids,
            ).fetchall()
        )
        result = []
        for memory_id in ids:
            r = rows.get(memory_id)
            if r is None:
                continue
            f_links = files.get(memory_id, [])
            s_links = symbols.get(memory_id, [])
            result.append(
                Memory(
                    id=r["id"],
                    kind=r["kind"],
                    status=r["status"],
                    scope=r["scope"],
                    key=r["key"],
                    value=r["value"],
                    content=r["content"],
                    importance=r["importance"],
                    confidence=r["confidence"],
                    source=r["source"],
                    evidence=json.loads(r["evidence"]) if r["evidence"] else None,
                    files=[p for p, _ in f_links],
                    symbols=[s for s, _ in s_links],
                    support_count=r["support_count"],
                    access_count=r["access_count"],
                    created_at=r["created_at"],
                    last_seen_at=r["last_seen_at"],
                    last_accessed_at=r["last_accessed_at"],
                    expires_at=r["expires_at"],
                    superseded_by=r["superseded_by"],
                    task_id=r["task_id"],
                    stale_symbols=[s for s, stale in s_links if stale],
                    stale_files=[p for p, stale in f_links if stale],
                    negative_feedback=int(negative.get(memory_id, 0)),
                )
            )
        return result

    def document_frequencies(self, words: Sequence[str]) -> dict[str, int]:
        """How many live memories contain each word (0 for words not in the index)."""
        terms = self._index_terms(words)
        wanted = sorted(set(terms.values()))
        if not wanted:
            return dict.fromkeys(words, 0)
        rows = self.conn.execute(
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
            if len(self._terms) > 50_000:
                self._terms.clear()
            self.conn.executemany(
                "INSERT INTO temp.term_probe(rowid, word) VALUES (?, ?)",
                list(enumerate(unknown, start=1)),
            )
            for doc, term in self.conn.execute("SELECT doc, term FROM temp.term_probe_terms"):
                self._terms.setdefault(unknown[doc - 1], term)
            self.conn.execute("DELETE FROM temp.term_probe")
            for word in unknown:
                self._terms.setdefault(word, "")
        return {w: self._terms[w] for w in words if self._terms.get(w)}

    def score_fields(self, ids: Sequence[str]) -> list[sqlite3.Row]:
        """Just what ranking needs (no links): id, kind, importance, times, live feedback."""
        if not ids:
            return []
        return self.conn.execute(
            "SELECT id, kind, importance, last_seen_at, last_accessed_at, expires_at, "
            "(SELECT count(*) FROM feedback f WHERE f.memory_id = m.id AND f.retracted_at IS NULL)"
            f" AS negative FROM memories m WHERE id IN ({','.join('?' * len(ids))})",
            list(ids),
        ).fetchall()

    def _links(
        self, table: str, column: str, ids: Sequence[str]
    ) -> dict[str, list[tuple[str, int]]]:
        """memory id -> [(linked name, stale flag)] for one link table."""
        links: dict[str, list[tuple[str, int]]] = {}
        for r in self.conn.execute(
            f"SELECT memory_id, {column}, stale FROM {table} "
            f"WHERE memory_id IN ({','.join('?' * len(ids))}) ORDER BY {column}",
            ids,
        ):
            links.setdefault(r[0], []).append((r[1], r[2]))
        return links

    def ids_where(
        self,
        where: str,
        params: Sequence[Any] = (),
        order: str = "last_seen_at DESC",
        limit: int | None = None,
    ) -> list[str]:
        sql = f"SELECT id FROM memories WHERE {where} ORDER BY {order}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [r[0] for r in self.conn.execute(sql, params)]

    # ---- search -----------------------------------------------------------------------

    def search_text(
        self, text: str, statuses: Sequence[str], kinds: Sequence[str] | None, limit: int
    ) -> list[tuple[str, float]]:
        """(id, bm25) best first; bm25 is SQLite's (lower is better).

        Fast path: rank the index, join only its best ``4 × limit`` matches to the table
        and filter status and kind there (joining every match before ranking would cost
        a row lookup per match). When that leaves fewer than ``limit`` rows and kinds
        were asked for, the kinds may simply be rare among the matches: the search is
        repeated with the kind filter inside the index (``kind_tag``), which is exact.
        """
        terms = fts_query(text)
        if not terms:
            return []
        match = "{content key} : (" + terms + ")"
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
        return [(r[0], float(r[1])) for r in self.conn.execute(sql, params)]

    def linked(
        self, files: Sequence[str], symbols: Sequence[str], statuses: Sequence[str], limit: int
    ) -> list[tuple[str, int]]:
        """(id, number of matching links) for memories tied to these files or symbols."""
        parts: list[str] = []
        params: list[Any] = []
        for path in files:
            # the file itself, anything under it (a directory), the same file named by its
            # tail ("billing.py" for "app/billing.py"), and symbols defined in it
            path = path.rstrip("/")
            inside, tail = _like_prefix(path + "/"), "%/" + _like_prefix(path)[:-1]
            parts.append(
                "SELECT memory_id FROM memory_files WHERE path = ? OR path LIKE ? ESCAPE '\\' "
                "OR path LIKE ? ESCAPE '\\' UNION ALL SELECT memory_id FROM memory_symbols "
                "WHERE symbol_id LIKE ? ESCAPE '\\' OR symbol_id LIKE ? ESCAPE '\\'"
            )
            params += [path, inside, tail, _like_prefix(path + "::"), tail + "::%"]
        for symbol in symbols:
            parts.append("SELECT memory_id FROM memory_symbols WHERE symbol_id = ?")
            params.append(symbol)
        if not parts:
            return []
        union = " UNION ALL ".join(parts)
        sql = (
            f"SELECT l.memory_id, count(*) AS hits FROM ({union}) l JOIN memories m ON m.id "
            "= l.memory_id "
            f"WHERE m.status IN ({','.join('?' * len(statuses))}) GROUP BY l.memory_id "
            f"ORDER BY hits DESC, m.importance DESC LIMIT {int(limit)}"
        )
        return [(r[0], int(r[1])) for r in self.conn.execute(sql, [*params, *statuses])]

    def linked_by_name(
        self, name: str, statuses: Sequence[str], limit: int
    ) -> list[tuple[str, int]]:
        """Memories linked to a symbol called ``name`` (any container) or a file of that stem."""
        escaped = _like_prefix(name)[:-1]
        sql = (
            "SELECT l.memory_id, count(*) FROM ("
            "SELECT memory_id FROM memory_symbols WHERE symbol_id = ? OR symbol_id LIKE ? "
            "ESCAPE '\\' "
            "OR symbol_id LIKE ? ESCAPE '\\' "
            "UNION ALL SELECT memory_id FROM memory_files WHERE path LIKE ? ESCAPE '\\') l "
            "JOIN memories m ON m.id = l.memory_id WHERE m.status IN "
            f"({','.join('?' * len(statuses))}) "
            f"GROUP BY l.memory_id LIMIT {int(limit)}"
        )
        params = [name, f"%::{escaped}", f"%.{escaped}", f"%{escaped}.%", *statuses]
        return [(r[0], int(r[1])) for r in self.conn.execute(sql, params)]


def _like_prefix(prefix: str) -> str:
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"
