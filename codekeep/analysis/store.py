"""The SQLite side of the code map: ``.codekeep/index.db``.

Layout choices that keep the file small (target: <= 1 MB per 50k lines): names and
reference kinds are interned in ``names``; UTF-16 columns and end lines are NULL when
they equal the byte column / start line (true for almost all code), and NULLs cost
nothing in a SQLite record. The index is a rebuildable cache, so it uses
``synchronous=OFF`` during bulk writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from codekeep.analysis.extract import FileFacts, ImportFact, RefFact, Span, SymbolFact
from codekeep.analysis.model import Position, Range, Reference, Symbol
from codekeep.analysis.parsing import FileResult
from codekeep.common.sqlite import open_db

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
        status TEXT NOT NULL
    );
    CREATE TABLE names(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
    CREATE TABLE symbols(
        id INTEGER PRIMARY KEY,
        file_id INTEGER NOT NULL,
        qual TEXT NOT NULL,
        name_id INTEGER NOT NULL,
        kind TEXT NOT NULL,
        container TEXT,
        signature TEXT NOT NULL,
        line INTEGER NOT NULL, col INTEGER NOT NULL, ucol INTEGER,
        end_line INTEGER NOT NULL, end_col INTEGER NOT NULL, end_ucol INTEGER,
        name_line INTEGER NOT NULL, name_col INTEGER NOT NULL, name_ucol INTEGER,
        name_end_col INTEGER NOT NULL, name_end_ucol INTEGER
    );
    CREATE UNIQUE INDEX symbols_by_file ON symbols(file_id, qual);
    CREATE INDEX symbols_by_name ON symbols(name_id);
    CREATE TABLE refs(
        id INTEGER PRIMARY KEY,
        file_id INTEGER NOT NULL,
        name_id INTEGER NOT NULL,
        kind_id INTEGER NOT NULL,
        line INTEGER NOT NULL,
        col INTEGER NOT NULL,
        end_col INTEGER NOT NULL,
        ucol INTEGER,
        end_ucol INTEGER,
        end_line INTEGER
    );
    CREATE INDEX refs_by_name ON refs(name_id);
    CREATE INDEX refs_by_file ON refs(file_id);
    CREATE TABLE imports(
        file_id INTEGER NOT NULL,
        module TEXT NOT NULL,
        name TEXT,
        alias TEXT,
        line INTEGER NOT NULL
    );
    CREATE INDEX imports_by_file ON imports(file_id);
    """,
)

_SYMBOL_COLUMNS = (
    "s.id, f.path, f.language, s.qual, n.name, s.kind, s.container, s.signature, "
    "s.line, s.col, s.ucol, s.end_line, s.end_col, s.end_ucol, "
    "s.name_line, s.name_col, s.name_ucol, s.name_end_col, s.name_end_ucol"
)
SYMBOL_SELECT = (
    f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id "
    "JOIN names n ON n.id = s.name_id"
)
REF_SELECT = (
    "SELECT f.path, n.name, k.name, r.line, r.col, r.ucol, r.end_line, r.end_col, r.end_ucol "
    "FROM refs r JOIN files f ON f.id = r.file_id JOIN names n ON n.id = r.name_id "
    "JOIN names k ON k.id = r.kind_id"
)


def _or_null(value: int, same: int) -> int | None:
    return None if value == same else value


def _pos(line: int, col: int, ucol: int | None) -> Position:
    return Position(line, col, col if ucol is None else ucol)


def symbol_from_row(row: Sequence) -> Symbol:
    (_id, path, language, qual, name, kind, container, signature,
     line, col, ucol, end_line, end_col, end_ucol,
     name_line, name_col, name_ucol, name_end_col, name_end_ucol) = row
    return Symbol(
        id=f"{path}::{qual}", name=name, kind=kind, path=path, language=language,
        container=container, signature=signature,
        range=Range(_pos(line, col, ucol), _pos(end_line, end_col, end_ucol)),
        selection_range=Range(
            _pos(name_line, name_col, name_ucol), _pos(name_line, name_end_col, name_end_ucol)
        ),
    )


@dataclass(frozen=True, slots=True)
class RefRow:
    """A reference as stored, before deciding how sure we are of its target."""

    file_id: int
    path: str
    name: str
    kind: str
    range: Range

    def as_reference(self, symbol_id: str | None, confident: bool) -> Reference:
        return Reference(
            self.path, self.range, symbol_id, self.name, self.kind,
            "resolved" if confident else "name",
        )


@dataclass(frozen=True, slots=True)
class FileRow:
    id: int
    path: str
    language: str
    size: int
    mtime_ns: int
    hash: str
    status: str


class IndexStore:
    """One connection to index.db, used from one thread (the code map's lock guards it)."""

    def __init__(self, path: Path | str):
        self.conn = open_db(path, MIGRATIONS, check_same_thread=False, synchronous="OFF")
        self._names: dict[str, int] | None = None

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if self.conn.in_transaction:  # nested: the outer transaction decides
            yield
            return
        self.conn.execute("BEGIN")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            self._names = None  # ids handed out inside the rolled-back transaction are gone
            raise
        self.conn.execute("COMMIT")

    # ---- names ---------------------------------------------------------------
    def _name_ids(self) -> dict[str, int]:
        if self._names is None:
            self._names = {name: i for i, name in self.conn.execute("SELECT id, name FROM names")}
        return self._names

    def name_id(self, name: str, create: bool = True) -> int | None:
        names = self._name_ids()
        found = names.get(name)
        if found is None and create:
            cursor = self.conn.execute("INSERT INTO names(name) VALUES (?)", (name,))
            found = names[name] = int(cursor.lastrowid or 0)
        return found

    # ---- files ---------------------------------------------------------------
    def files(self) -> dict[str, FileRow]:
        rows = self.conn.execute(
            "SELECT id, path, language, size, mtime_ns, hash, status FROM files"
        )
        return {row[1]: FileRow(*row) for row in rows}

    def file(self, path: str) -> FileRow | None:
        row = self.conn.execute(
            "SELECT id, path, language, size, mtime_ns, hash, status FROM files WHERE path = ?",
            (path,),
        ).fetchone()
        return FileRow(*row) if row else None

    def file_path(self, file_id: int) -> str | None:
        row = self.conn.execute("SELECT path FROM files WHERE id = ?", (file_id,)).fetchone()
        return row[0] if row else None

    def touch(self, file_id: int, size: int, mtime_ns: int) -> None:
        self.conn.execute(
            "UPDATE files SET size = ?, mtime_ns = ? WHERE id = ?", (size, mtime_ns, file_id)
        )

    def upsert_file(self, result: FileResult) -> int:
        existing = self.file(result.rel)
        values = (result.language, result.size, result.mtime_ns, result.hash, result.lines,
                  result.status)
        if existing is None:
            cursor = self.conn.execute(
                "INSERT INTO files(path, language, size, mtime_ns, hash, lines, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)", (result.rel, *values),
            )
            return int(cursor.lastrowid or 0)
        self.conn.execute(
            "UPDATE files SET language = ?, size = ?, mtime_ns = ?, hash = ?, lines = ?, "
            "status = ? WHERE id = ?", (*values, existing.id),
        )
        return existing.id

    def delete_file(self, file_id: int) -> None:
        self.clear_facts(file_id)
        self.conn.execute("DELETE FROM files WHERE id = ?", (file_id,))

    def rename_file(self, file_id: int, new_path: str) -> None:
        self.conn.execute("DELETE FROM files WHERE path = ?", (new_path,))
        self.conn.execute("UPDATE files SET path = ? WHERE id = ?", (new_path, file_id))

    # ---- facts ---------------------------------------------------------------
    def clear_facts(self, file_id: int) -> None:
        for table in ("symbols", "refs", "imports"):
            self.conn.execute(f"DELETE FROM {table} WHERE file_id = ?", (file_id,))

    def _symbol_row(self, file_id: int, s: SymbolFact) -> tuple:
        span, name = s.span, s.name_span
        return (
            file_id, s.qual, self.name_id(s.name), s.kind, s.container, s.signature,
            span.line, span.col, _or_null(span.ucol, span.col),
            span.end_line, span.end_col, _or_null(span.end_ucol, span.end_col),
            name.line, name.col, _or_null(name.ucol, name.col),
            name.end_col, _or_null(name.end_ucol, name.end_col),
        )

    def _ref_row(self, file_id: int, r: RefFact) -> tuple:
        span = r.span
        return (
            file_id, self.name_id(r.name), self.name_id(r.kind), span.line, span.col,
            span.end_col, _or_null(span.ucol, span.col), _or_null(span.end_ucol, span.end_col),
            _or_null(span.end_line, span.line),
        )

    def insert_symbols(self, file_id: int, symbols: Iterable[SymbolFact]) -> None:
        self.conn.executemany(
            "INSERT INTO symbols(file_id, qual, name_id, kind, container, signature, "
            "line, col, ucol, end_line, end_col, end_ucol, "
            "name_line, name_col, name_ucol, name_end_col, name_end_ucol) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [self._symbol_row(file_id, s) for s in symbols],
        )

    def insert_refs(self, file_id: int, refs: Iterable[RefFact]) -> None:
        self.conn.executemany(
            "INSERT INTO refs(file_id, name_id, kind_id, line, col, end_col, ucol, end_ucol, "
            "end_line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [self._ref_row(file_id, r) for r in refs],
        )

    def insert_imports(self, file_id: int, imports: Iterable[ImportFact]) -> None:
        self.conn.executemany(
            "INSERT INTO imports(file_id, module, name, alias, line) VALUES (?, ?, ?, ?, ?)",
            [(file_id, *i) for i in imports],
        )

    def write_facts(self, file_id: int, facts: FileFacts) -> None:
        self.clear_facts(file_id)
        self.insert_symbols(file_id, facts.symbols)
        self.insert_refs(file_id, facts.refs)
        self.insert_imports(file_id, facts.imports)

    def delete_symbols(self, file_id: int, quals: Iterable[str]) -> None:
        self.conn.executemany(
            "DELETE FROM symbols WHERE file_id = ? AND qual = ?", [(file_id, q) for q in quals]
        )

    def delete_refs(self, file_id: int, refs: Iterable[RefFact]) -> None:
        self.conn.executemany(
            "DELETE FROM refs WHERE file_id = ? AND line = ? AND col = ? AND name_id = ? "
            "AND kind_id = ?",
            [(file_id, r.span.line, r.span.col, self.name_id(r.name), self.name_id(r.kind))
             for r in refs],
        )

    def replace_imports(self, file_id: int, imports: Iterable[ImportFact]) -> None:
        self.conn.execute("DELETE FROM imports WHERE file_id = ?", (file_id,))
        self.insert_imports(file_id, imports)

    def read_facts(self, file_id: int) -> FileFacts:
        """The stored facts of one file, comparable with freshly extracted ones."""
        symbols = []
        for row in self.conn.execute(
            "SELECT s.qual, n.name, s.kind, s.container, s.signature, s.line, s.col, s.ucol, "
            "s.end_line, s.end_col, s.end_ucol, s.name_line, s.name_col, s.name_ucol, "
            "s.name_end_col, s.name_end_ucol FROM symbols s JOIN names n ON n.id = s.name_id "
            "WHERE s.file_id = ? ORDER BY s.line, s.col, s.id", (file_id,),
        ):
            (qual, name, kind, container, signature, line, col, ucol, end_line, end_col,
             end_ucol, name_line, name_col, name_ucol, name_end_col, name_end_ucol) = row
            symbols.append(SymbolFact(
                qual, name, kind, container, signature,
                Span(line, col, _nn(ucol, col), end_line, end_col, _nn(end_ucol, end_col)),
                Span(name_line, name_col, _nn(name_ucol, name_col), name_line, name_end_col,
                     _nn(name_end_ucol, name_end_col)),
            ))
        refs = [
            RefFact(name, kind, Span(line, col, _nn(ucol, col), _nn(end_line, line), end_col,
                                     _nn(end_ucol, end_col)))
            for name, kind, line, col, ucol, end_line, end_col, end_ucol in self.conn.execute(
                "SELECT n.name, k.name, r.line, r.col, r.ucol, r.end_line, r.end_col, "
                "r.end_ucol FROM refs r JOIN names n ON n.id = r.name_id "
                "JOIN names k ON k.id = r.kind_id WHERE r.file_id = ? ORDER BY r.line, r.col",
                (file_id,),
            )
        ]
        imports = [
            ImportFact(*row) for row in self.conn.execute(
                "SELECT module, name, alias, line FROM imports WHERE file_id = ? ORDER BY line",
                (file_id,),
            )
        ]
        return FileFacts(tuple(symbols), tuple(refs), tuple(imports))

    # ---- queries -------------------------------------------------------------
    def symbols_named(self, name: str) -> list[Symbol]:
        name_id = self.name_id(name, create=False)
        if name_id is None:
            return []
        rows = self.conn.execute(f"{SYMBOL_SELECT} WHERE s.name_id = ?", (name_id,))
        return [symbol_from_row(r) for r in rows]

    def symbol(self, path: str, qual: str) -> Symbol | None:
        row = self.conn.execute(
            f"{SYMBOL_SELECT} WHERE f.path = ? AND s.qual = ?", (path, qual)
        ).fetchone()
        return symbol_from_row(row) if row else None

    def symbols_in_file(self, path: str) -> list[Symbol]:
        rows = self.conn.execute(
            f"{SYMBOL_SELECT} WHERE f.path = ? ORDER BY s.line, s.col, s.end_line DESC", (path,)
        )
        return [symbol_from_row(r) for r in rows]

    def all_symbols(self) -> list[Symbol]:
        rows = self.conn.execute(f"{SYMBOL_SELECT} ORDER BY f.path, s.line, s.col")
        return [symbol_from_row(r) for r in rows]

    def refs_named(self, name: str) -> list[RefRow]:
        name_id = self.name_id(name, create=False)
        if name_id is None:
            return []
        return self._ref_rows("WHERE r.name_id = ?", (name_id,))

    def refs_in_file(self, path: str) -> list[RefRow]:
        return self._ref_rows("WHERE f.path = ? ORDER BY r.line, r.col", (path,))

    def _ref_rows(self, where: str, params: tuple) -> list[RefRow]:
        rows = self.conn.execute(
            "SELECT r.file_id, f.path, n.name, k.name, r.line, r.col, r.ucol, r.end_line, "
            "r.end_col, r.end_ucol FROM refs r JOIN files f ON f.id = r.file_id "
            f"JOIN names n ON n.id = r.name_id JOIN names k ON k.id = r.kind_id {where}",
            params,
        )
        return [
            RefRow(file_id, path, name, kind, Range(
                _pos(line, col, ucol), _pos(_nn(end_line, line), end_col, end_ucol)))
            for file_id, path, name, kind, line, col, ucol, end_line, end_col, end_ucol in rows
        ]

    def imports_by_file(self) -> dict[int, list[ImportFact]]:
        found: dict[int, list[ImportFact]] = {}
        for file_id, module, name, alias, line in self.conn.execute(
            "SELECT file_id, module, name, alias, line FROM imports"
        ):
            found.setdefault(file_id, []).append(ImportFact(module, name, alias, line))
        return found

    def symbol_name_counts(self) -> dict[str, int]:
        return {
            name: count for name, count in self.conn.execute(
                "SELECT n.name, COUNT(*) FROM symbols s JOIN names n ON n.id = s.name_id "
                "GROUP BY s.name_id"
            )
        }

    def counts(self) -> tuple[int, int, int, dict[str, int]]:
        files = self.conn.execute(
            "SELECT language, COUNT(*) FROM files WHERE status = 'indexed' GROUP BY language"
        ).fetchall()
        languages = {lang: n for lang, n in files}
        symbols = self.conn.execute("SELECT COUNT(*) FROM symbols").fetchone()[0]
        refs = self.conn.execute("SELECT COUNT(*) FROM refs").fetchone()[0]
        return sum(languages.values()), symbols, refs, languages

    def reference_edges(self) -> list[tuple[int, str, int]]:
        """(referencing file, referenced name, how often) for the repository graph."""
        return self.conn.execute(
            "SELECT r.file_id, n.name, COUNT(*) FROM refs r JOIN names n ON n.id = r.name_id "
            "GROUP BY r.file_id, r.name_id"
        ).fetchall()


def _nn(value: int | None, default: int) -> int:
    return default if value is None else value
