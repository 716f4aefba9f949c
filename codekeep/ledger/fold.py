"""Folding other agents' logs into the ledger as they grow: each call exactly once.

A fold reads a log file from where the last fold stopped (a high-water mark kept per
file in ``ledger.db``: the byte offset after the last whole line, a digest of the bytes
before it, and the reader's state), books the calls and error events it finds by
their source ids, and moves the mark — all in one write transaction, so two hooks
folding the same session at once run one after the other and the second books
nothing. A line still being written (no newline yet) is left for the next fold. A
file that no longer matches its mark (rewritten, truncated) is read again from the
start; the source ids keep its calls from being booked twice.

A fold may be given a :class:`FoldBudget` (seconds and bytes): it then reads whole lines
until either runs out and leaves its mark there, flagged unfinished, so a session of
thousands of calls never stalls the hook that folds it — the next hook goes on from the
mark, and the language server's poll (:func:`fold_unfinished`) folds what a last hook
left. A streamed answer cut between two folds is one call all the same: its later
snapshot adds only its growth.

Claude Code hooks (Stop, SessionEnd, PreCompact) call :func:`fold_claude_code` with the
hook's ``transcript_path``; ``codekeep ledger import`` folds every file it finds.
"""

from __future__ import annotations

import hashlib
import json
import time
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


#: A log's reader, by the name its mark keeps (so a later fold, the server's included,
#: knows how to go on): (reader state or None, the log's path) -> reader.
READERS: dict[str, Callable[[dict[str, Any] | None, Path], LogReader]] = {
    "claude-code": lambda state, _path: ClaudeTranscript(state),
    "codex": lambda state, path: CodexRollout(state, name=path.stem),
}


@dataclass(frozen=True, slots=True)
class FoldBudget:
    """How much one fold may read before it leaves the rest for later: ``seconds`` of
    reading (across every file of one call) and ``max_bytes`` per file. At least one
    whole line is read each time, so a fold always moves on."""

    seconds: float
    max_bytes: int


#: A hook's share: well inside its latency goal (booking what was read comes on top).
HOOK_BUDGET = FoldBudget(seconds=0.12, max_bytes=2_000_000)
#: The language server's poll, a background thread: larger steps, still bounded, so a
#: hook folding the same log meanwhile waits for the write lock only briefly.
POLL_BUDGET = FoldBudget(seconds=1.0, max_bytes=16_000_000)


@dataclass(slots=True)
class FoldResult:
    """What folding one or more log files booked."""

    files: int = 0
    calls: int = 0       # new calls
    grown: int = 0       # calls booked before that came back with more output
    duplicates: int = 0
    errors: int = 0      # new error events
    skipped: dict[str, int] = field(default_factory=dict)
    complete: bool = True  # False: a budget ran out; the marks say where to go on

    def add(self, other: FoldResult) -> None:
        self.files += other.files
        self.calls += other.calls
        self.grown += other.grown
        self.duplicates += other.duplicates
        self.errors += other.errors
        self.complete = self.complete and other.complete
        for reason, count in other.skipped.items():
            self.skipped[reason] = self.skipped.get(reason, 0) + count


def fold_claude_code(ledger: Ledger, transcript: Path, budget: FoldBudget | None = None
                     ) -> FoldResult:
    """Fold a Claude Code session (its transcript and its sub-agents') into ``ledger``."""
    return fold_files(ledger, session_files(transcript), "claude-code", budget)


def fold_codex(ledger: Ledger, rollout: Path, budget: FoldBudget | None = None) -> FoldResult:
    """Fold a Codex CLI rollout (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``)."""
    return fold_file(ledger, rollout, "codex", budget)


def fold_codex_sessions(ledger: Ledger, sessions: Path, root: Path, *, days: int = 2,
                        budget: FoldBudget | None = None) -> FoldResult:
    """Fold the Codex rollouts of the last ``days`` day folders whose session ran in
    ``root`` (``session_meta.cwd`` inside it): Codex has no hook to call us, so the
    language server folds them as they grow. Other projects' sessions are left alone."""
    folders = sorted(path for path in sessions.glob("*/*/*") if path.is_dir())[-days:]
    rollouts = [path for folder in folders for path in sorted(folder.glob("*.jsonl"))
                if _codex_cwd_inside(path, root.resolve())]
    return fold_files(ledger, rollouts, "codex", budget)


def fold_unfinished(ledger: Ledger, budget: FoldBudget | None = POLL_BUDGET) -> FoldResult:
    """Go on with every log a budgeted fold left unfinished (a hook's last fold of a
    long session): what the language server's poll runs."""
    total = FoldResult()
    until = _until(budget)
    for path, reader in ledger.unfinished_logs():
        if reader not in READERS or not Path(path).is_file():
            continue
        if until is not None and time.monotonic() >= until:
            total.complete = False
            break
        total.add(fold_file(ledger, Path(path), reader, budget, until=until))
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


def fold_files(ledger: Ledger, paths: list[Path], reader: str,
               budget: FoldBudget | None = None) -> FoldResult:
    """Fold each of ``paths`` with ``reader``; one budget's seconds cover them all (the
    files left when it ran out wait, unread, for the next fold)."""
    total = FoldResult()
    until = _until(budget)
    for path in paths:
        if until is not None and time.monotonic() >= until:
            total.complete = False
            break
        total.add(fold_file(ledger, path, reader, budget, until=until))
    return total


def _until(budget: FoldBudget | None) -> float | None:
    return None if budget is None else time.monotonic() + budget.seconds


def fold_file(ledger: Ledger, path: Path, reader: str, budget: FoldBudget | None = None,
              *, until: float | None = None) -> FoldResult:
    """Fold what ``path`` gained since the last fold (all of it the first time, or as
    much as ``budget`` allows: whole lines until its bytes or seconds run out)."""
    source = str(path.resolve())
    make = READERS[reader]
    scan = LogScan()
    complete = True

    def read(mark: LogMark | None) -> LogRead:
        nonlocal scan, complete
        with path.open("rb") as handle:
            start, state = _resume(handle, mark, reader)
            handle.seek(start)
            tail = handle.read(budget.max_bytes) if budget is not None else handle.read()
            if tail and not tail.endswith(b"\n"):
                tail += handle.readline()  # the line the byte budget cut, whole
            size = handle.seek(0, 2)
        lines = make(state, path)
        stop = until if until is not None else _until(budget)
        used = 0
        for raw in tail.splitlines(keepends=True):
            if not raw.endswith(b"\n"):
                break  # a last line still being written waits
            if stop is not None and used and time.monotonic() >= stop:
                break
            used += len(raw)
            line = raw.decode("utf-8", errors="replace")
            if line.strip():
                lines.feed(line)
        scan = lines.finish()
        end = start + used
        # Unfinished: whole lines were left, or the byte budget kept some from being read.
        complete = used == tail.rfind(b"\n") + 1 and start + len(tail) >= size
        with path.open("rb") as handle:
            head = _digest(handle.read(min(end, _HEAD_BYTES)))
        kept = {"reader": reader, "unfinished": not complete, "state": lines.state()}
        return LogRead(scan.calls, scan.errors,
                       LogMark(end, head, json.dumps(kept, separators=(",", ":"))))

    counts = ledger.fold(source, read)
    return FoldResult(1, counts.new, counts.grown, counts.duplicates, counts.errors,
                      scan.skipped, complete)


def _resume(handle: BinaryIO, mark: LogMark | None, reader: str
            ) -> tuple[int, dict[str, Any] | None]:
    """Where to read from and the reader state to resume with: the mark's, unless the
    file no longer matches it (rewritten or truncated) or the mark is another reader's:
    then the start (the source ids keep what was booked from being booked again)."""
    if mark is None or mark.offset == 0:
        return 0, None
    head = handle.read(min(mark.offset, _HEAD_BYTES))
    handle.seek(mark.offset - 1)
    if _digest(head) != mark.head or handle.read(1) != b"\n":
        return 0, None
    try:
        kept = json.loads(mark.state)
    except json.JSONDecodeError:
        return 0, None
    if not isinstance(kept, dict) or kept.get("reader") != reader \
            or not isinstance(kept.get("state"), dict):
        return 0, None
    return mark.offset, kept["state"]


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
