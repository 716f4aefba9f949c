"""Compress tool results by type before they enter the model's context.

Searches become files + match counts + the best lines, file reads keep only the
requested range, symbol lists keep id/kind/signature/location. Whatever is cut is
stated in the text ("… 37 more matches in 12 files omitted") so the model knows to
narrow the query instead of assuming it saw everything.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from codekeep.settings.tools import ToolSettings
from codekeep.tools.result import FileSpan, ToolOutput, dumps
from codekeep.tools.spec import ToolSpec

SEARCH_FILES_SHOWN = 15
SEARCH_LINES_PER_FILE = 3
SYMBOLS_SHOWN = 40
_DEFINITION = re.compile(r"^\s*(def|class|fn|func|function|struct|interface|type|impl|pub)\b")


class Compressed(NamedTuple):
    """The text the model sees, what was left out, and where the text carries file text."""

    content: str
    dropped: str | None
    spans: tuple[FileSpan, ...] = ()


# One line of a result and the file whose text it is (None: header, note, symbol list).
Line = tuple[str, str | None]


def compress_output(
    spec: ToolSpec, output: ToolOutput, arguments: Mapping[str, Any], settings: ToolSettings
) -> Compressed:
    """``(content, dropped, spans)`` for one handler output, within ``settings.result_chars``."""
    if output.text is not None:
        capped = _cap(output.text, settings.result_chars)
        return capped._replace(spans=_clip(output.spans, len(capped.content)))
    compressor = _COMPRESSORS.get(spec.compression, compress_json)
    return compressor(output.data, settings.result_chars)


def compress_search(data: Any, limit: int) -> Compressed:
    """Files ranked by match count, each with its best lines (definitions first)."""
    files = sorted(data["files"], key=lambda f: (-f["count"], f["path"]))
    total = data["total_matches"]
    lines: list[Line] = [(f"{total} matches for /{data['pattern']}/ in {len(files)} files", None)]
    shown_matches = 0
    shown = files[:SEARCH_FILES_SHOWN]
    for entry in shown:
        lines.append((f"{entry['path']} ({entry['count']})", None))
        best = sorted(entry["matches"], key=lambda m: (not _DEFINITION.match(m["text"]), m["line"]))
        for match in best[:SEARCH_LINES_PER_FILE]:
            lines.append((f"  {match['line']}: {match['text'].strip()[:160]}", entry["path"]))
        shown_matches += min(len(entry["matches"]), SEARCH_LINES_PER_FILE)
    notes = []
    if total > shown_matches:
        notes.append(
            f"… {total - shown_matches} more matches in {max(len(files) - len(shown), 0)} "
            f"more files (and beyond the best lines shown) omitted; narrow the pattern or path"
        )
    if data.get("truncated"):
        reason = data.get("stopped") or "the search stopped early"
        notes.append(f"… {reason}; results are incomplete")
    return _with_notes(lines, notes, limit)


def compress_references(data: Any, limit: int) -> Compressed:
    """One page of a symbol's uses, every one of them, grouped by file: what was shown,
    the exact total and the call for the next page (the tool takes no pattern or path
    to narrow, and nothing stops early)."""
    files, total, offset, shown = data["files"], data["total"], data["offset"], data["shown"]
    target = data["target"]
    if shown:
        header = (f"{total} uses of {target} in all (resolved first); shown: uses "
                  f"{offset + 1}-{offset + shown} in {len(files)} files")
    else:
        header = f"{total} uses of {target} in all; none at offset {offset}"
    lines: list[Line] = [(header, None)]
    for entry in files:
        lines.append((f"{entry['path']} ({entry['count']})", None))
        for match in entry["matches"]:
            lines.append((f"  {match['line']}: {match['text'].strip()[:160]}", entry["path"]))
    notes = []
    if offset + shown < total:
        notes.append(
            f"… {total - offset - shown} more uses not shown: call find_references again "
            f"with {data['argument']}={target!r} offset={offset + shown} for the next page"
        )
    return _with_notes(lines, notes, limit)


def compress_file(data: Any, limit: int) -> Compressed:
    """The requested range with line numbers; lines past the cap are stated, not sent."""
    start = data["start_line"]
    path = data["path"]
    header = f"{path} lines {start}-{data['end_line']} of {data['total_lines']}"
    lines: list[Line] = [(header, None)]
    lines += [(f"{start + i:>5}  {text}", path) for i, text in enumerate(data["text"].splitlines())]
    notes = []
    if data.get("truncated"):
        notes.append(
            f"… read stopped at the size cap after line {data['end_line']}; "
            f"request start_line={data['end_line'] + 1} for more"
        )
    return _with_notes(lines, notes, limit)


def compress_symbols(data: Any, limit: int) -> Compressed:
    """One line per symbol: kind, id, signature, path:line (1-based)."""
    symbols = data["symbols"]
    total = data.get("total", len(symbols))
    lines: list[Line] = [(f"{total} symbols", None)]
    for sym in symbols[:SYMBOLS_SHOWN]:
        score = f" score={sym['score']:.2f}" if "score" in sym else ""
        heir = f" (inherited by {sym['inheritedBy']})" if "inheritedBy" in sym else ""
        lines.append(
            (
                f"{sym['kind']} {sym['id']}  {sym.get('signature') or ''}  "
                f"{sym['path']}:{sym['line']}{score}{heir}".rstrip(),
                None,
            )
        )
    notes = []
    if total > min(len(symbols), SYMBOLS_SHOWN):
        notes.append(
            f"… {total - min(len(symbols), SYMBOLS_SHOWN)} more symbols omitted; refine the query"
        )
    return _with_notes(lines, notes, limit)


def compress_text(data: Any, limit: int) -> Compressed:
    return _cap(str(data), limit)


def compress_json(data: Any, limit: int) -> Compressed:
    return _cap(data if isinstance(data, str) else dumps(data), limit)


def _with_notes(lines: Sequence[Line], notes: list[str], limit: int) -> Compressed:
    text, spans = _joined(lines)
    kept, cut_note = _truncate(text, limit - sum(len(n) + 1 for n in notes))
    spans = _clip(spans, len(kept))
    all_notes = [*notes, *([cut_note] if cut_note else [])]
    if not all_notes:
        return Compressed(kept, None, spans)
    return Compressed(kept + "\n" + "\n".join(all_notes), " ".join(all_notes), spans)


def _joined(lines: Sequence[Line]) -> tuple[str, tuple[FileSpan, ...]]:
    """The lines joined by newlines, and the span of every line that is file text."""
    spans: list[FileSpan] = []
    offset = 0
    for text, path in lines:
        if path is not None and text:
            spans.append(FileSpan(path, offset, offset + len(text)))
        offset += len(text) + 1
    return "\n".join(text for text, _ in lines), tuple(spans)


def _clip(spans: tuple[FileSpan, ...], limit: int) -> tuple[FileSpan, ...]:
    """Spans cut to the first ``limit`` characters (what truncation kept)."""
    return tuple(
        span if span.end <= limit else FileSpan(span.path, span.start, limit)
        for span in spans
        if span.start < limit
    )


def _cap(text: str, limit: int) -> Compressed:
    return _with_notes([(text, None)], [], limit)


def _truncate(text: str, limit: int) -> tuple[str, str | None]:
    """Cut at a line boundary near ``limit``; the note says how much was left out."""
    limit = max(limit, 200)
    if len(text) <= limit:
        return text, None
    cut = text.rfind("\n", 0, limit)
    cut = cut if cut > limit // 2 else limit
    omitted_lines = text.count("\n", cut) + 1
    return text[:cut], f"… {len(text) - cut} more characters ({omitted_lines} lines) omitted"


_COMPRESSORS: dict[str, Callable[[Any, int], Compressed]] = {
    "search": compress_search,
    "references": compress_references,
    "file": compress_file,
    "symbols": compress_symbols,
    "text": compress_text,
    "json": compress_json,
}
