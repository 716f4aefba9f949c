"""Folding Claude Code transcripts into the ledger: exact prices, each call once."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from codekeep.ledger import Ledger
from codekeep.ledger.fold import FoldBudget, fold_claude_code, fold_unfinished
from tests.ledger.transcripts import (
    SESSION,
    append,
    assistant,
    read_result,
    read_use,
    user,
    write,
)

TASK = f"claude-code:{SESSION}"


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    return tmp_path / "projects" / "-proj" / f"{SESSION}.jsonl"


def total(ledger: Ledger) -> dict[str, float]:
    return ledger.report(task_id=TASK)["total"]  # type: ignore[no-any-return]


def test_one_hour_cache_writes_are_priced_at_twice_the_input(transcript: Path,
                                                             ledger: Ledger) -> None:
    # Claude Code writes its prompt cache with the 1-hour lifetime; pricing those writes
    # at the 5-minute 1.25x booked such sessions about 22 % low.
    write(transcript, [user("fix it"),
                       assistant("msg_1", fresh=10, write_1h=3000, output=100),
                       assistant("msg_2", fresh=10, read=3000, write_1h=1000, output=100)])
    assert fold_claude_code(ledger, transcript).calls == 2
    expected = (20 * 3.0 + 4000 * 6.0 + 3000 * 0.30 + 200 * 15.0) / 1e6
    assert total(ledger)["costUsd"] == pytest.approx(expected, rel=1e-9)


def test_five_minute_and_one_hour_writes_in_one_call_each_keep_their_rate(
        transcript: Path, ledger: Ledger) -> None:
    write(transcript, [assistant("msg_1", fresh=120, read=3000, write_5m=200, write_1h=1500,
                                 output=40)])
    fold_claude_code(ledger, transcript)
    assert total(ledger)["costUsd"] == pytest.approx(
        (120 * 3 + 3000 * 0.3 + 200 * 3.75 + 1500 * 6 + 40 * 15) / 1e6, rel=1e-9)


def test_thinking_searches_fast_mode_and_us_inference_are_billed_as_claude_code_does(
        transcript: Path, ledger: Ledger) -> None:
    write(transcript, [
        assistant("msg_1", fresh=1000, output=500, thinking=300, searches=2),
        assistant("msg_2", model="claude-opus-4-6", fresh=1000, output=100, speed="fast"),
        assistant("msg_3", fresh=1000, output=100, geo="us"),
    ])
    fold_claude_code(ledger, transcript)
    sonnet = (1000 * 3 + 500 * 15) / 1e6 + 2 * 0.01
    opus_fast = (1000 * 30 + 100 * 150) / 1e6
    sonnet_us = (1000 * 3 + 100 * 15) / 1e6 * 1.1
    assert total(ledger)["costUsd"] == pytest.approx(sonnet + opus_fast + sonnet_us, rel=1e-9)
    assert total(ledger)["reasoningTokens"] == 300


def test_a_streamed_answer_is_one_call_at_its_final_output(transcript: Path,
                                                           ledger: Ledger) -> None:
    # Claude Code writes one entry per content block; the output grows between them.
    write(transcript, [
        assistant("msg_1", content=[{"type": "thinking", "thinking": "hm", "signature": "s"}],
                  fresh=50, write_1h=1000, output=3),
        assistant("msg_1", content=[{"type": "text", "text": "Reading."}], fresh=50,
                  write_1h=1000, output=9),
        assistant("msg_1", content=[read_use("toolu_1", "/proj/a.py")], fresh=50,
                  write_1h=1000, output=159),
    ])
    fold_claude_code(ledger, transcript)
    assert (total(ledger)["calls"], total(ledger)["outputTokens"]) == (1, 159)
    rows = {row["key"] for row in ledger.report(task_id=TASK)["rows"]}
    assert rows == {"read_code.file"}


def test_folding_twice_books_once_and_a_later_snapshot_books_only_its_growth(
        transcript: Path, ledger: Ledger) -> None:
    write(transcript, [assistant("msg_1", fresh=50, write_1h=1000, output=9)])
    assert fold_claude_code(ledger, transcript).calls == 1
    again = fold_claude_code(ledger, transcript)
    assert (again.calls, again.grown) == (0, 0)
    append(transcript, [assistant("msg_1", content=[read_use("t", "/proj/a.py")], fresh=50,
                                  write_1h=1000, output=159)])
    grown = fold_claude_code(ledger, transcript)
    assert (grown.calls, grown.grown) == (0, 1)
    assert (total(ledger)["calls"], total(ledger)["outputTokens"],
            total(ledger)["inputTokens"]) == (1, 159, 1050)
    assert total(ledger)["costUsd"] == pytest.approx((50 * 3 + 1000 * 6 + 159 * 15) / 1e6)


def test_a_line_still_being_written_waits_for_the_next_fold(transcript: Path,
                                                            ledger: Ledger) -> None:
    line = json.dumps(assistant("msg_2", fresh=10, output=10))
    write(transcript, [assistant("msg_1", fresh=10, output=10)], tail=line[:40])
    result = fold_claude_code(ledger, transcript)
    assert (result.calls, result.skipped) == (1, {})
    with transcript.open("a", encoding="utf-8") as handle:
        handle.write(line[40:] + "\n")
    assert fold_claude_code(ledger, transcript).calls == 1
    assert total(ledger)["calls"] == 2


def _session() -> list[dict[str, object]]:
    """A read, the calls that carry the file, and a streamed answer of three snapshots."""
    path = "a.py"
    return [
        user("what does a.py do?"),
        assistant("msg_1", content=[read_use("toolu_1", path)], fresh=5000, output=30),
        read_result("toolu_1", path, "def handler(event):\n    return event\n" * 40),
        assistant("msg_2", fresh=10, read=5000, write_1h=800, output=3),
        assistant("msg_2", content=[{"type": "text", "text": "It returns."}], fresh=10,
                  read=5000, write_1h=800, output=40),
        assistant("msg_2", content=[read_use("toolu_2", path)], fresh=10, read=5000,
                  write_1h=800, output=90),
        assistant("msg_3", fresh=10, read=5800, write_5m=300, output=30),
    ]


def _figures(ledger: Ledger) -> tuple[Any, ...]:
    report = ledger.report(task_id=TASK)
    return (report["total"]["calls"], report["total"]["inputTokens"],
            report["total"]["outputTokens"], round(report["total"]["costUsd"], 9),
            sorted((row["path"], row["calls"], row["tokens"]) for row in report["byFile"]))


def test_a_budgeted_fold_goes_on_from_its_mark_and_books_the_same_as_one_fold(
        transcript: Path, tmp_path: Path, open_ledger) -> None:  # type: ignore[no-untyped-def]
    whole = open_ledger(root=tmp_path / "whole")
    parts = open_ledger(root=tmp_path / "parts")
    write(transcript, _session())
    fold_claude_code(whole, transcript)
    one_line = FoldBudget(seconds=60, max_bytes=1)  # each fold reads one whole line
    folds = [fold_claude_code(parts, transcript, one_line) for _ in range(6)]
    assert [fold.complete for fold in folds] == [False] * 6
    assert parts.unfinished_logs() == [(str(transcript.resolve()), "claude-code")]
    last = fold_unfinished(parts, None)  # what the server's poll does with the rest
    assert last.complete and parts.unfinished_logs() == []
    assert sum(fold.calls for fold in [*folds, last]) == 3  # the streamed answer once
    assert _figures(parts) == _figures(whole)
    assert [(path, calls) for path, calls, _ in _figures(parts)[4]] == [("a.py", 2)]
    assert fold_claude_code(parts, transcript, one_line).calls == 0


def test_a_rewritten_or_truncated_transcript_is_read_again_without_double_booking(
        transcript: Path, ledger: Ledger) -> None:
    write(transcript, [assistant("msg_1", output=10), assistant("msg_2", output=10)])
    fold_claude_code(ledger, transcript)
    write(transcript, [assistant("msg_1", output=10)])  # truncated
    assert fold_claude_code(ledger, transcript).calls == 0
    write(transcript, [user("again"), assistant("msg_1", output=10),
                       assistant("msg_3", output=10)])  # rewritten, one new call
    assert fold_claude_code(ledger, transcript).calls == 1
    assert total(ledger)["calls"] == 3


def test_sub_agents_are_booked_with_their_own_model(transcript: Path, ledger: Ledger) -> None:
    write(transcript, [assistant("msg_1", output=10)])
    write(transcript.with_suffix("") / "subagents" / "agent-a1.jsonl", [
        assistant("msg_s1", model="claude-haiku-4-5-20251001", sidechain=True, agent="a1",
                  fresh=1000, write_5m=2000, output=100)])
    assert fold_claude_code(ledger, transcript).calls == 2
    rows = {row["key"]: row for row in ledger.report(task_id=TASK, group_by="model")["rows"]}
    assert rows["claude-haiku-4-5-20251001"]["costUsd"] == pytest.approx(
        (1000 * 1 + 2000 * 1.25 + 100 * 5) / 1e6)


def _fold_in_process(root: str, transcript: str) -> int:
    ledger = Ledger.open(Path(root), start_flusher=False)
    try:
        return fold_claude_code(ledger, Path(transcript)).calls
    finally:
        ledger.close()


def test_two_hooks_folding_at_once_book_each_call_once(transcript: Path, tmp_path: Path) -> None:
    write(transcript, [assistant(f"msg_{n}", output=10 + n) for n in range(200)])
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        booked = pool.starmap(_fold_in_process, [(str(tmp_path), str(transcript))] * 2)
    assert sorted(booked) == [0, 200]
    with Ledger.open(tmp_path, start_flusher=False) as ledger:
        assert total(ledger)["calls"] == 200


def test_files_read_cost_until_the_context_is_compacted(transcript: Path, tmp_path: Path,
                                                        open_ledger) -> None:  # type: ignore[no-untyped-def]
    from tests.ledger.transcripts import compact_boundary

    ledger = open_ledger(root=tmp_path / "proj")
    text = "def handler(event):\n    return event['body']\n" * 40
    write(transcript, [
        user("what does a.py do?"),
        assistant("msg_1", content=[read_use("toolu_1", str(tmp_path / "proj" / "a.py"))],
                  fresh=5000, output=30),
        read_result("toolu_1", str(tmp_path / "proj" / "a.py"), text),
        assistant("msg_2", fresh=10, read=5000, write_1h=800, output=30),
        assistant("msg_3", fresh=10, read=5800, output=30),
        compact_boundary(),
        assistant("msg_4", fresh=2000, output=30),
    ])
    fold_claude_code(ledger, transcript)
    report = ledger.report(task_id=TASK)
    files = {row["path"]: row for row in report["byFile"]}
    assert set(files) == {"a.py"}
    assert files["a.py"]["calls"] == 2  # the two calls after the read, not after compaction
    assert ledger.report(task_id=TASK)["rereads"]["files"] == []
    # the file's share of each call's input cost: most of that input is a cache read
    assert 0 < files["a.py"]["costUsd"] < report["total"]["costUsd"]


def test_an_unknown_model_is_booked_unpriced_with_a_warning(transcript: Path,
                                                            ledger: Ledger) -> None:
    from codekeep.ledger.reports import render_text

    write(transcript, [assistant("msg_1", output=10),
                       assistant("msg_2", model="claude-nova-9", fresh=5000, output=500)])
    fold_claude_code(ledger, transcript)
    report = ledger.report(task_id=TASK, group_by="model")
    assert report["unpriced"] == [{"model": "claude-nova-9", "calls": 1}]
    assert report["total"]["unpricedCalls"] == 1
    assert any(w["kind"] == "unpriced" and "claude-nova-9" in w["text"]
               for w in report["warnings"])
    text = render_text(report)
    rows = {line.split()[0]: line for line in text.splitlines() if line.startswith("claude-")}
    assert "unpriced" in rows["claude-nova-9"] and "0.0000" not in rows["claude-nova-9"]
    assert ">=" in next(line for line in text.splitlines() if line.startswith("total"))


def test_api_errors_in_a_transcript_are_error_events(transcript: Path, ledger: Ledger) -> None:
    from tests.ledger.transcripts import api_error

    write(transcript, [assistant("msg_1", output=10),
                       api_error("API Error: Connection error.", ts="2026-12-01T10:06:00.000Z"),
                       api_error("API Error: 529 overloaded", ts="2026-12-01T10:07:00.000Z")])
    assert fold_claude_code(ledger, transcript).errors == 2
    assert fold_claude_code(ledger, transcript).errors == 0
    report = ledger.report(task_id=TASK)
    assert report["total"]["calls"] == 1
    assert report["errors"] == {"total": 2, "byKind": {"connection": 1, "api": 1},
                                "text": "1 failed connection, 1 API error"}
