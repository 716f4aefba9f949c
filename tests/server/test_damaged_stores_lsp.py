"""One store's damage never takes the others down in a real ``codekeep serve``.

memory.db and ledger.db get garbage over a real page before the server starts: the code
map still indexes and answers, memory and ledger requests fail with the one-line reason
(which file, how to repair it) as LSP ``RequestFailed`` without a traceback in ``data``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from codekeep.ledger import Ledger
from codekeep.memory import MemoryService
from tests.common.damage import damage_page_of
from tests.server.lsp_harness import request, session, write_project

pytestmark = pytest.mark.slow


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = write_project(tmp_path / "shapes")
    with MemoryService.open(root) as memory:
        memory.remember("total_area must stay a pure function")
    with Ledger.open(root, start_flusher=False) as ledger:
        ledger.record(task_id="T", call_type="plan", model="gpt-4o", input_tokens=10)
    return root


async def _fails_clearly(client: object, method: str, params: dict[str, object],
                         database: Path) -> None:
    with pytest.raises(JsonRpcException) as failure:
        await request(client, method, params)  # type: ignore[arg-type]
    error = failure.value
    assert error.code == -32803 and f"{database} is damaged" in error.message
    assert "--repair" in error.message and "Traceback" not in str(error.data or "")


async def test_damaged_memory_leaves_the_code_map_answering(project: Path) -> None:
    memory_db = project / ".codekeep" / "memory.db"
    damage_page_of(memory_db, "memories_fts_data")
    async with session(project) as client:
        found = await request(client, "codekeep/findSymbol", {"name": "total_area"})
        assert [s["name"] for s in found["symbols"]] == ["total_area"]
        status = await request(client, "codekeep/indexStatus", {})
        assert status["ready"] is True and status["files"] == 3
        await _fails_clearly(client, "codekeep/memory/recall", {"query": "pure"}, memory_db)
        await _fails_clearly(client, "codekeep/memory/remember",
                             {"content": "area is in square metres"}, memory_db)
        report = await request(client, "codekeep/ledger/report", {})
        assert report["total"]["calls"] == 1  # the ledger is untouched


async def test_damage_met_at_run_time_names_the_file(project: Path) -> None:
    ledger_db = project / ".codekeep" / "ledger.db"
    damage_page_of(ledger_db, "rollup_day")
    async with session(project) as client:
        await _fails_clearly(client, "codekeep/ledger/report", {}, ledger_db)
        found = await request(client, "codekeep/findSymbol", {"name": "total_area"})
        assert found["symbols"]
