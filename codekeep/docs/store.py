"""Every SQL statement of the knowledge base: ``.codekeep/docs.db``.

``doc_files`` remembers each documentation file seen (also the skipped ones, with the
reason as ``status``, so a warm start does not re-read them); ``doc_chunks`` holds the
chunks; ``doc_fts`` (FTS5, porter stemming) indexes each chunk's document title, the
words of its path, its heading path and its body, weighted in that order at query
time; ``doc_mentions`` the identifiers a chunk names as code; ``doc_vectors`` optional
embeddings. A file's rows are replaced in one transaction, so a crash or a kill leaves
either its old chunks or its new ones, never a mix.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from codekeep.common.sqlite import WriteTransaction, open_db
from codekeep.docs.model import Chunk, DocLink
from codekeep.docs.text import american

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE doc_files (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        hash TEXT NOT NULL,
        format TEXT,
        title TEXT,
        lines INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL
    );
    CREATE TABLE doc_chunks (
        id INTEGER PRIMARY KEY,
        file_id INTEGER NOT NULL REFERENCES doc_files(id) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        heading TEXT NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        text TEXT NOT NULL
    );
    CREATE INDEX doc_chunks_file ON doc_chunks(file_id, ord);
    CREATE VIRTUAL TABLE doc_fts USING fts5(
        title, place, heading, body, tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE TABLE doc_mentions (
        chunk_id INTEGER NOT NULL REFERENCES doc_chunks(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        qualifier TEXT
    );
    CREATE INDEX doc_mentions_name ON doc_mentions(name);
    CREATE INDEX doc_mentions_chunk ON doc_mentions(chunk_id);
    CREATE TABLE doc_vectors (
        chunk_id INTEGER PRIMARY KEY REFERENCES doc_chunks(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        vector BLOB NOT NULL
    );
    """,
    # The index's words are folded to American spelling from here on: every page is read
    # again (the local model's vectors come back from the shared vector cache).
    """
    DELETE FROM doc_vectors;
    DELETE FROM doc_mentions;
    DELETE FROM doc_fts;
    DELETE FROM doc_chunks;
    DELETE FROM doc_files;
    """,
)


@dataclass(frozen=True, slots=True)
class FileRow:
    id: int
    path: str
    size: int
    mtime_ns: int
    hash: str
    status: str


@dataclass(frozen=True, slots=True)
class IndexedChunk:
    """A chunk with the words FTS indexes for it besides its text."""

    chunk: Chunk
    body: str  # the text with markup noise (roles, URLs) taken out, spellings folded

    @property
    def heading(self) -> str:
        """The words of the heading path below the page title, spellings folded
        (:func:`codekeep.docs.text.american`, as the body and the question are)."""
        return american(" ".join(self.chunk.heading_path[1:]))


@dataclass(frozen=True, slots=True)
class ChunkRow:
    id: int
    path: str
    heading: str
    start_line: int
    end_line: int
    text: str


class DocsStore:
    def __init__(self, path: Path | str) -> None:
        self.conn = open_db(path, MIGRATIONS, check_same_thread=False)
        self.transaction = WriteTransaction(self.conn)
        # Bumped whenever chunks go or vectors come: what a cached copy of the vectors
        # (codekeep.docs.vectors) compares to know it is stale.
        self.changes = 0

    def close(self) -> None:
        self.conn.close()

    # ---- files ------------------------------------------------------------------------
    def files(self) -> dict[str, FileRow]:
        rows = self.conn.execute(
            "SELECT id, path, size, mtime_ns, hash, status FROM doc_files"
        ).fetchall()
        return {row["path"]: FileRow(*row) for row in rows}

    def file(self, path: str) -> FileRow | None:
        row = self.conn.execute(
            "SELECT id, path, size, mtime_ns, hash, status FROM doc_files WHERE path = ?",
            (path,),
        ).fetchone()
        return FileRow(*row) if row else None

    def touch(self, file_id: int, size: int, mtime_ns: int) -> None:
        self.conn.execute(
            "UPDATE doc_files SET size = ?, mtime_ns = ? WHERE id = ?", (size, mtime_ns, file_id)
        )

    def replace_file(
        self,
        path: str,
        *,
        size: int,
        mtime_ns: int,
        hash: str,
        status: str,
        fmt: str | None = None,
        title: str | None = None,
        lines: int = 0,
        place: str = "",
        title_words: str = "",
        chunks: Sequence[IndexedChunk] = (),
    ) -> None:
        """Write one file's row and chunks in place of what it had (one transaction);
        ``place``, ``title_words`` and each chunk's ``heading`` and ``body`` are the words
        FTS indexes (``codekeep.docs.text``), ``title`` the page's title as shown."""
        with self.transaction() as conn:
            existing = self.file(path)
            if existing is not None:
                self._drop_chunks(existing.id)
                conn.execute(
                    "UPDATE doc_files SET size = ?, mtime_ns = ?, hash = ?, format = ?, "
                    "title = ?, lines = ?, status = ? WHERE id = ?",
                    (size, mtime_ns, hash, fmt, title, lines, status, existing.id),
                )
                file_id = existing.id
            else:
                cursor = conn.execute(
                    "INSERT INTO doc_files(path, size, mtime_ns, hash, format, title, lines, "
                    "status) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (path, size, mtime_ns, hash, fmt, title, lines, status),
                )
                file_id = int(cursor.lastrowid or 0)
            for order, item in enumerate(chunks):
                chunk = item.chunk
                cursor = conn.execute(
                    "INSERT INTO doc_chunks(file_id, ord, heading, start_line, end_line, text) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (file_id, order, chunk.heading, chunk.start_line, chunk.end_line, chunk.text),
                )
                chunk_id = cursor.lastrowid
                conn.execute(
                    "INSERT INTO doc_fts(rowid, title, place, heading, body) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (chunk_id, title_words, place, item.heading, item.body),
                )
                conn.executemany(
                    "INSERT INTO doc_mentions(chunk_id, name, qualifier) VALUES (?, ?, ?)",
                    [(chunk_id, name, qualifier) for name, qualifier in chunk.mentions],
                )

    def delete_file(self, path: str) -> bool:
        with self.transaction() as conn:
            existing = self.file(path)
            if existing is None:
                return False
            self._drop_chunks(existing.id)
            conn.execute("DELETE FROM doc_files WHERE id = ?", (existing.id,))
        return True

    def _drop_chunks(self, file_id: int) -> None:
        self.changes += 1
        self.conn.execute(
            "DELETE FROM doc_fts WHERE rowid IN (SELECT id FROM doc_chunks WHERE file_id = ?)",
            (file_id,),
        )
        self.conn.execute("DELETE FROM doc_chunks WHERE file_id = ?", (file_id,))

    # ---- search -----------------------------------------------------------------------
    def ranked(
        self, expression: str, weights: tuple[float, float, float, float], limit: int
    ) -> list[int]:
        """Chunk ids matching an FTS5 expression, best BM25 first."""
        rows = self.conn.execute(
            "SELECT rowid FROM doc_fts WHERE doc_fts MATCH ? "
            "ORDER BY bm25(doc_fts, ?, ?, ?, ?) LIMIT ?",
            (expression, *weights, limit),
        )
        return [row[0] for row in rows]

    def chunks(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        if not ids:
            return {}
        rows = self.conn.execute(
            "SELECT c.id, f.path, c.heading, c.start_line, c.end_line, c.text "
            "FROM doc_chunks c JOIN doc_files f ON f.id = c.file_id "
            f"WHERE c.id IN ({','.join('?' * len(ids))})",
            list(ids),
        )
        return {row[0]: ChunkRow(*row) for row in rows}

    def pages(self, ids: Iterable[int]) -> dict[int, str]:
        """The path of each chunk's page."""
        wanted = list(ids)
        if not wanted:
            return {}
        rows = self.conn.execute(
            "SELECT c.id, f.path FROM doc_chunks c JOIN doc_files f ON f.id = c.file_id "
            f"WHERE c.id IN ({','.join('?' * len(wanted))})",
            wanted,
        )
        return {row[0]: row[1] for row in rows}

    def mentioning(self, names: Iterable[str], among: Sequence[int] | None = None) -> set[int]:
        """Chunks that name any of ``names`` as code (only those in ``among`` if given)."""
        wanted = sorted(set(names))
        if not wanted:
            return set()
        sql = (
            "SELECT DISTINCT chunk_id FROM doc_mentions "
            f"WHERE name IN ({','.join('?' * len(wanted))})"
        )
        params: list[object] = list(wanted)
        if among is not None:
            if not among:
                return set()
            sql += f" AND chunk_id IN ({','.join('?' * len(among))})"
            params += list(among)
        return {row[0] for row in self.conn.execute(sql, params)}

    def links(self, name: str, qualifier: str | None, limit: int) -> list[DocLink]:
        """Where the docs name ``name`` as code, mentions qualified by ``qualifier`` first."""
        rows = self.conn.execute(
            "SELECT f.path, c.heading, c.start_line, MAX(m.qualifier IS ?) AS exact "
            "FROM doc_mentions m JOIN doc_chunks c ON c.id = m.chunk_id "
            "JOIN doc_files f ON f.id = c.file_id WHERE m.name = ? "
            "GROUP BY c.id ORDER BY exact DESC, f.path, c.start_line LIMIT ?",
            (qualifier, name, limit),
        )
        return [DocLink(row[0], row[1], row[2]) for row in rows]

    # ---- vectors ----------------------------------------------------------------------
    def missing_vectors(self, model: str, limit: int) -> list[tuple[int, str, str]]:
        """(id, heading path, text) of chunks with no vector of ``model`` yet."""
        rows = self.conn.execute(
            "SELECT c.id, c.heading, c.text FROM doc_chunks c "
            "LEFT JOIN doc_vectors v ON v.chunk_id = c.id AND v.model = ? "
            "WHERE v.chunk_id IS NULL ORDER BY c.id LIMIT ?",
            (model, limit),
        )
        return [(row[0], row[1], row[2]) for row in rows]

    def put_vectors(self, model: str, vectors: Sequence[tuple[int, bytes]]) -> None:
        self.changes += 1
        with self.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO doc_vectors(chunk_id, model, vector) VALUES (?, ?, ?)",
                [(chunk_id, model, blob) for chunk_id, blob in vectors],
            )

    def has_vectors(self, model: str) -> bool:
        """Any vector of ``model`` (a search embeds its question only then); cheaper than
        counting them, which reads every row of a table of blobs."""
        return self.conn.execute(
            "SELECT 1 FROM doc_vectors WHERE model = ? LIMIT 1", (model,)).fetchone() is not None

    def vector_count(self, model: str) -> int:
        return int(self.conn.execute(
            "SELECT COUNT(*) FROM doc_vectors WHERE model = ?", (model,)).fetchone()[0])

    def vectors(self, model: str) -> list[tuple[int, bytes]]:
        return [(row[0], row[1]) for row in self.conn.execute(
            "SELECT chunk_id, vector FROM doc_vectors WHERE model = ?", (model,))]

    def vectors_by_page(self, model: str) -> list[tuple[int, int, bytes]]:
        """(chunk id, file id, vector) of every chunk ``model`` embedded, a page's chunks
        together and in their order."""
        rows = self.conn.execute(
            "SELECT v.chunk_id, c.file_id, v.vector FROM doc_vectors v "
            "JOIN doc_chunks c ON c.id = v.chunk_id WHERE v.model = ? "
            "ORDER BY c.file_id, c.ord", (model,))
        return [(row[0], row[1], row[2]) for row in rows]

    # ---- counts -----------------------------------------------------------------------
    def counts(self) -> tuple[int, int, dict[str, int], dict[str, int]]:
        """Indexed files, chunks, indexed files per format, skipped files per reason."""
        chunks = self.conn.execute("SELECT COUNT(*) FROM doc_chunks").fetchone()[0]
        formats: dict[str, int] = {}
        skipped: dict[str, int] = {}
        for status, fmt, count in self.conn.execute(
            "SELECT status, format, COUNT(*) FROM doc_files GROUP BY status, format"
        ):
            if status == "indexed":
                formats[fmt] = formats.get(fmt, 0) + count
            else:
                skipped[status] = skipped.get(status, 0) + count
        return sum(formats.values()), chunks, formats, skipped
