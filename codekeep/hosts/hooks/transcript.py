"""Folding a Claude Code session's transcript into the ledger as the session runs.

The hook is given the transcript's path; the session's own file and its sub-agents'
(``<session>/subagents/*.jsonl``) are read with the ledger's Claude Code importer and
imported by message and request id, so a call folded at Stop is not booked again at
SessionEnd, and ``codekeep ledger import`` afterwards adds nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codekeep.hosts.hooks.events import HookCall


def transcript_files(transcript: Path) -> list[Path]:
    subagents = transcript.with_suffix("") / "subagents"
    return [transcript, *sorted(subagents.glob("*.jsonl"))] if transcript.is_file() else []


def fold_transcript(call: HookCall, transcript: Path) -> int:
    """Import the session's calls not in the ledger yet; how many were new."""
    from codekeep.ledger import Ledger, read_claude_code_logs

    files = transcript_files(transcript)
    if not files:
        return 0
    scan = read_claude_code_logs(files)
    ledger = Ledger.open(call.root, call.settings.ledger, start_flusher=False)
    try:
        return ledger.import_calls(scan.calls).imported
    finally:
        ledger.close()
