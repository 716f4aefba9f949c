"""The facts cache shared through the team database: a member's ``codekeep index``
publishes what it computed, a new checkout elsewhere parses none of it, a poisoned row
is ignored and reported, and a database that is down stops nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from codekeep.analysis import CodeMap, parsing
from codekeep.analysis.factcache import FactCache
from codekeep.docs import DocsIndex
from codekeep.docs import pages as docs_pages
from codekeep.settings.team import TeamSettings
from codekeep.team import facts as team_facts
from codekeep.team.facts import open_team_facts
from codekeep.testing.postgres import PostgresServer

pytestmark = pytest.mark.slow

FILES = {
    "shop/models.py": '"""The shop\'s models."""\n\nclass Cart:\n    def add(self, item):\n'
                      "        return total(item)\n",
    "shop/util.py": "from shop.models import Cart\n\ndef total(x):\n    return Cart().add(x)\n",
    "web/h.ts": "export function h(): number { return 1; }\n",
    "docs/guide.md": "# Guide\n\n## Carts\n\nA wombat fills the cart before checkout.\n",
}
ENTRIES = 3 + 3  # the code files' facts; the docs' pages (two .py and the .md)


def checkout(base: Path, name: str) -> Path:
    root = base / name
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def index(root: Path, cache: Path, dsn: str, member: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODEKEEP_")}
    env.update(CODEKEEP_PARSE_CACHE=str(cache), CODEKEEP_TEAM_DSN=dsn,
               CODEKEEP_TEAM_MEMBER=member, CODEKEEP_LOCAL_MODEL="off",
               HOME=str(root.parent))
    return subprocess.run([sys.executable, "-m", "codekeep", "index", "--json", "--root",
                           str(root)], capture_output=True, text=True, timeout=120, env=env)


def published(tmp_path: Path, dsn: str) -> dict[str, object]:
    """Alice indexes her checkout with the team DSN set: she publishes every entry."""
    done = index(checkout(tmp_path, "alice"), tmp_path / "alice-cache", dsn, "alice")
    assert done.returncode == 0, done.stderr
    report: dict[str, object] = json.loads(done.stdout)["team"]
    assert report == {"fetched": 0, "published": ENTRIES, "refused": 0}
    return report


def test_a_new_checkout_indexes_from_what_a_teammate_published(
        tmp_path: Path, team_dsn: str) -> None:
    published(tmp_path, team_dsn)
    done = index(checkout(tmp_path, "bob"), tmp_path / "bob-cache", team_dsn, "bob")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["team"] == {"fetched": ENTRIES, "published": 0, "refused": 0}
    assert report["files"] == 3 and report["symbols"] == 4
    assert report["docs"]["fromCache"] == 3 and report["docs"]["chunks"] == 2
    again = index(tmp_path / "bob", tmp_path / "bob-cache", team_dsn, "bob")
    assert json.loads(again.stdout)["team"] == {"fetched": 0, "published": 0, "refused": 0}


def test_what_the_team_gave_is_not_parsed_again(
        tmp_path: Path, team_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    published(tmp_path, team_dsn)
    root = checkout(tmp_path, "bob")
    (root / "shop" / "new.py").write_text("def fresh():\n    return 1\n")
    cache = FactCache(tmp_path / "bob-cache")
    monkeypatch.setenv("CODEKEEP_PARSE_CACHE", str(cache.base))
    parsed: list[bytes] = []
    real_source, real_page = parsing.analyse_source, docs_pages.parse
    monkeypatch.setattr(parsing, "analyse_source",
                        lambda spec, data: parsed.append(data) or real_source(spec, data))
    read: list[str] = []
    monkeypatch.setattr(docs_pages, "parse",
                        lambda path, *rest: read.append(path) or real_page(path, *rest))
    with CodeMap.open(root) as codemap, DocsIndex.open(root) as docs:
        team = open_team_facts(TeamSettings(dsn=team_dsn, member="bob"), root, cache)
        assert team is not None
        team.fetch([*codemap.keys_to_parse(), *docs.keys_to_read()])
        assert codemap.index().files == 4
        assert docs.index(embed="skip").from_cache == 3
        team.publish()
        team.close()
        assert [s.id for s in codemap.find_symbol("total")] == ["shop/util.py::total"]
        assert docs.search("wombat checkout").hits[0].path == "docs/guide.md"
    assert parsed == [b"def fresh():\n    return 1\n"] and read == ["shop/new.py"]
    assert (team.report.fetched, team.report.published) == (ENTRIES, 2)  # new.py's two


def test_a_poisoned_row_is_ignored_and_reported(tmp_path: Path, team_dsn: str) -> None:
    published(tmp_path, team_dsn)
    with psycopg.connect(team_dsn, autocommit=True) as conn:
        # one row's bytes replaced by another content's (its checksum left as it was)
        conn.execute(
            "UPDATE team_facts SET rows = (SELECT rows FROM team_facts WHERE kind = 'python' "
            "ORDER BY digest LIMIT 1 OFFSET 1) WHERE (digest, kind) = (SELECT digest, kind "
            "FROM team_facts WHERE kind = 'python' ORDER BY digest LIMIT 1)")
        conn.execute("UPDATE team_facts SET published_by = 'mallory' WHERE kind = 'python'")
    done = index(checkout(tmp_path, "bob"), tmp_path / "bob-cache", team_dsn, "bob")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["team"] == {"fetched": ENTRIES - 1, "published": 0, "refused": 1,
                              "refusedFrom": ["mallory"]}
    # bob parsed that file himself: the index is whole and right
    assert report["files"] == 3 and report["symbols"] == 4


def test_publishing_goes_in_batches(tmp_path: Path, team_dsn: str,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    root = checkout(tmp_path, "alice")
    cache = FactCache(tmp_path / "alice-cache")
    monkeypatch.setenv("CODEKEEP_PARSE_CACHE", str(cache.base))
    monkeypatch.setattr(team_facts, "BATCH", 2)
    with CodeMap.open(root) as codemap, DocsIndex.open(root) as docs:
        team = open_team_facts(TeamSettings(dsn=team_dsn, member="alice"), root, cache)
        assert team is not None
        team.fetch([*codemap.keys_to_parse(), *docs.keys_to_read()])
        codemap.index()
        docs.index(embed="skip")
        team.publish()
        team.close()
    assert team.report.published == ENTRIES
    with psycopg.connect(team_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM team_facts").fetchone() == (ENTRIES,)


def test_a_database_that_is_down_leaves_the_index_working_and_says_so(
        tmp_path: Path, pg: PostgresServer) -> None:
    down = f"postgresql://postgres:x@127.0.0.1:{pg.port + 1}/postgres"
    done = index(checkout(tmp_path, "bob"), tmp_path / "bob-cache", down, "bob")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["files"] == 3 and report["symbols"] == 4 and report["docs"]["chunks"] == 2
    assert "not reachable" in report["team"]["error"]
    assert "team facts cache" in done.stderr and "not reachable" in done.stderr
    assert "indexed from the local cache" in done.stderr


def test_a_dsn_that_is_not_postgresql_is_said_and_the_index_goes_on(tmp_path: Path) -> None:
    done = index(checkout(tmp_path, "bob"), tmp_path / "bob-cache",
                 "mysql://root@127.0.0.1/team", "bob")
    assert done.returncode == 0, done.stderr
    assert "not a PostgreSQL connection string" in json.loads(done.stdout)["team"]["error"]
