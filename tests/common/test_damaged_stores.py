"""Damaged databases through the real command line (damaged-database class).

Each case writes garbage over one real page of a store and then runs ``codekeep`` as a
user does. The index is a cache: it is rebuilt. Memory and the ledger hold what cannot
be rebuilt: a command that touches the damage fails with one line naming the file and
what to do (never a traceback, never a success it did not have), what is intact stays
readable, and ``--repair`` keeps every readable row.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from codekeep.analysis.codemap import CodeMap
from codekeep.cli import main
from codekeep.ledger import Ledger
from codekeep.memory import MemoryService
from tests.common.damage import damage_page_of


@dataclass(frozen=True)
class Done:
    returncode: int
    stdout: str
    stderr: str


Codekeep = Callable[..., Done]


@pytest.fixture
def codekeep(capsys: pytest.CaptureFixture[str]) -> Codekeep:
    """``codekeep ARGS --root ROOT`` through the real entry point (an exception would
    fail the test: the doors must turn every damage into an exit code and a line)."""

    def run(root: Path, *args: str) -> Done:
        code = main([*args, "--root", str(root)])
        out, err = capsys.readouterr()
        return Done(code, out, err)

    return run


def assert_one_line_damage(done: Done, database: Path) -> None:
    assert done.returncode == 1, done
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{database} is damaged" in lines[0], done.stderr
    assert "--repair" in lines[0] and "codekeep doctor" in lines[0] and "backup" in lines[0]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("template") / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "shop.py").write_text(
        "def checkout(cart):\n    return total(cart)\n\n\ndef total(cart):\n    return 1\n")
    with CodeMap.open(root) as codemap:
        codemap.index()
    with MemoryService.open(root) as memory:
        for n in range(12):
            written = memory.remember(
                f"Rule {n}: the {['billing', 'search', 'deploy'][n % 3]} module "
                f"owns step {n} of checkout number {n * 7}", key=f"rule-{n}")
            assert written.action == "ADD"
    with Ledger.open(root, start_flusher=False) as ledger:
        ledger.record(task_id="T", call_type="plan", model="gpt-4o", input_tokens=100,
                      output_tokens=10)
    return root


@pytest.fixture
def project(template: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(template, tmp_path / "ws"))


@pytest.mark.parametrize("table", ["symbols", "refs", "files", "symbols_by_name"])
def test_a_damaged_index_is_rebuilt_not_reported_unchanged(
        codekeep: Codekeep, project: Path, table: str) -> None:
    damage_page_of(project / ".codekeep" / "index.db", table)
    found = codekeep(project, "find", "total")
    assert found.returncode == 0 and "pkg/shop.py" in found.stdout, found.stderr
    damage_page_of(project / ".codekeep" / "index.db", table)
    indexed = codekeep(project, "index")
    assert indexed.returncode == 0 and "parsed 1," in indexed.stdout, indexed.stdout


def test_damage_the_open_check_cannot_afford_is_rebuilt_when_met(
        codekeep: Codekeep, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codekeep.analysis import store

    monkeypatch.setattr(store, "QUICK_CHECK_MAX_BYTES", 0)  # as if the file were huge
    damage_page_of(project / ".codekeep" / "index.db", "symbols")
    done = codekeep(project, "find", "checkout")
    assert done.returncode == 0 and "pkg/shop.py" in done.stdout
    assert "index.db is damaged" in done.stderr and "rebuilding" in done.stderr


@pytest.mark.parametrize("table", ["memories_fts_data", "memories_fts_idx", "history",
                                   "events", "memories", "memory_files"])
def test_damaged_memory_fails_in_one_line_and_repair_keeps_what_is_readable(
        codekeep: Codekeep, project: Path, table: str) -> None:
    database = project / ".codekeep" / "memory.db"
    damage_page_of(database, table)
    outcomes = {}
    for args in (["list"], ["recall", "checkout billing"],
                 ["remember", "The search module caches results for ten minutes"]):
        done = codekeep(project, "memory", *args)
        outcomes[args[0]] = done.returncode
        if done.returncode != 0:
            assert_one_line_damage(done, database)
            assert "ADD" not in done.stdout  # no claim of a write that did not happen
    if table in ("history", "events"):  # what lives elsewhere is still readable
        assert outcomes["list"] == 0 and outcomes["recall"] == 0

    repaired = codekeep(project, "memory", "list", "--repair")
    # 0, or "nothing found" (1, "no memories") when the damage took every memory row
    assert repaired.returncode == 0 or (
        table == "memories" and repaired.stderr.endswith("codekeep: no memories\n")
    ), repaired.stderr
    assert f"repaired {database}" in repaired.stderr
    kept = list((project / ".codekeep").glob("memory.db.damaged-*"))
    assert kept, "the damaged file is kept beside the repaired one"
    if table != "memories":  # the memories themselves were intact: none is lost
        assert repaired.stdout.count("Rule ") == 12, repaired.stdout
        recall = codekeep(project, "memory", "recall", "deploy module")
        assert recall.returncode == 0 and "deploy" in recall.stdout
    again = codekeep(project, "memory", "remember", "Payments retry three times then alert")
    assert again.returncode == 0 and "ADD" in again.stdout, again.stderr


@pytest.mark.parametrize("table", ["calls", "tasks", "rollup_task", "rollup_day"])
def test_damaged_ledger_never_claims_a_record_it_lost(
        codekeep: Codekeep, project: Path, table: str) -> None:
    database = project / ".codekeep" / "ledger.db"
    damage_page_of(database, table)
    done = codekeep(project, "ledger", "record", "--task", "T2", "--type", "plan",
                    "--model", "gpt-4o", "--input", "5", "--output", "1")
    if done.returncode != 0:
        assert_one_line_damage(done, database)
        assert "recorded" not in done.stdout
    repaired = codekeep(project, "ledger", "report", "--repair")
    assert repaired.returncode == 0 and f"repaired {database}" in repaired.stderr
    after = codekeep(project, "ledger", "record", "--task", "T3", "--type", "plan",
                     "--model", "gpt-4o", "--input", "5", "--output", "1")
    assert after.returncode == 0 and "recorded plan call on task T3" in after.stdout
    assert codekeep(project, "ledger", "report").returncode == 0
