"""Per-type compression: what survives, and that every cut is stated."""

from __future__ import annotations

from codekeep.tools.compress import (
    SEARCH_FILES_SHOWN,
    compress_file,
    compress_json,
    compress_search,
    compress_symbols,
)


def _search(files: int, per_file: int) -> dict:
    entries = []
    for i in range(files):
        matches = [{"line": n + 1, "text": f"x = needle  # {n}"} for n in range(per_file)]
        if i == 3:
            matches.append({"line": 99, "text": "def needle():"})
        entries.append({"path": f"src/m{i:02d}.py", "count": len(matches), "matches": matches})
    total = sum(e["count"] for e in entries)
    return {"pattern": "needle", "files": entries, "total_matches": total, "truncated": False}


def test_search_keeps_files_counts_and_best_lines() -> None:
    text, dropped, _ = compress_search(_search(files=20, per_file=6), limit=10_000)
    lines = text.splitlines()
    assert lines[0] == "121 matches for /needle/ in 20 files"
    assert lines[1] == "src/m03.py (7)"  # most matches first
    assert lines[2] == "  99: def needle():"  # a definition is the most telling line
    assert sum(1 for ln in lines if ln.startswith("src/")) == SEARCH_FILES_SHOWN
    assert dropped is not None and "76 more matches in 5 more files" in dropped
    assert dropped in text


def test_search_that_fits_drops_nothing() -> None:
    text, dropped, _ = compress_search(_search(files=2, per_file=2), limit=10_000)
    assert dropped is None and "omitted" not in text


def test_search_says_when_the_search_itself_stopped() -> None:
    data = {**_search(files=1, per_file=1), "truncated": True}
    text, dropped, _ = compress_search(data, limit=10_000)
    assert "results are incomplete" in text and dropped


def test_file_keeps_the_range_with_line_numbers() -> None:
    data = {
        "path": "a.py",
        "start_line": 10,
        "end_line": 11,
        "total_lines": 50,
        "text": "a\nb",
        "truncated": False,
    }
    text, dropped, _ = compress_file(data, limit=10_000)
    assert text == "a.py lines 10-11 of 50\n   10  a\n   11  b" and dropped is None


def test_symbols_keep_id_kind_signature_location_only() -> None:
    symbols = [
        {
            "id": f"m.py::f{i}",
            "name": f"f{i}",
            "kind": "function",
            "signature": f"def f{i}()",
            "path": "m.py",
            "line": i,
        }
        for i in range(60)
    ]
    text, dropped, _ = compress_symbols({"symbols": symbols, "total": 75}, limit=10_000)
    lines = text.splitlines()
    assert lines[0] == "75 symbols"
    assert lines[1] == "function m.py::f0  def f0()  m.py:0"
    assert len(lines) == 1 + 40 + 1
    assert dropped == "… 35 more symbols omitted; refine the query"


def test_generic_results_are_capped_with_a_note() -> None:
    text, dropped, _ = compress_json({"rows": ["x" * 50] * 400}, limit=1_000)
    assert len(text) < 1_200
    assert dropped is not None and "more characters" in dropped and text.endswith(dropped)


def test_spans_mark_exactly_the_file_text_of_a_read() -> None:
    data = {"path": "a.py", "start_line": 10, "end_line": 11, "total_lines": 50,
            "text": "alpha\nbeta", "truncated": False}
    text, _, spans = compress_file(data, limit=10_000)
    assert [text[s.start:s.end] for s in spans] == ["   10  alpha", "   11  beta"]
    assert {s.path for s in spans} == {"a.py"}


def test_spans_of_search_hits_are_the_code_lines_only_and_truncation_clips_them() -> None:
    text, _, spans = compress_search(_search(files=2, per_file=2), limit=10_000)
    pieces = [text[s.start:s.end] for s in spans]
    assert pieces and all(p.startswith("  ") and ": " in p for p in pieces)
    assert "matches for" not in "".join(pieces)  # the header is not file text
    cut, _, clipped = compress_search(_search(files=20, per_file=6), limit=300)
    assert clipped and all(s.end <= len(cut) for s in clipped)


def test_symbol_lists_carry_no_file_text() -> None:
    symbols = [{"id": "m.py::f", "name": "f", "kind": "function", "signature": "def f()",
                "path": "m.py", "line": 1}]
    assert compress_symbols({"symbols": symbols, "total": 1}, limit=10_000).spans == ()
