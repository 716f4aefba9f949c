"""Verifiable evidence: a quote counts only if it can be found where it claims to come from.

Sources are a file under the workspace (``{"file": "src/a.py", "quote": "..."}``) or an
event of the append-only stream (``{"event": 12, "quote": "..."}``). Matching goes
from strict to lenient: normalised substring (case and whitespace ignored),
then a token fallback (every token of the quote appears in the source and there are at
least two). A quote that cannot be verified is not evidence.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_SOURCE_BYTES = 2_000_000
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


def quote_found(source: str, quote: str) -> str | None:
    """The method that verified ``quote`` inside ``source`` ("substring"/"tokens"), or None."""
    if not quote.strip():
        return None
    if _squash(quote) in _squash(source):
        return "substring"
    quote_tokens = {t.lower() for t in _TOKEN.findall(quote)}
    if len(quote_tokens) >= 2 and quote_tokens <= {t.lower() for t in _TOKEN.findall(source)}:
        return "tokens"
    return None


# Words that, shortly before a value, say the quote is against it ("never npm", "pnpm
# instead of npm", "not yarn"): such a quote is no evidence for that value.
_DENIALS = frozenset({"not", "no", "never", "dont", "doesnt", "avoid", "stop", "without",
                      "nor", "instead", "rather", "except", "cannot", "shouldnt", "mustnt",
                      "wont", "isnt", "arent", "against", "drop", "dropped", "replaced"})
_DENIAL_REACH = 3  # words before the value a denial may stand


def quote_denies(quote: str, value: str) -> str | None:
    """Why ``quote`` does not back ``value`` (it names the value only to deny it), or
    None: some mention of it stands un-negated, or the quote says it in other words
    ("keep answers short" for ``concise``), which the quote check judges."""
    words = [w.replace("'", "") for w in _TOKEN.findall(quote.lower().replace("'", ""))]
    wanted = [w.replace("'", "") for w in _TOKEN.findall(value.lower().replace("'", ""))]
    if not wanted:
        return None
    mentions = [i for i in range(len(words) - len(wanted) + 1)
                if words[i:i + len(wanted)] == wanted]
    if mentions and all(_DENIALS & set(words[max(0, i - _DENIAL_REACH):i]) for i in mentions):
        return f"the quote is against {value!r}, not for it"
    return None


def evidence_items(evidence: dict[str, Any] | None) -> list[dict[str, Any]]:
    if not evidence:
        return []
    items = evidence.get("items")
    if isinstance(items, list):
        return [item for item in items if isinstance(item, dict)]
    return [evidence]


class EvidenceVerifier:
    """Checks evidence items against the workspace files and the project event stream."""

    def __init__(self, root: Path, event_text: Callable[[int], str | None]) -> None:
        self.root = root.resolve()
        self.event_text = event_text

    def verify(self, evidence: dict[str, Any] | None) -> tuple[dict[str, Any] | None, str | None]:
        """(evidence with each item marked verified, None) or (None, reason it failed)."""
        items = evidence_items(evidence)
        if not items:
            return None, "no evidence given (needs a quote and the file or event it comes from)"
        checked: list[dict[str, Any]] = []
        for item in items:
            quote = str(item.get("quote") or "")
            source, where = self._source_text(item)
            if source is None:
                return None, where
            method = quote_found(source, quote)
            if method is None:
                return None, f"quote {quote[:60]!r} not found in {where}"
            checked.append({**item, "verified": True, "method": method})
        if len(checked) == 1 and "items" not in (evidence or {}):
            return checked[0], None
        return {"items": checked}, None

    def _source_text(self, item: dict[str, Any]) -> tuple[str | None, str]:
        if "file" in item:
            rel = str(item["file"])
            path = (self.root / rel).resolve()
            if not path.is_relative_to(self.root):
                return None, f"evidence file {rel!r} is outside the workspace"
            if not path.is_file():
                return None, f"evidence file {rel!r} does not exist"
            if path.stat().st_size > MAX_SOURCE_BYTES:
                return None, f"evidence file {rel!r} is too large to verify"
            return path.read_text(encoding="utf-8", errors="replace"), rel
        if "event" in item:
            try:
                text = self.event_text(int(item["event"]))
            except (TypeError, ValueError, sqlite3.Error):
                text = None
            if text is None:
                return None, f"evidence event {item['event']!r} does not exist"
            return text, f"event {item['event']}"
        return None, "an evidence item needs 'file' or 'event' next to its 'quote'"
