"""The SQLite side of the code map: ``.codekeep/index.db``.

Layout choices that keep the file small (target: <= 1 MB per 50k lines): references are
stored one row per (name, file) with every use packed into a short text (``spans``), so a
name lookup is one clustered range scan and an edit rewrites only the names it touched;
UTF-16 columns and repeated lines are NULL when they equal the byte column / start line
(true for almost all code), and NULLs cost nothing in a SQLite record. The index is a
rebuildable cache: it uses ``synchronous=OFF`` and is recreated if the file is damaged.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import sqlite3
from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from codekeep.analysis.encoding import (
    decode_imports,
    decode_spans,
    encode_imports,
    group_refs,
    kind_code,
    kind_name,
    kind_rank_groups,
    kind_rank_sql,
    nn,
    symbol_fact,
    symbol_row,
    unpack_signature,
)
from codekeep.analysis.facts import FileFacts, ImportFact, RefFact, SymbolFact
from codekeep.analysis.model import Position, Range, Reference, Symbol
from codekeep.common.sqlite import (
    BUSY_TIMEOUT_MS,
    QUICK_CHECK_MAX_BYTES,
    WriteTransaction,
    open_db,
    parameter_batches,
    quick_check,
)
from codekeep.common.symbol_id import SymbolId, split_number

if TYPE_CHECKING:
    from codekeep.analysis.parsing import FileResult


MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE files(
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        language TEXT NOT NULL,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        hash TEXT NOT NULL,
        lines INTEGER NOT NULL,
        status TEXT NOT NULL,
        ref_names TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE symbols(
        id INTEGER PRIMARY KEY,
        file_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        container TEXT,
        dup INTEGER,
        kind NOT NULL,
        signature TEXT NOT NULL,
        line INTEGER NOT NULL, col INTEGER NOT NULL, ucol INTEGER,
        end_line INTEGER NOT NULL, end_col INTEGER NOT NULL, end_ucol INTEGER,
        name_line INTEGER, name_col INTEGER NOT NULL, name_ucol INTEGER,
        name_end_col INTEGER NOT NULL, name_end_ucol INTEGER
    );
    CREATE INDEX symbols_by_file ON symbols(file_id);
    CREATE INDEX symbols_by_name ON symbols(name);
    CREATE TABLE refs(
        name TEXT NOT NULL,
        file_id INTEGER NOT NULL,
        spans TEXT NOT NULL,
        PRIMARY KEY (name, file_id)
    ) WITHOUT ROWID;
    CREATE TABLE imports(
        file_id INTEGER PRIMARY KEY,
        facts TEXT NOT NULL
    );
    """,
    # find_symbol with a limit: (name, kind, file_id) lets a name defined thousands of
    # times be answered by walking files in path order (see symbols_named).
    """
    DROP INDEX symbols_by_name;
    CREATE INDEX symbols_by_name ON symbols(name, kind, file_id);
    """,
    # Rows written from an editor buffer name the process holding it (see
    # codekeep.common.owners); NULL: the rows are the disk's. Few rows are ever marked,
    # so a partial index finds them without reading the table.
    """
    ALTER TABLE files ADD COLUMN buffer_owner TEXT;
    CREATE INDEX files_from_buffers ON files(buffer_owner) WHERE buffer_owner IS NOT NULL;
    """,
    # References now record the receiver of member uses (`x.m()`): re-extract every file.
    """
    UPDATE files SET hash = '', mtime_ns = -1;
    """,
    # Python member uses record their receiver too (`click.echo()`, `self.close()`).
    """
    UPDATE files SET hash = '', mtime_ns = -1;
    """,
    # Go member uses now record their receiver's declared type (analysis/go_scopes.py).
    """
    UPDATE files SET hash = '', mtime_ns = -1 WHERE language = 'go';
    """,
    # What the last walk kept from each directory (analysis.listings), one JSON text.
    """
    CREATE TABLE walk_listings(id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL);
    """,
    # Value uses (`f(Command)`), doc links (`{@link zip}`), decorators and more type
    # positions are references (Python, JavaScript, TypeScript).
    """
    UPDATE files SET hash = '', mtime_ns = -1;
    """,
    # Ruby bare-word calls, Rust macro arguments, PHP promoted properties and `$x->f`.
    """
    UPDATE files SET hash = '', mtime_ns = -1 WHERE language IN ('ruby', 'rust', 'php');
    """,
    # Python member uses record the class their receiver holds (analysis/python_scopes.py).
    """
    UPDATE files SET hash = '', mtime_ns = -1 WHERE language = 'python';
    """,
)

_INSERT_SYMBOL = (
    "INSERT INTO symbols(file_id, name, container, dup, kind, signature, "
    "line, col, ucol, end_line, end_col, end_ucol, "
    "name_line, name_col, name_ucol, name_end_col, name_end_ucol) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_PUT_REFS = "INSERT OR REPLACE INTO refs(name, file_id, spans) VALUES (?, ?, ?)"
_PUT_IMPORTS = "INSERT OR REPLACE INTO imports(file_id, facts) VALUES (?, ?)"
_SYMBOL_COLUMNS = (
    "s.id, f.path, f.language, s.name, s.container, s.dup, s.kind, s.signature, "
    "s.line, s.col, s.ucol, s.end_line, s.end_col, s.end_ucol, "
    "s.name_line, s.name_col, s.name_ucol, s.name_end_col, s.name_end_ucol"
)
SYMBOL_SELECT = f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
_KIND_RANK = kind_rank_sql("s.kind")
_RANK_GROUPS: list[tuple[int | str, ...]] = [*kind_rank_groups(), ()]


class OutlineEntry(NamedTuple):
    """A symbol as the repository map ranks and prints it (``signature`` still packed:
    :func:`codekeep.analysis.encoding.unpack_signature` with ``name``)."""

    path: str
    name: str
    kind: str
    container: str | None
    signature: str
    line: int
    col: int


def _pos(line: int, col: int, ucol: int | None) -> Position:
    return Position(line, col, col if ucol is None else ucol)


def symbol_from_row(row: Sequence) -> Symbol:
    (_id, path, language, name, container, dup, kind, signature,
     line, col, ucol, end_line, end_col, end_ucol,
     name_line, name_col, name_ucol, name_end_col, name_end_ucol) = row
    name_line = nn(name_line, line)
    return Symbol(
        id=str(SymbolId.of(path, name, container, dup)), name=name, kind=kind_name(kind),
        path=path,
        language=language, container=container, signature=unpack_signature(signature, name),
        range=Range(_pos(line, col, ucol), _pos(end_line, end_col, end_ucol)),
        selection_range=Range(
            _pos(name_line, name_col, name_ucol), _pos(name_line, name_end_col, name_end_ucol)
        ),
    )


class DefinitionKey(NamedTuple):
    """Just enough of a definition to decide whether a use resolves to it."""

    id: str
    path: str
    name: str
    container: str | None
    kind: str = ""


@dataclass(frozen=True, slots=True)
class RefRow:
    """A reference as stored, before deciding how sure we are of its target."""

    path: str
    name: str
    kind: str
    range: Range
    receiver: str | None = None  # see RefFact.receiver

    @classmethod
    def of(cls, path: str, ref: RefFact) -> RefRow:
        span = ref.span
        return cls(path, ref.name, ref.kind, Range(
            Position(span.line, span.col, span.ucol),
            Position(span.end_line, span.end_col, span.end_ucol)), ref.receiver)

    def as_reference(self, symbol_id: str | None, confident: bool) -> Reference:
        return Reference(
            self.path, self.range, symbol_id, self.name, self.kind,
            "resolved" if confident else "name",
        )


class FileRow(NamedTuple):
    """One row of ``files`` (a tuple: a warm start reads one per file of the tree)."""

    id: int
    path: str
    language: str
    size: int
    mtime_ns: int
    hash: str
    status: str
    buffer_owner: str | None = None  # the process whose editor buffer the rows came from


class IndexStore:
    """One connection to index.db, used from one thread (the code map's lock guards it)."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.conn = _open_rebuilding(self.path)
        # BEGIN IMMEDIATE: a transaction that reads before it writes waits for another
        # process's writer (a second server, the CLI) instead of failing "database is locked"
        self.transaction = WriteTransaction(self.conn)

    @classmethod
    def reading(cls, path: Path | str) -> IndexStore:
        """A second, read-only connection to an existing index, for a long read on
        another thread (the repository graph) that must neither wait for nor hold the
        code map's lock: WAL gives it a consistent snapshot while the writer goes on."""
        store = cls.__new__(cls)
        store.path = Path(path)
        store.conn = sqlite3.connect(f"{store.path.absolute().as_uri()}?mode=ro", uri=True,
                                     timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False,
                                     isolation_level=None)
        store.transaction = WriteTransaction(store.conn)
        return store

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read transaction: every read inside sees the same state of the index."""
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            self.conn.execute("COMMIT")

    def version(self) -> tuple[int, int]:
        """Changes whenever the index is written: by this connection (its count of
        changed rows) or by another (SQLite's data version)."""
        return self.conn.total_changes, self.conn.execute("PRAGMA data_version").fetchone()[0]

    def close(self) -> None:
        self.conn.close()

    def compact(self) -> None:
        """Rewrite the file densely (after a cold index, B-tree pages are partly empty).

        Best effort: another process reading the index (the CLI next to the server)
        makes VACUUM impossible for now, which costs only some bytes.
        """
        self.conn.execute("PRAGMA busy_timeout = 200")  # do not stall the index for it
        try:
            self.conn.execute("VACUUM")
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.OperationalError:
            pass
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")

    # ---- files ---------------------------------------------------------------
    _FILE_COLUMNS = "id, path, language, size, mtime_ns, hash, status, buffer_owner"

    def files(self) -> dict[str, FileRow]:
        rows = self.conn.execute(f"SELECT {self._FILE_COLUMNS} FROM files")
        return {row[1]: FileRow(*row) for row in rows}

    def disk_stamps(self) -> list[tuple[str, str, int, int, str]]:
        """(path, language, size, mtime_ns, status) of every file whose rows came from
        the disk (no editor buffer): what a warm query compares the tree with."""
        return self.conn.execute(
            "SELECT path, language, size, mtime_ns, status FROM files "
            "WHERE buffer_owner IS NULL").fetchall()

    def file_count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM files").fetchone()[0])

    def indexed_files(self) -> list[tuple[str, int, str]]:
        """(path, id, language) of every indexed file: what import resolution needs."""
        return self.conn.execute(
            "SELECT path, id, language FROM files WHERE status = 'indexed'").fetchall()

    def indexed_contents(self) -> list[tuple[str, str, str]]:
        """(path, content hash, language) of every file indexed from the disk (not from
        an editor buffer): what a facts export holds."""
        return self.conn.execute(
            "SELECT path, hash, language FROM files WHERE status = 'indexed' "
            "AND buffer_owner IS NULL AND hash != ''").fetchall()

    def has_files(self) -> bool:
        """Whether any file was ever recorded (indexed or skipped)."""
        return self.conn.execute("SELECT 1 FROM files LIMIT 1").fetchone() is not None

    def skip_statuses(self) -> list[tuple[str, int]]:
        """(status, how many files) for every file not indexed (the status says why)."""
        return [(status, int(count)) for status, count in self.conn.execute(
            "SELECT status, COUNT(*) FROM files WHERE status != 'indexed' GROUP BY status"
        )]

    def file(self, path: str) -> FileRow | None:
        row = self.conn.execute(
            f"SELECT {self._FILE_COLUMNS} FROM files WHERE path = ?", (path,)
        ).fetchone()
        return FileRow(*row) if row else None

    def touch(self, file_id: int, size: int, mtime_ns: int) -> None:
        self.conn.execute(
            "UPDATE files SET size = ?, mtime_ns = ? WHERE id = ?", (size, mtime_ns, file_id)
        )

    def upsert_file(self, result: FileResult, buffer_owner: str | None = None) -> int:
        """Describe one file; ``buffer_owner`` marks rows taken from an editor buffer."""
        existing = self.file(result.rel)
        values = (result.language, result.size, result.mtime_ns, result.hash, result.lines,
                  result.status, buffer_owner)
        if existing is None:
            cursor = self.conn.execute(
                "INSERT INTO files(path, language, size, mtime_ns, hash, lines, status, "
                "buffer_owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (result.rel, *values),
            )
            return int(cursor.lastrowid or 0)
        self.conn.execute(
            "UPDATE files SET language = ?, size = ?, mtime_ns = ?, hash = ?, lines = ?, "
            "status = ?, buffer_owner = ? WHERE id = ?", (*values, existing.id),
        )
        return existing.id

    def files_named(self, paths: Sequence[str]) -> dict[str, FileRow]:
        """The rows of those of ``paths`` that are recorded, in one query."""
        rows = self.conn.execute(
            f"SELECT {self._FILE_COLUMNS} FROM files "
            "WHERE path IN (SELECT value FROM json_each(?))", (json.dumps(list(paths)),))
        return {row[1]: FileRow(*row) for row in rows}

    def insert_files(self, results: Sequence[FileResult]) -> None:
        """Describe files not recorded yet and insert their ready-made rows
        (``encoded``), a statement per table for them all: the cold-index path."""
        next_id = self.conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM files").fetchone()[0]
        files: list[tuple] = []
        symbols: list[tuple] = []
        refs: list[tuple[str, int, str]] = []
        imports: list[tuple[int, str]] = []
        for file_id, result in enumerate(results, next_id):
            encoded = result.encoded
            assert encoded is not None
            files.append((file_id, result.rel, result.language, result.size, result.mtime_ns,
                          result.hash, result.lines, result.status,
                          "\n".join(sorted(encoded.refs))))
            symbols += [(file_id, *row) for row in encoded.symbols]
            refs += [(name, file_id, spans) for name, spans in encoded.refs.items()]
            if encoded.imports:
                imports.append((file_id, encoded.imports))
        self.conn.executemany(
            "INSERT INTO files(id, path, language, size, mtime_ns, hash, lines, status, "
            "ref_names) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", files)
        self.conn.executemany(_INSERT_SYMBOL, symbols)
        refs.sort()  # in key order: each insert lands next to the previous one
        self.conn.executemany(_PUT_REFS, refs)
        self.conn.executemany(_PUT_IMPORTS, imports)

    def buffer_rows(self) -> list[tuple[str, str]]:
        """(path, owner) of every file whose rows came from an editor buffer."""
        return self.conn.execute(
            "SELECT path, buffer_owner FROM files WHERE buffer_owner IS NOT NULL"
        ).fetchall()

    def delete_file(self, file_id: int) -> None:
        self.clear_facts(file_id)
        self.conn.execute("DELETE FROM files WHERE id = ?", (file_id,))

    def rename_file(self, file_id: int, new_path: str) -> None:
        replaced = self.file(new_path)
        if replaced is not None:
            self.delete_file(replaced.id)
        self.conn.execute("UPDATE files SET path = ? WHERE id = ?", (new_path, file_id))

    # ---- facts ---------------------------------------------------------------
    def clear_facts(self, file_id: int) -> None:
        for table in ("symbols", "imports"):
            self.conn.execute(f"DELETE FROM {table} WHERE file_id = ?", (file_id,))
        self.delete_ref_groups(file_id, self.ref_names(file_id))
        self.set_ref_names(file_id, ())

    # A file's uses are found through the names it uses (kept in its ``files`` row)
    # rather than through an index on refs(file_id): that index would cost more space
    # than the list, and only whole-file reads and rewrites need it.
    def ref_names(self, file_id: int) -> list[str]:
        row = self.conn.execute("SELECT ref_names FROM files WHERE id = ?", (file_id,)).fetchone()
        return row[0].split("\n") if row and row[0] else []

    def set_ref_names(self, file_id: int, names: Iterable[str]) -> None:
        self.conn.execute("UPDATE files SET ref_names = ? WHERE id = ?",
                          ("\n".join(sorted(names)), file_id))

    def _ref_groups_of(self, file_id: int) -> list[tuple[str, str]]:
        return self.conn.execute(
            "SELECT r.name, r.spans FROM json_each(?) j JOIN refs r "
            "ON r.name = j.value AND r.file_id = ?",
            (json.dumps(self.ref_names(file_id)), file_id),
        ).fetchall()

    def insert_symbols(self, file_id: int, symbols: Iterable[SymbolFact]) -> None:
        self.insert_symbol_rows(file_id, [symbol_row(s) for s in symbols])

    def insert_symbol_rows(self, file_id: int, rows: Iterable[tuple]) -> None:
        self.conn.executemany(_INSERT_SYMBOL, [(file_id, *row) for row in rows])

    def put_ref_groups(self, file_id: int, groups: dict[str, str]) -> None:
        self.conn.executemany(_PUT_REFS, [(name, file_id, spans) for name, spans in groups.items()])

    def delete_ref_groups(self, file_id: int, names: Iterable[str]) -> None:
        self.conn.executemany(
            "DELETE FROM refs WHERE name = ? AND file_id = ?", [(n, file_id) for n in names]
        )

    def put_imports(self, file_id: int, imports: Sequence[ImportFact]) -> None:
        self.put_encoded_imports(file_id, encode_imports(imports))

    def put_encoded_imports(self, file_id: int, encoded: str) -> None:
        """All imports of a file in one row (they are always read and written together)."""
        if encoded:
            self.conn.execute(_PUT_IMPORTS, (file_id, encoded))
        else:
            self.conn.execute("DELETE FROM imports WHERE file_id = ?", (file_id,))

    def write_facts(self, file_id: int, facts: FileFacts, fresh: bool = False) -> None:
        """Replace every row of one file (``fresh``: it has none yet)."""
        if not fresh:
            self.clear_facts(file_id)
        self.insert_symbols(file_id, facts.symbols)
        groups = group_refs(facts.refs)
        self.put_ref_groups(file_id, groups)
        self.set_ref_names(file_id, groups)
        self.put_imports(file_id, facts.imports)

    def delete_all_symbols(self, file_id: int) -> None:
        self.conn.execute("DELETE FROM symbols WHERE file_id = ?", (file_id,))

    def delete_symbols(self, file_id: int, symbols: Iterable[SymbolFact]) -> None:
        self.conn.executemany(
            "DELETE FROM symbols WHERE file_id = ? AND name = ? AND container IS ? AND dup IS ?",
            [(file_id, s.name, s.container, split_number(s.qual)[1]) for s in symbols],
        )

    def read_facts(self, file_id: int) -> FileFacts:
        """The stored facts of one file, comparable with freshly extracted ones."""
        symbols = [symbol_fact(row) for row in self.conn.execute(
            "SELECT name, container, dup, kind, signature, line, col, ucol, end_line, end_col, "
            "end_ucol, name_line, name_col, name_ucol, name_end_col, name_end_ucol FROM symbols "
            "WHERE file_id = ? ORDER BY line, col, id", (file_id,),
        )]
        refs = [ref for name, spans in self._ref_groups_of(file_id)
                for ref in decode_spans(name, spans)]
        refs.sort(key=lambda r: (r.span.line, r.span.col))
        return FileFacts(tuple(symbols), tuple(refs), tuple(self.imports_of(file_id)))

    # ---- queries -------------------------------------------------------------
    def symbols_named(
        self, name: str, kind: str | None = None, limit: int | None = None
    ) -> list[Symbol]:
        """Definitions named ``name``, structural kinds first, then by path and line.

        Sorting every match costs in proportion to how many there are (``__init__`` is
        defined in most Python files), so with a ``limit`` a frequent name is answered
        one rank group at a time by walking the files in path order, probing
        (name, kind, file_id) for each and stopping after ``limit``. A name is frequent
        past the break-even point of the two plans, about sqrt(limit * files * kinds)
        matches, which is counted in the index alone.
        """
        where = "s.name = ?"
        params: list[object] = [name]
        if kind is not None:
            where += " AND s.kind = ?"
            params.append(kind_code(kind))
        if limit is not None and limit < 0:
            limit = None  # as SQLite reads a negative LIMIT
        if limit is not None and self._more_than(where, params, self._break_even(limit, 1)):
            groups = [(kind_code(kind),)] if kind is not None else _RANK_GROUPS
            found: list[Symbol] = []
            for codes in groups:
                if len(found) < limit:
                    found += self._named_in_group(name, codes, limit - len(found))
            return found
        rows = self.conn.execute(
            f"{SYMBOL_SELECT} WHERE {where} ORDER BY {_KIND_RANK}, f.path, s.line LIMIT ?",
            (*params, -1 if limit is None else limit),
        )
        return [symbol_from_row(r) for r in rows]

    def _break_even(self, limit: int, kinds: int) -> int:
        files = self.conn.execute("SELECT COALESCE(MAX(id), 0) FROM files").fetchone()[0]
        return math.isqrt(limit * files * kinds)

    def _more_than(self, where: str, params: Sequence[object], count: int) -> bool:
        return self.conn.execute(
            f"SELECT 1 FROM symbols s WHERE {where} LIMIT 1 OFFSET ?", (*params, count),
        ).fetchone() is not None

    def _named_in_group(self, name: str, codes: tuple[int | str, ...], limit: int) -> list[Symbol]:
        """Up to ``limit`` definitions of one rank group (``()``: unknown kinds), by path."""
        if codes:
            where = f"s.name = ? AND s.kind IN ({', '.join('?' * len(codes))})"
        else:  # kinds this version does not know are stored as text and rank last
            where = "s.name = ? AND typeof(s.kind) = 'text'"
        params = (name, *codes)
        if not (codes and self._more_than(where, params, self._break_even(limit, len(codes)))):
            sql = f"{SYMBOL_SELECT} WHERE {where} ORDER BY f.path, s.line LIMIT ?"
            return [symbol_from_row(r) for r in self.conn.execute(sql, (*params, limit))]
        # Walk the files by path on the covering path index, picking ids only (reading
        # each file's whole row would cost more than the walk), then read the chosen rows.
        ids = [row[0] for row in self.conn.execute(
            "SELECT s.id FROM files f CROSS JOIN symbols s ON s.file_id = f.id "
            f"WHERE {where} ORDER BY f.path, s.line LIMIT ?", (*params, limit))]
        rows = {row[0]: row for row in self.conn.execute(
            f"{SYMBOL_SELECT} WHERE s.id IN (SELECT value FROM json_each(?))",
            (json.dumps(ids),))}
        return [symbol_from_row(rows[i]) for i in ids]

    def symbol(self, sid: SymbolId) -> Symbol | None:
        wanted = str(sid)
        rows = self.conn.execute(
            f"{SYMBOL_SELECT} WHERE f.path = ? AND s.name = ?", (sid.path, sid.name)).fetchall()
        for symbol in map(symbol_from_row, rows):
            if symbol.id == wanted:
                return symbol
        # names that contain dots (TypeScript `declare module "a.b"`): look at the whole file
        return next((s for s in self.symbols_in_file(sid.path) if s.id == wanted), None)

    def symbols_in_file(self, path: str) -> list[Symbol]:
        rows = self.conn.execute(
            f"{SYMBOL_SELECT} WHERE f.path = ? ORDER BY s.line, s.col, s.end_line DESC", (path,)
        )
        return [symbol_from_row(r) for r in rows]

    def extents_in_file(self, path: str) -> list[tuple[int, int, int, int, int]]:
        """(line, column, end line, end column, row id) of the file's definitions in
        outline order: all finding what encloses a use needs, without a Symbol each."""
        return self.conn.execute(
            "SELECT s.line, s.col, s.end_line, s.end_col, s.id FROM symbols s "
            "JOIN files f ON f.id = s.file_id WHERE f.path = ? "
            "ORDER BY s.line, s.col, s.end_line DESC", (path,)).fetchall()

    def symbols_by_row(self, row_ids: Sequence[int]) -> dict[int, Symbol]:
        """The symbols of these row ids (from :meth:`extents_in_file`, same read)."""
        found: dict[int, Symbol] = {}
        for batch in parameter_batches(row_ids):
            marks = ",".join("?" * len(batch))
            for row in self.conn.execute(f"{SYMBOL_SELECT} WHERE s.id IN ({marks})", batch):
                found[row[0]] = symbol_from_row(row)
        return found

    def signatures_naming(self, path: str, text: str) -> list[tuple[str, int, int, str]]:
        """(kind, first line, last line, signature) of the file's definitions whose
        signature holds ``text``: a parameter's name is looked up without building the
        file's symbols."""
        rows = self.conn.execute(
            "SELECT s.kind, s.line, s.end_line, s.signature FROM symbols s "
            # instr, not LIKE: a stored signature marks its own name with a NUL, past
            # which LIKE reads nothing
            "JOIN files f ON f.id = s.file_id WHERE f.path = ? AND instr(s.signature, ?)",
            (path, text))
        return [(kind_name(kind), line, end_line, signature)
                for kind, line, end_line, signature in rows]

    def members_in_file(self, path: str) -> list[tuple[str, str, str, int, int]]:
        """(container, name, kind, first line, last line) of the file's definitions that
        have a container: all a ``self.m()`` use needs, without building symbols."""
        rows = self.conn.execute(
            "SELECT s.container, s.name, s.kind, s.line, s.end_line FROM symbols s "
            "JOIN files f ON f.id = s.file_id WHERE f.path = ? AND s.container IS NOT NULL",
            (path,))
        return [(container, name, kind_name(kind), line, end_line)
                for container, name, kind, line, end_line in rows]

    def all_symbols(self) -> list[Symbol]:
        rows = self.conn.execute(f"{SYMBOL_SELECT} ORDER BY f.path, s.line, s.col")
        return [symbol_from_row(r) for r in rows]

    def outline_of(self, file_id: int, path: str) -> list[OutlineEntry]:
        """What the repository map ranks and prints of one file's symbols, in position
        order (the map reads only the files it ranks highest, never every symbol)."""
        return [
            OutlineEntry(path, name, kind_name(kind), container, signature, line, col)
            for name, container, kind, signature, line, col in self.conn.execute(
                "SELECT name, container, kind, signature, line, col FROM symbols "
                "WHERE file_id = ? ORDER BY line, col", (file_id,))
        ]

    def fingerprint(self) -> str:
        """A digest of which files the index holds and of their content hashes: what
        something derived from the whole index (the map's graph) was built from."""
        digest = hashlib.blake2b(digest_size=16)
        for file_id, content in self.conn.execute(
                "SELECT id, hash FROM files WHERE status = 'indexed' ORDER BY id"):
            digest.update(f"{file_id}:{content};".encode())
        return digest.hexdigest()

    def defining_files(self) -> list[int]:
        """Ids of the files that define at least one symbol."""
        return [row[0] for row in self.conn.execute("SELECT DISTINCT file_id FROM symbols")]

    def definition_files(self) -> Generator[tuple[str, str], None, None]:
        """(name, the ids of the files defining it, comma-separated: "3,17,17") of every
        symbol name in name order, streamed: the repository graph joins them with
        :meth:`reference_counts` without holding either."""
        yield from self.conn.execute(
            "SELECT name, group_concat(file_id) FROM symbols GROUP BY name ORDER BY name")

    def ref_groups_named(self, name: str) -> list[tuple[str, str]]:
        """(path, packed spans) of every file that uses ``name``, still encoded."""
        return self.conn.execute(
            "SELECT f.path, r.spans FROM refs r JOIN files f ON f.id = r.file_id "
            "WHERE r.name = ?", (name,),
        ).fetchall()

    def ref_spans(self, path: str, name: str) -> str | None:
        """Packed spans of the uses of ``name`` in one file (None: it has none)."""
        row = self.conn.execute(
            "SELECT r.spans FROM refs r JOIN files f ON f.id = r.file_id "
            "WHERE f.path = ? AND r.name = ?", (path, name)).fetchone()
        return row[0] if row else None

    def definition_keys(self, name: str) -> list[DefinitionKey]:
        rows = self.conn.execute(
            "SELECT f.path, s.name, s.container, s.dup, s.kind FROM symbols s "
            "JOIN files f ON f.id = s.file_id WHERE s.name = ?", (name,))
        return [DefinitionKey(str(SymbolId.of(path, name, container, dup)), path, name, container,
                              kind_name(kind))
                for path, name, container, dup, kind in rows]

    def refs_in_file(self, path: str) -> list[RefRow]:
        row = self.file(path)
        if row is None:
            return []
        found = [RefRow.of(path, ref) for name, spans in self._ref_groups_of(row.id)
                 for ref in decode_spans(name, spans)]
        found.sort(key=lambda r: (r.range.start.line, r.range.start.byte_col))
        return found

    def imports_of(self, file_id: int) -> list[ImportFact]:
        row = self.conn.execute(
            "SELECT facts FROM imports WHERE file_id = ?", (file_id,)).fetchone()
        return decode_imports(row[0]) if row else []

    def symbol_names(self) -> Iterator[str]:
        """Every distinct symbol name, streamed (a kernel's index holds millions)."""
        for (name,) in self.conn.execute("SELECT DISTINCT name FROM symbols"):
            yield name

    def defines(self, name: str) -> bool:
        """Is any symbol named ``name``?"""
        return self.conn.execute("SELECT 1 FROM symbols WHERE name = ? LIMIT 1",
                                 (name,)).fetchone() is not None

    def walk_listings(self) -> str | None:
        """What the last complete walk remembered (see analysis.listings), if anything."""
        row = self.conn.execute("SELECT state FROM walk_listings WHERE id = 1").fetchone()
        return None if row is None else str(row[0])

    def save_walk_listings(self, state: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO walk_listings(id, state) VALUES (1, ?)",
                          (state,))

    def names_like(self, pattern: str) -> list[str]:
        """Distinct symbol names that match the LIKE ``pattern`` (``\\`` escapes), plus
        every name with a non-ASCII character: LIKE folds the case of ASCII letters only,
        so the caller decides those itself. One scan of the name index, no Python per row.
        """
        return [name for (name,) in self.conn.execute(
            "SELECT DISTINCT name FROM symbols WHERE name LIKE ? ESCAPE '\\' "
            "OR length(name) <> length(CAST(name AS BLOB))", (pattern,))]

    def names_by_start(self, prefixes: Sequence[str], globs: Sequence[str],
                       want: int | None) -> tuple[list[str], bool]:
        """Distinct ASCII names starting with one of ``prefixes`` (each spelling of a
        short query: ranges of the name index, no scan), then — when those are fewer
        than ``want`` — those matching one of ``globs`` (a scan), the shorter first
        within each: the first ``want`` and every name tied with the last (none left
        out that ranks as well), and whether that was all of them. Names with a
        non-ASCII character are not here (see :meth:`non_ascii_names`)."""
        ascii_only = "length(name) = length(CAST(name AS BLOB))"
        ranges = " OR ".join(["(name >= ? AND name < ?)"] * len(prefixes))
        bounds = [bound for prefix in prefixes for bound in (prefix, prefix + "\U0010ffff")]
        tiers = [(f"({ranges}) AND {ascii_only}", bounds)]
        if globs:
            tiers.append((f"({' OR '.join(['name GLOB ?'] * len(globs))}) AND NOT ({ranges}) "
                          f"AND {ascii_only}", [*globs, *bounds]))
        found: list[str] = []
        for where, params in tiers:
            left = None if want is None else want - len(found)
            ranked = f"SELECT DISTINCT name, length(name) AS n FROM symbols WHERE {where}"
            rows = self.conn.execute(f"{ranked} ORDER BY n LIMIT ?",
                                     (*params, -1 if left is None else left)).fetchall()
            found += [name for name, _n in rows]
            if left is not None and len(rows) >= left:
                ties = self.conn.execute(f"SELECT name FROM ({ranked}) WHERE n = ?",
                                         (*params, rows[-1][1])).fetchall() if rows else []
                return list(dict.fromkeys(found + [name for (name,) in ties])), False
        return found, True

    def non_ascii_names(self) -> list[str]:
        """Distinct names holding a character outside ASCII."""
        return [name for (name,) in self.conn.execute(
            "SELECT DISTINCT name FROM symbols "
            "WHERE length(name) <> length(CAST(name AS BLOB))")]

    def counts(self) -> tuple[int, int, int, dict[str, int]]:
        files = self.conn.execute(
            "SELECT language, COUNT(*) FROM files WHERE status = 'indexed' GROUP BY language"
        ).fetchall()
        languages = {lang: n for lang, n in files}
        symbols = self.conn.execute("SELECT COUNT(*) FROM symbols").fetchone()[0]
        refs = self.conn.execute(
            "SELECT COALESCE(SUM(length(spans) - length(replace(spans, ';', '')) + 1), 0) "
            "FROM refs"
        ).fetchone()[0]
        return sum(languages.values()), symbols, refs, languages

    def reference_counts(self) -> Generator[tuple[str, int, int], None, None]:
        """(referenced name, referencing file, how often) in name order, streamed (the
        count is taken in SQL: the packed spans never reach Python)."""
        yield from self.conn.execute(
            "SELECT name, file_id, length(spans) - length(replace(spans, ';', '')) + 1 "
            "FROM refs ORDER BY name")


# 8 KB pages pack the long packed-spans rows of ``refs`` and ``files`` with less slack
# than SQLite's default 4 KB: ~1% smaller index (measured on a 173k-line corpus).
PAGE_SIZE = 8192


def _create(path: Path) -> None:
    """Create a missing index file with PAGE_SIZE pages (only possible before any table
    exists; on an existing file the pragma does nothing, so a racing opener is harmless)."""
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path))
    try:
        conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
        conn.execute("PRAGMA journal_mode = WAL")  # writes the header: the size sticks
    finally:
        conn.close()


# index.db-checked: the files as they were when last checked (git-ignored as *.db-*)
CHECKED_SUFFIX = "-checked"


def discard(path: Path) -> None:
    """Delete the index file (a cache) and its WAL; the next open starts it over."""
    for suffix in ("", "-wal", "-shm", CHECKED_SUFFIX):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _fingerprint(path: Path) -> str:
    """Size and modification time of the index and its WAL (``-``: no WAL)."""
    parts = []
    for file in (path, Path(f"{path}-wal")):
        try:
            found = file.stat()
        except OSError:
            parts.append("-")
        else:
            parts.append(f"{found.st_size}:{found.st_mtime_ns}")
    return " ".join(parts)


def _checked_unchanged(path: Path, fingerprint: str) -> bool:
    try:
        return Path(f"{path}{CHECKED_SUFFIX}").read_text(encoding="ascii") == fingerprint
    except OSError:
        return False


def _remember_checked(path: Path, fingerprint: str) -> None:
    with contextlib.suppress(OSError):  # a read-only workspace checks again next time
        Path(f"{path}{CHECKED_SUFFIX}").write_text(fingerprint, encoding="ascii")


def _open_rebuilding(path: Path) -> sqlite3.Connection:
    """Open the index; a damaged or foreign-layout file is a cache, so start it over.

    Damage to a page of a table (not the header) opens fine and fails only the queries
    that touch it, so a file small enough to check quickly gets ``PRAGMA quick_check`` —
    unless it has not changed (size, mtime of the file and its WAL, taken before this
    open) since it last passed: the check costs ~40 ms on a 10 MB index, as much as the
    rest of a CLI query, and agents run queries in loops over an index nobody writes.
    Damage a check would have missed still surfaces as an error and is rebuilt then.
    """
    fingerprint = _fingerprint(path)
    _create(path)
    try:
        conn = open_db(path, MIGRATIONS, check_same_thread=False, synchronous="OFF")
    except sqlite3.DatabaseError:
        conn = None
    if conn is not None:
        try:
            conn.execute("SELECT spans FROM refs LIMIT 0")
            conn.execute("SELECT ref_names FROM files LIMIT 0")
            conn.execute("SELECT name, container, dup FROM symbols LIMIT 0")
            conn.execute("SELECT facts FROM imports LIMIT 0")
            conn.execute("SELECT buffer_owner FROM files LIMIT 0")
            if (path.stat().st_size > QUICK_CHECK_MAX_BYTES
                    or _checked_unchanged(path, fingerprint)):
                return conn
            if quick_check(conn) is None:
                _remember_checked(path, fingerprint)
                return conn
            import logging  # only to say so: a query must not pay its import

            logging.getLogger(__name__).warning("%s is damaged; rebuilding the index", path)
        except sqlite3.DatabaseError:
            pass
        conn.close()
    discard(path)
    _create(path)
    return open_db(path, MIGRATIONS, check_same_thread=False, synchronous="OFF")
