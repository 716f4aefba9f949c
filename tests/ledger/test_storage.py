from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from codekeep.ledger import Ledger, LedgerSettings
from codekeep.settings.fields import structure
from tests.ledger.support import START, FakeClock, LedgerFactory

DAY = 86_400.0


def db_rows(root: Path, sql: str) -> list[tuple]:  # type: ignore[type-arg]
    with sqlite3.connect(root / ".codekeep" / "ledger.db") as conn:
        return conn.execute(sql).fetchall()


def test_records_are_buffered_until_flushed(ledger: Ledger, tmp_path: Path) -> None:
    ledger.record(task_id="t", call_type="plan", model="m", input_tokens=3)
    assert db_rows(tmp_path, "SELECT COUNT(*) FROM calls") == [(0,)]
    ledger.flush()
    assert db_rows(tmp_path, "SELECT COUNT(*) FROM calls") == [(1,)]


def test_background_flusher_writes_within_a_second(open_ledger: LedgerFactory,
                                                   tmp_path: Path) -> None:
    import time

    ledger = open_ledger(clock=time.time, start_flusher=True)
    ledger.record(task_id="t", call_type="plan", model="m", input_tokens=3)
    deadline = time.monotonic() + 5
    while db_rows(tmp_path, "SELECT COUNT(*) FROM calls") != [(1,)]:
        assert time.monotonic() < deadline, "record never flushed"
        time.sleep(0.05)


def test_roll_ups_match_the_raw_rows(ledger: Ledger, clock: FakeClock, tmp_path: Path) -> None:
    for day in range(3):
        for index in range(5):
            ledger.record(task_id=f"t{day}", call_type="read_code", model="gpt-4o",
                          input_tokens=100 + index, output_tokens=index, cached_tokens=index,
                          files={"a.py": 1, "b.py": 3})
        clock.advance(DAY)
    ledger.flush()
    raw = db_rows(tmp_path, "SELECT day, SUM(input_tokens), SUM(output_tokens), "
                            "SUM(cached_tokens), COUNT(*) FROM calls GROUP BY day ORDER BY day")
    for rollup in ("rollup_task", "rollup_day"):
        rolled = db_rows(tmp_path, "SELECT day, SUM(input_tokens), SUM(output_tokens), "
                                   f"SUM(cached_tokens), SUM(calls) FROM {rollup} "
                                   "GROUP BY day ORDER BY day")
        assert raw == rolled and len(rolled) == 3
    raw_files = db_rows(tmp_path, "SELECT f.key, SUM(json_extract(f.value, '$[1]')) "
                                  "FROM calls, json_each(calls.files) AS f GROUP BY f.key")
    # inputs 100..104 split 1:3 per day (largest remainder; the tie at 102 goes to a.py)
    assert raw_files == [("a.py", 3 * (25 + 25 + 26 + 26 + 26)),
                         ("b.py", 3 * (75 + 76 + 76 + 77 + 78))]
    for rollup in ("rollup_files", "rollup_task_files"):
        assert db_rows(tmp_path, f"SELECT path, SUM(tokens) FROM {rollup} GROUP BY path "
                                 "ORDER BY path") == raw_files


def test_old_raw_rows_are_compacted_but_reports_keep_their_totals(
        open_ledger: LedgerFactory, clock: FakeClock, tmp_path: Path) -> None:
    ledger = open_ledger(settings=LedgerSettings(retention_days=3))
    ledger.record(task_id="old", call_type="plan", model="gpt-4o", input_tokens=1000,
                  files={"a.py": 5})
    clock.advance(10 * DAY)
    ledger.record(task_id="new", call_type="plan", model="gpt-4o", input_tokens=10)
    ledger.flush()
    before = ledger.report(group_by="task")
    assert ledger.compact() == 1
    assert db_rows(tmp_path, "SELECT task_id FROM calls") == [("new",)]
    assert ledger.report(group_by="task") == before
    assert ledger.tokens_for_file("a.py") == 1000


def test_since_mid_day_reads_raw_rows_for_the_partial_day(
        ledger: Ledger, clock: FakeClock) -> None:
    ledger.record(task_id="t", call_type="plan", model="m", input_tokens=1)      # 10:00
    clock.advance(3 * 3600)
    ledger.record(task_id="t", call_type="plan", model="m", input_tokens=10,     # 13:00
                  files={"a.py": 1})
    clock.advance(DAY)
    ledger.record(task_id="t", call_type="plan", model="m", input_tokens=100)    # next day
    since = datetime.fromtimestamp(START + 3600, UTC)                             # 11:00
    assert ledger.report(since=since)["total"]["inputTokens"] == 110
    midnight = datetime.fromtimestamp(START - 10 * 3600, UTC)
    assert ledger.report(since=midnight)["total"]["inputTokens"] == 111
    assert ledger.tokens_for_file("a.py", since=since) == 10
    assert ledger.tokens_for_file("a.py", since=datetime.fromtimestamp(START + DAY, UTC)) == 0


def test_no_prompt_or_code_is_stored_by_default(ledger: Ledger, tmp_path: Path) -> None:
    ledger.record(task_id="t", call_type="read_code", model="gpt-4o",
                  prompt_text="def very_private_function(): pass", completion_text="fine",
                  files={"secret/module.py": 30})
    ledger.close()
    stored = b"".join(path.read_bytes() for path in (tmp_path / ".codekeep").glob("ledger.db*"))
    assert b"very_private_function" not in stored
    assert b"secret/module.py" in stored      # paths and counts only


def test_opted_in_content_is_stored_with_secrets_redacted(
        open_ledger: LedgerFactory, tmp_path: Path) -> None:
    ledger = open_ledger(settings=LedgerSettings(store_content=True))
    record = ledger.record(
        task_id="t", call_type="plan", model="gpt-4o",
        prompt_text="key sk-proj-abcdefghijklmnopqrstuvwxyz123456 and API_KEY = 'hunter2hunter2'"
                    " plus AKIAABCDEFGHIJKLMNOP for the plan",
        completion_text="Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123",
    )
    ledger.flush()
    (prompt, completion), = db_rows(tmp_path, "SELECT prompt_text, completion_text FROM calls")
    assert prompt == record.prompt_text
    assert "for the plan" in prompt
    for secret in ("sk-proj-abc", "hunter2", "AKIAABCDEFGHIJKLMNOP"):
        assert secret not in prompt
    assert "abcdefghijklmnopqrstuvwxyz0123" not in completion
    assert "[REDACTED:authorization header]" in completion


def test_record_after_close_is_refused(ledger: Ledger) -> None:
    ledger.close()
    with pytest.raises(RuntimeError, match="closed"):
        ledger.record(task_id="t", call_type="plan", model="m", input_tokens=1)


def test_a_newer_schema_is_refused_without_touching_data(tmp_path: Path) -> None:
    from codekeep.common.sqlite import SchemaTooNewError

    Ledger.open(tmp_path, start_flusher=False).close()
    with sqlite3.connect(tmp_path / ".codekeep" / "ledger.db") as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(SchemaTooNewError):
        Ledger.open(tmp_path, start_flusher=False)


def test_bad_settings_are_rejected() -> None:
    with pytest.raises(ValueError, match="retentionDays"):
        LedgerSettings(retention_days=0)
    with pytest.raises(ValueError, match="warnRatios"):
        LedgerSettings(warn_ratios=())


def test_editor_settings_object_becomes_ledger_settings() -> None:
    raw = {"retentionDays": 7, "storeContent": True, "warnRatios": [0.5, 0.9, 1.0],
           "models": [{"pattern": "my-*", "context_window": 4096, "input": 1, "output": 2}]}
    settings, problems = structure(LedgerSettings, raw, ("ledger",))
    assert problems == []
    assert (settings.retention_days, settings.store_content) == (7, True)
    assert settings.warn_ratios == (0.5, 0.9, 1.0)
    assert structure(LedgerSettings, None) == (LedgerSettings(), [])
    for bad, message in (({"retentionDays": "x"}, "retentionDays: must be a whole number"),
                         ({"colour": 1}, "colour: is not a setting"),
                         ({"warnRatios": 0.5}, "warnRatios: must be a list of numbers"),
                         ({"warnRatios": [0.5, -1]}, "warnRatios: must be more than 0"),
                         ([1], "ledger: must be an object")):
        settings, problems = structure(LedgerSettings, bad, ("ledger",))
        assert settings == LedgerSettings()  # the bad value is not taken
        assert message in str(problems[0]), problems


def test_settings_warn_ratios_drive_the_thresholds(open_ledger: LedgerFactory) -> None:
    ledger = open_ledger(settings=LedgerSettings(warn_ratios=(0.5, 0.9)))
    seen: list[float] = []
    ledger.subscribe(lambda event: seen.append(event.threshold))
    ledger.set_budget("t", limit=100)
    for _ in range(10):
        ledger.record(task_id="t", call_type="plan", model="m", input_tokens=10)
    assert seen == [0.5, 0.9]


def test_a_failing_write_loses_nothing_and_is_retried(ledger: Ledger, tmp_path: Path) -> None:
    events: list[float] = []
    ledger.subscribe(lambda event: events.append(event.threshold))
    ledger.set_budget("t", limit=100)
    with sqlite3.connect(tmp_path / ".codekeep" / "ledger.db") as conn:
        conn.execute("CREATE TRIGGER broken BEFORE INSERT ON calls "
                     "BEGIN SELECT RAISE(ABORT, 'disk trouble'); END")
    # the crossing write fails: record() still returns (the agent carries on) ...
    record = ledger.record(task_id="t", call_type="plan", model="m", input_tokens=90)
    assert record.input_tokens == 90 and events == []
    with pytest.raises(sqlite3.Error, match="disk trouble"):
        ledger.flush()                      # ... an explicit flush says what went wrong
    with sqlite3.connect(tmp_path / ".codekeep" / "ledger.db") as conn:
        conn.execute("DROP TRIGGER broken")
    ledger.flush()                          # ... and the next write stores everything
    assert ledger.report(task_id="t")["total"]["inputTokens"] == 90
    assert events == [0.75]


def test_an_older_ledger_learns_which_kept_calls_were_estimated(open_ledger: LedgerFactory,
                                                                tmp_path: Path) -> None:
    ledger = open_ledger()
    ledger.record(task_id="t", call_type="plan", model="m", input_tokens=10, output_tokens=1)
    ledger.record(task_id="t", call_type="plan", model="m", prompt_text="counted by us")
    ledger.close()
    with sqlite3.connect(tmp_path / ".codekeep" / "ledger.db") as conn:  # as version 2 left it
        conn.execute("ALTER TABLE rollup_task DROP COLUMN estimated")
        conn.execute("ALTER TABLE rollup_day DROP COLUMN estimated")
        conn.execute("PRAGMA user_version = 2")
    report = open_ledger().report(task_id="t")
    assert (report["total"]["calls"], report["total"]["estimatedCalls"]) == (2, 1)
    assert open_ledger().report()["total"]["estimatedCalls"] == 1  # the day roll-up too
