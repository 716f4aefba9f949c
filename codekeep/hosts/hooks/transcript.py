"""Folding a Claude Code session's transcript into the ledger as the session runs.

The hook is given the transcript's path; the session's own file and its sub-agents'
(``<session>/subagents/*.jsonl``) are folded by :func:`codekeep.ledger.fold.fold_claude_code`
from where the last fold stopped, each call once by message and request id, so a call
folded at Stop is not booked again at SessionEnd, and ``codekeep ledger import``
afterwards adds nothing. Each hook folds within :data:`~codekeep.ledger.fold.HOOK_BUDGET`
(a first fold of a long resumed session would otherwise stall it for seconds); the
next hook, or the language server's poll, goes on from the mark.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codekeep.hosts.hooks.events import HookCall


def fold_transcript(call: HookCall, transcript: Path) -> int:
    """Fold the session's calls not in the ledger yet; how many were new."""
    from codekeep.ledger import Ledger
    from codekeep.ledger.fold import HOOK_BUDGET, fold_claude_code

    if not transcript.is_file():
        return 0
    ledger = Ledger.open(call.root, call.settings.ledger, start_flusher=False)
    try:
        return fold_claude_code(ledger, transcript, HOOK_BUDGET).calls
    finally:
        ledger.close()
