"""Per-language golden files: exact definitions, and the references a reader would expect.

Each ``golden/<lang>/`` holds one realistic source file and ``expected.json`` (format in
``codekeep/analysis/languages/README.md``). The directory is copied into a fresh
workspace and indexed through the public :class:`CodeMap` API.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from codekeep.analysis import CodeMap
from codekeep.analysis.registry import default_registry

GOLDEN = Path(__file__).with_name("golden")
LANGUAGE_DIRS = sorted(p for p in GOLDEN.iterdir() if (p / "expected.json").is_file())


@pytest.mark.parametrize("golden", LANGUAGE_DIRS, ids=[p.name for p in LANGUAGE_DIRS])
def test_golden(golden: Path, tmp_path: Path, open_map: Callable[..., CodeMap]) -> None:
    sources = [p for p in golden.iterdir() if p.name != "expected.json"]
    if not any(default_registry().for_path(p.name) for p in sources):
        pytest.skip(f"no language file claims {[p.name for p in sources]} yet")
    root = tmp_path / golden.name
    shutil.copytree(golden, root)
    (root / "expected.json").unlink()
    expected = json.loads((golden / "expected.json").read_text(encoding="utf-8"))
    codemap = open_map(root)
    codemap.index()

    got = {(s.id, s.kind, s.selection_range.start.line + 1) for s in codemap.symbols_in()}
    want = {(d["id"], d["kind"], d["line"]) for d in expected["definitions"]}
    assert sorted(got - want) == [], "unexpected definitions"
    assert sorted(want - got) == [], "missing definitions"

    missing = []
    for ref in expected["references"]:
        found, _total = codemap.find_references(name=ref["name"])
        lines = {(r.range.start.line + 1, r.kind) for r in found}
        if (ref["line"], ref["kind"]) not in lines:
            missing.append((ref, sorted(lines)))
    assert missing == [], "missing references"
