"""The code map's memo of answers: kept while the index version stays, all forgotten
when it moves, the least recently asked dropped first when full."""

from __future__ import annotations

from codekeep.analysis.memo import IndexMemo


def test_answers_are_kept_per_version_and_bounded() -> None:
    computed: list[str] = []
    memo: IndexMemo[str, str] = IndexMemo(capacity=2)

    def ask(version: int, key: str) -> str:
        def compute() -> str:
            computed.append(f"{key}@{version}")
            return f"{key}@{version}"
        return memo.get(version, key, compute)

    assert [ask(1, "a"), ask(1, "b"), ask(1, "a")] == ["a@1", "b@1", "a@1"]
    assert computed == ["a@1", "b@1"]  # asked again: kept
    ask(1, "c")  # full: b, the least recently asked, goes
    assert ask(1, "a") == "a@1" and computed == ["a@1", "b@1", "c@1"]
    assert ask(1, "b") == "b@1" and computed[-1] == "b@1"
    assert ask(2, "a") == "a@2"  # the index was written: nothing kept is trusted
    assert computed[-1] == "a@2"
