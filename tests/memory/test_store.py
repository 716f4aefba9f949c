"""The database itself: schema migrations and a search index that holds only live memories."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from codekeep.common.sqlite import open_db
from codekeep.memory import MemoryService
from codekeep.memory.schema import MIGRATIONS
from codekeep.memory.store import MemoryFilter
from codekeep.memory.store import search as search_module


def _fts_rows(service: MemoryService) -> int:
    return int(service.project.conn.execute("SELECT count(*) FROM memories_fts").fetchone()[0])


def test_index_drops_memories_that_stop_being_live(service: MemoryService) -> None:
    old = service.remember("use yarn")
    service.remember("don't use yarn")
    kept = service.remember("Renovate opens dependency PRs on Mondays")
    assert _fts_rows(service) == 2  # the superseded row left the index
    service.forget(kept.id or "")
    assert _fts_rows(service) == 1
    assert service.get(old.id or "") is not None  # still in the table for audit


def test_version_1_database_is_migrated_in_place(workspace: Path, tmp_path: Path) -> None:
    path = workspace / ".codekeep" / "memory.db"
    conn = open_db(path, MIGRATIONS[:1])
    for number, status in enumerate(("active", "superseded")):
        conn.execute(
            "INSERT INTO memories(id, kind, status, scope, content, fingerprint, importance, "
            "confidence, source, created_at, last_seen_at) "
            "VALUES (?, 'fact', ?, 'project', ?, ?, 5, 1.0, 'user', ?, ?)",
            (
                f"p00000000000{number}",
                status,
                f"legacy memory about kafka {status}",
                str(number),
                time.time(),
                time.time(),
            ),
        )
    conn.close()
    with MemoryService.open(workspace, user_dir=tmp_path / "user") as service:
        version = service.project.conn.execute("PRAGMA user_version").fetchone()[0]
        assert version == len(MIGRATIONS) == 4
        listed = service.list(statuses=["active", "superseded"])
        assert sorted(m.id for m in listed) == ["p000000000000", "p000000000001"]
        (hit,) = service.recall("kafka")
        assert hit.memory.id == "p000000000000"
        assert _fts_rows(service) == 1


def test_newer_schema_is_refused_without_touching_it(workspace: Path, tmp_path: Path) -> None:
    import pytest

    from codekeep.common.sqlite import SchemaTooNewError

    path = workspace / ".codekeep" / "memory.db"
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(SchemaTooNewError):
        MemoryService.open(workspace, user_dir=tmp_path / "user")
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 99


def test_kind_filter_finds_a_rare_kind_among_many_matches(service: MemoryService) -> None:
    for number in range(60):
        service.remember(f"deploy step {number} uploads bundle{number} to bucket{number}")
    note = service.remember("Deploy freezes start on Fridays", kind="insight")
    (hit,) = service.recall("deploy", kinds=["insight"], limit=1)
    assert hit.memory.id == note.id


def _bm25_ranking(service: MemoryService, query: str, limit: int) -> list[float]:
    """SQLite's own ranking of every live match of the query's words: the reference."""
    words = " OR ".join(f'"{w}"' for w in query.split())
    rows = service.project.conn.execute(
        "SELECT bm25(memories_fts, 1.0, 1.0, 0.0) AS rank FROM memories_fts "
        "WHERE memories_fts MATCH ? ORDER BY rank LIMIT ?",
        ("{content key} : (" + words + ")", limit),
    )
    return [round(rank, 4) for (rank,) in rows]


def test_words_in_most_memories_are_left_out_of_the_search_without_changing_it(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """BM25 gives a word in half of the memories or more no weight: the search skips it
    (its matches are most of a recall's time) and still ranks as SQLite would with it,
    falling back to the whole query when the other words find too few memories."""
    # from the first memory on (it takes 2,000 before skipping pays off)
    monkeypatch.setattr(search_module, "_FEW_MEMORIES", 0)
    for number in range(80):
        service.remember(f"deploy step {number} uploads bundle{number % 20} to bucket{number}")
    search = service.project.search
    statuses = ("active",)
    for query in ("deploy bundle7 bucket3", "deploy step bundle1", "deploy bucket5"):
        for limit in (3, 10):
            found = search.text(query, statuses, None, limit)
            assert [round(rank, 4) for _id, rank in found] == _bm25_ranking(service, query, limit)
    # "bucket5" alone finds one memory: the other nine of ten match "deploy" only
    assert len(search.text("deploy bucket5", statuses, None, 10)) == 10


def test_rows_are_selected_by_typed_filters_never_by_sql(service: MemoryService) -> None:
    fact = service.remember("The queue is FIFO", importance=3, task_id="t1", kind="fact")
    note = service.remember("Deploys happen on Fridays", kind="note", importance=9)
    store = service.project
    assert store.ids(MemoryFilter(kinds=("fact",))) == [fact.id]
    assert store.ids(MemoryFilter(task_id="t1")) == [fact.id]
    assert store.ids(MemoryFilter(other_than_task="t1")) == [note.id]  # no task is another task
    assert store.ids(MemoryFilter(ids=[]), limit=5) == []
    assert store.ids(MemoryFilter(), order="least_valuable") == [fact.id, note.id]
    assert store.count(MemoryFilter(statuses=("active",), scope="project")) == 2
    with pytest.raises(ValueError, match="not a column of memories"):
        store.update(fact.id or "", **{"status = 'disabled' WHERE 1 --": 1})
    unchanged = service.get(fact.id or "")
    assert unchanged is not None and unchanged.status == "active"
