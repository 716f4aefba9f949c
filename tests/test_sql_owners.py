"""Each database has one owner: SQL text and raw connections appear only in store modules.

A statement against ``memory.db`` outside ``codekeep/memory/store/`` (or against the
index outside ``analysis/store.py``, the ledger outside ``ledger/store.py`` ...) is
knowledge of the schema spelled twice; this test finds SQL literals and ``.conn`` uses
anywhere else in the package.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import codekeep

PACKAGE = Path(codekeep.__file__).parent
SQL = re.compile(
    r"^\s*(SELECT\s|INSERT\s+(OR\s+\w+\s+)?INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s"
    r"|CREATE\s|DROP\s|PRAGMA\s|BEGIN\b|COMMIT\b|ROLLBACK\b|VACUUM\b)"
)
# Besides each area's store (``<area>/store.py`` or a ``<area>/store/`` package) and its
# schema (``<area>/schema.py``), only these may hold SQL:
OWNERS = {
    "common/sqlite.py",  # open_db: connection settings and migrations for every store
    "common/salvage.py",  # repairing any damaged store file, table by table, by rowid
    "tools/audit.py",  # the audit log is its own small database
    "analysis/factcache.py",  # so is the facts cache shared by every checkout
    "analysis/factshare.py",  # and the one-file export of its entries
    "embeddings/vector_cache.py",  # and the local model's vectors shared by every checkout
    "testing/postgres.py",  # the tests' throw-away PostgreSQL: CREATE DATABASE per test
}


def _owner(relative: str) -> bool:
    parts = relative.split("/")
    return (
        relative in OWNERS
        or parts[-1] in ("store.py", "schema.py")
        or (len(parts) > 2 and parts[-2] == "store")
    )


def _sql_uses(path: Path) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.match(node.value):
            lines.append(node.lineno)
        elif isinstance(node, ast.JoinedStr) and node.values:
            head = node.values[0]
            if isinstance(head, ast.Constant) and SQL.match(str(head.value)):
                lines.append(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr == "conn":
            lines.append(node.lineno)
    return sorted(set(lines))


def test_sql_lives_only_in_the_store_modules() -> None:
    offenders = {
        relative: lines
        for path in PACKAGE.rglob("*.py")
        if not _owner(relative := path.relative_to(PACKAGE).as_posix())
        and (lines := _sql_uses(path))
    }
    assert offenders == {}


def test_the_detector_sees_sql_outside_a_store(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        'def f(store, conn, x):\n'
        '    store.conn.execute("SELECT 1")\n'
        '    conn.execute(f"UPDATE memories SET kind = {x}")\n'
        '    return "UPDATE"  # an action name, not SQL\n'
    )
    assert _sql_uses(sample) == [2, 3]
