"""Cold indexing in worker processes gives the same index as indexing in-process."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from codekeep.analysis import CodeMap, parsing


def _project(count: int) -> dict[str, str]:
    files = {}
    for i in range(count):
        files[f"pkg/mod_{i}.py"] = (
            f"from pkg.mod_{(i + 1) % count} import func_{(i + 1) % count}\n\n\n"
            f"class Model{i}:\n    def method_{i}(self):\n        return func_{i}()\n\n\n"
            f"def func_{i}():\n    return func_{(i + 1) % count}()\n"
        )
    files["web/app.ts"] = "export function start(): void { main(); }\n"
    return files


def _snapshot(codemap: CodeMap) -> tuple[list[tuple[str, str, int]], list[tuple[str, int, str]]]:
    symbols = [(s.id, s.kind, s.range.end.line) for s in codemap.symbols_in()]
    refs, _ = codemap.find_references(symbol_id="pkg/mod_3.py::func_3")
    return symbols, [(r.path, r.range.start.line, r.confidence) for r in refs]


def test_worker_processes_match_in_process_indexing(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap], tmp_path: Path
) -> None:
    root = workspace(_project(60))
    progress: list[tuple[int, int]] = []
    parallel = open_map(root, workers=2, parallel_min_files=1)
    stats = parallel.index(progress=lambda done, total: progress.append((done, total)))
    assert stats.files == 61 and stats.parsed == 61
    assert progress[-1] == (61, 61) and [d for d, _ in progress] == list(range(1, 62))
    expected = _snapshot(parallel)
    parallel.close()
    (root / ".codekeep" / "index.db").unlink()
    serial = open_map(root)
    serial.index()
    assert _snapshot(serial) == expected
    assert ("pkg/mod_2.py", 9, "resolved") in expected[1]


def test_threaded_process_indexes_through_the_preloaded_fork_server(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    # A process running threads (the language server) must not fork itself; its workers
    # come from a fork server that has the parsing code loaded. Same index either way.
    root = workspace(_project(60))
    serial = open_map(root)
    serial.index()
    expected = _snapshot(serial)
    serial.close()
    (root / ".codekeep" / "index.db").unlink()
    stop = threading.Event()
    busy = threading.Thread(target=stop.wait)
    busy.start()
    try:
        parallel = open_map(root, workers=2, parallel_min_files=1)
        assert parallel.index().parsed == 61
        assert _snapshot(parallel) == expected
    finally:
        stop.set()
        busy.join()


_INDEXER_PID = os.getpid()


def _dying_batch(root: str, jobs: list[tuple[str, str]], max_bytes: int) -> bytes:
    """A worker's batch that kills the worker when it holds pkg/mod_3.py."""
    if os.getpid() != _INDEXER_PID and any(rel == "pkg/mod_3.py" for rel, _ in jobs):
        os._exit(1)
    return _REAL_BATCH(root, jobs, max_bytes)


_REAL_BATCH = parsing.analyse_batch


def test_a_worker_that_dies_mid_index_leaves_no_file_out(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A worker killed while it parses (out of memory, a signal): the index still holds
    # every file, the rest parsed in the indexing process.
    root = workspace(_project(60))
    monkeypatch.setattr(parsing, "analyse_batch", _dying_batch)
    parallel = open_map(root, workers=2, parallel_min_files=1)
    stats = parallel.index()
    assert stats.files == 61 and stats.parsed == 61
    symbols, refs = _snapshot(parallel)
    assert ("pkg/mod_3.py::func_3", "function", 9) in symbols
    assert ("pkg/mod_2.py", 9, "resolved") in refs
