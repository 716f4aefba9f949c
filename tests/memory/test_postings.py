"""Ranking from kept posting lists equals FTS5's own BM25 ranking, to the last bit, and
stays equal through every write: new, changed, archived, restored and purged memories
on this connection, and any commit by another connection."""

from __future__ import annotations

import random
import sqlite3

import pytest

from codekeep.memory import MemoryService
from codekeep.memory.model import RECALLABLE_STATUSES
from codekeep.memory.store import MemoryFilter, postings
from codekeep.memory.write import LIVE_STATUSES, new_id

WORDS = [
    "cache", "retry", "timeout", "parser", "config", "billing", "invoice", "payment",
    "queue", "worker", "schema", "migration", "index", "token", "budget", "ledger",
    "caching", "cached", "retries",
]


def _row(rng: random.Random, number: int, kind: str = "fact", status: str = "active") -> dict:
    words = rng.choices(WORDS, k=rng.randrange(3, 14))
    return {
        "id": new_id("project"), "kind": kind, "status": status, "scope": "project",
        "key": f"topic.{rng.choice(WORDS)}" if number % 5 == 0 else None, "value": None,
        "content": " ".join(words), "fingerprint": f"fp{number}", "importance": 5,
        "confidence": 1.0, "source": "agent", "evidence": None, "support_count": 1,
        "access_count": 0, "created_at": 0.0, "last_seen_at": 0.0,
        "last_accessed_at": None, "expires_at": None, "superseded_by": None, "task_id": None,
    }


def _fts5(service: MemoryService, words: list[str], kinds=None, limit=30):
    """The same search answered by FTS5 itself: inside a transaction, the search does not
    use the kept lists."""
    conn = service.project.conn
    conn.execute("BEGIN")
    try:
        return service.project.search.text(" ".join(words), RECALLABLE_STATUSES, kinds, limit)
    finally:
        conn.execute("COMMIT")


def _kept(service: MemoryService, words: list[str], kinds=None, limit=30):
    return service.project.search.text(" ".join(words), RECALLABLE_STATUSES, kinds, limit)


def _queries(rng: random.Random, count: int) -> list[list[str]]:
    return [rng.sample(WORDS, rng.randrange(1, 5)) for _ in range(count)]


def _assert_same(service: MemoryService, rng: random.Random, count: int = 40) -> None:
    for words in _queries(rng, count):
        for kinds in (None, ["summary"]):
            kept = _kept(service, words, kinds)
            assert kept == _fts5(service, words, kinds), (words, kinds)


@pytest.fixture
def filled(service: MemoryService) -> MemoryService:
    rng = random.Random(3)
    with service.project.transaction():
        for number in range(600):
            kind = "summary" if number % 9 == 0 else "fact"
            status = "observed" if number % 13 == 0 else "active"
            service.project.insert(_row(rng, number, kind, status), [], [])
    return service


def test_kept_lists_rank_exactly_as_fts5(filled: MemoryService) -> None:
    """Ids, order and bm25 values equal (ties by rowid, as FTS5's ORDER BY rank LIMIT);
    observed rows are in the index but never returned; a kind filter is exact."""
    rng = random.Random(5)
    _assert_same(filled, rng, 80)
    found = _kept(filled, ["cache", "timeout"])
    assert len(found) == 30 and [s for _, s in found] == sorted(s for _, s in found)
    statuses = {m.status for m in filled.project.load_many([i for i, _ in found])}
    assert statuses == {"active"}


def test_kept_lists_follow_every_write_on_this_connection(filled: MemoryService) -> None:
    rng = random.Random(7)
    store = filled.project
    _assert_same(filled, rng)  # every word's list is kept now
    with store.transaction():
        for number in range(600, 640):
            store.insert(_row(rng, number), [], [])
    _assert_same(filled, rng)
    some = store.ids(MemoryFilter(statuses=("active",)), limit=60)
    with store.transaction():
        for memory_id in some[:20]:
            store.update(memory_id, content="parser parser parser invoice")
        store.transition(MemoryFilter(ids=some[20:40]), "ARCHIVE", 1.0, status="archived")
        store.update(some[40], key="topic.billing")
    _assert_same(filled, rng)
    with store.transaction():
        store.transition(MemoryFilter(ids=some[20:30]), "RESTORE", 2.0, status="active")
    store.purge(some[45:55], 3.0)
    _assert_same(filled, rng)


def test_a_write_rolled_back_changes_nothing(filled: MemoryService) -> None:
    rng = random.Random(9)
    store = filled.project
    _assert_same(filled, rng)
    before = _kept(filled, ["cache"])
    with pytest.raises(RuntimeError), store.transaction():
        store.insert(_row(rng, 9999), [], [])
        raise RuntimeError("rolled back")
    assert _kept(filled, ["cache"]) == before
    _assert_same(filled, rng)


def test_a_commit_by_another_connection_is_seen(filled: MemoryService) -> None:
    rng = random.Random(11)
    _assert_same(filled, rng)
    before = _kept(filled, ["ledger"])
    other = sqlite3.connect(filled.project.path)
    try:
        row = _row(rng, 10_000)
        row["content"] = "ledger ledger ledger ledger"
        other.execute(
            f"INSERT INTO memories ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
            list(row.values()),
        )
        other.commit()
    finally:
        other.close()
    after = _kept(filled, ["ledger"])
    assert after != before and after[0][0] == row["id"]
    _assert_same(filled, rng)


def test_words_the_tokenizer_splits_or_stems_rank_as_fts5(filled: MemoryService) -> None:
    """'caching'/'cached' stem to the same term (two phrases, as FTS5 counts them);
    'http_client' is a two-token phrase, which FTS5 itself ranks."""
    store = filled.project
    with store.transaction():
        for number, text in enumerate(["the http_client retries", "http client cache"]):
            row = _row(random.Random(number), 20_000 + number)
            row["content"] = text
            store.insert(row, [], [])
    for words in (["caching", "cached", "cache"], ["http_client", "retries"], ["http_client"]):
        assert _kept(filled, words) == _fts5(filled, words)
    assert _kept(filled, ["http_client"])[0][1] < 0


def test_the_write_path_search_inside_its_transaction_sees_its_own_rows(
    filled: MemoryService,
) -> None:
    """A search inside a write transaction goes to FTS5, which sees the rows written so
    far in it (the kept lists catch up after the commit)."""
    store = filled.project
    store.search.text("budget", LIVE_STATUSES, None, 5)  # the list for "budget" is kept
    with store.transaction():
        row = _row(random.Random(1), 1)
        row["content"] = "budget budget budget budget budget"
        store.insert(row, [], [])
        inside = store.search.text("budget", LIVE_STATUSES, None, 5)
    assert inside[0][0] == row["id"]
    assert store.search.text("budget", LIVE_STATUSES, None, 5) == inside


def test_a_common_word_is_ranked_by_fts5_once_then_from_its_kept_list(
    filled: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-off query costs what FTS5's ranking costs (the CLI asks one query per
    process); from a common word's second use on, no FTS5 MATCH runs at all."""
    monkeypatch.setattr(postings, "READ_AT_ONCE", 10)
    _kept(filled, ["parser"])  # a process's first ranking is FTS5's (tests/cli/test_startup.py)
    traced: list[str] = []
    filled.project.conn.set_trace_callback(traced.append)
    uses = [_kept(filled, ["timeout", "parser"]) for _ in range(3)]
    filled.project.conn.set_trace_callback(None)
    matches = [s for s in traced if "MATCH" in s and not s.startswith("--")]
    assert len(matches) == 1 and uses[0] == uses[1] == uses[2]
    assert uses[0] == _fts5(filled, ["timeout", "parser"])


def test_lists_over_the_memory_bound_are_dropped_and_read_again(
    filled: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With room for fewer postings than the queries need, the least recently used lists
    are dropped and read again when asked for: the answers stay FTS5's."""
    monkeypatch.setattr(postings, "MAX_POSTINGS", 300)
    rng = random.Random(13)
    _assert_same(filled, rng, 30)
    with filled.project.transaction():
        for number in range(700, 720):
            filled.project.insert(_row(rng, number), [], [])
    _assert_same(filled, rng, 30)
