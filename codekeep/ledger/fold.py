"""Folding other agents' logs into the ledger as they grow: each call exactly once.

A fold reads a log file from where the last fold stopped (a high-water mark kept per
file in ``ledger.db``: the byte offset after the last whole line, a digest of the bytes
before it, and the reader's state), books the calls and error events it finds by
their source ids, and moves the mark — all in one write transaction, so two hooks
folding the same session at once run one after the other and the second books
nothing. A line still being written (no newline yet) is left for the next fold. A
file that no longer matches its mark (rewritten, truncated) is read again from the
start; the source ids keep its calls from being booked twice.

Claude Code hooks (Stop, SessionEnd, PreCompact) call :func:`fold_claude_code` with the
hook's ``transcript_path``; ``codekeep ledger import`` folds every file it finds.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from codekeep.ledger.codex_logs import CodexRollout
from codekeep.ledger.importers import ClaudeTranscript, LogScan, session_files
from codekeep.ledger.ledger import Ledger, LogRead
from codekeep.ledger.store import LogMark

_HEAD_BYTES = 4096  # the digest covers the mark's first bytes: enough to see a rewrite


class LogReader(Protocol):
    """Reads one log's lines; its state is JSON a later fold resumes from."""

    def feed(self, line: str) -> None: ...
    def state(self) -> dict[str, Any]: ...
    def finish(self) -> LogScan: ...


@dataclass(slots=True)
class FoldResult:
    """What folding one or more log files booked."""

    files: int = 0
    calls: int = 0       # new calls
    grown: int = 0       # calls booked before that came back with more output
    duplicates: int = 0
    errors: int = 0      # new error events
    skipped: dict[str, int] = field(default_factory=dict)

    def add(self, other: FoldResult) -> None:
        self.files += other.files
        self.calls += other.calls
        self.grown += other.grown
        self.duplicates += other.duplicates
        self.errors += other.errors
        for reason, count in other.skipped.items():
            self.skipped[reason] = self.skipped.get(reason, 0) + count


def fold_claude_code(ledger: Ledger, transcript: Path) -> FoldResult:
    """Fold a Claude Code session (its transcript and its sub-agents') into ``ledger``."""
    return fold_files(ledger, session_files(transcript), ClaudeTranscript)


def fold_codex(ledger: Ledger, rollout: Path) -> FoldResult:
    """Fold a Codex CLI rollout (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``)."""
    return fold_file(ledger, rollout, lambda state: CodexRollout(state, name=rollout.stem))


def fold_codex_sessions(ledger: Ledger, sessions: Path, root: Path, *, days: int = 2
                        ) -> FoldResult:
    """Fold the Codex rollouts of the last ``days`` day folders whose session ran in
    ``root`` (``session_meta.cwd`` inside it): Codex has no hook to call us, so the
    language server folds them as they grow. Other projects' sessions are left alone."""
    total = FoldResult()
    folders = sorted(path for path in sessions.glob("*/*/*") if path.is_dir())[-days:]
    for rollout in sorted(path for folder in folders for path in folder.glob("*.jsonl")):
        if _codex_cwd_inside(rollout, root.resolve()):
            total.add(fold_codex(ledger, rollout))
    return total


def _codex_cwd_inside(rollout: Path, root: Path) -> bool:
    """Whether the rollout's first line (its ``session_meta``) names a cwd inside root."""
    try:
        with rollout.open(encoding="utf-8", errors="replace") as handle:
            meta = json.loads(handle.readline() or "{}")
    except (OSError, json.JSONDecodeError):
        return False
    payload = meta.get("payload") if isinstance(meta, dict) else None
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return isinstance(cwd, str) and Path(cwd).resolve().is_relative_to(root)


def fold_files(ledger: Ledger, paths: list[Path],
               reader: Callable[[dict[str, Any] | None], LogReader]) -> FoldResult:
    total = FoldResult()
    for path in paths:
        total.add(fold_file(ledger, path, reader))
    return total


def fold_file(ledger: Ledger, path: Path,
              reader: Callable[[dict[str, Any] | None], LogReader]) -> FoldResult:
    """Fold what ``path`` gained since the last fold (all of it the first time)."""
    source = str(path.resolve())
    scan = LogScan()

    def read(mark: LogMark | None) -> LogRead:
        nonlocal scan
        with path.open("rb") as handle:
            start, state = _resume(handle, mark)
            handle.seek(start)
            tail = handle.read()
        whole = tail[:tail.rfind(b"\n") + 1]  # a last line still being written waits
        lines = reader(state)
        for line in whole.decode("utf-8", errors="replace").splitlines():
            if line.strip():
                lines.feed(line)
        scan = lines.finish()
        end = start + len(whole)
        with path.open("rb") as handle:
            head = _digest(handle.read(min(end, _HEAD_BYTES)))
        return LogRead(scan.calls, scan.errors,
                       LogMark(end, head, json.dumps(lines.state(), separators=(",", ":"))))

    counts = ledger.fold(source, read)
    return FoldResult(1, counts.new, counts.grown, counts.duplicates, counts.errors,
                      scan.skipped)


def _resume(handle: BinaryIO, mark: LogMark | None) -> tuple[int, dict[str, Any] | None]:
    """Where to read from and the reader state to resume with: the mark's, unless the
    file no longer matches it (rewritten or truncated): then the start."""
    if mark is None or mark.offset == 0:
        return 0, None
    head = handle.read(min(mark.offset, _HEAD_BYTES))
    handle.seek(mark.offset - 1)
    if _digest(head) != mark.head or handle.read(1) != b"\n":
        return 0, None
    try:
        state = json.loads(mark.state)
    except json.JSONDecodeError:
        return 0, None
    return mark.offset, state if isinstance(state, dict) else None


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
