"""Memory that learns from the conversation.

After a task (or on demand) its event stream — what the user asked (``user_message``
events), what the tools observed, how it ended — is mined for lasting memories in two
stages, both ending in the ordinary write path (safety filter, eligibility gate with
verified evidence, state machine):

* the **rule stage** knows the preference catalog's patterns (package manager, test /
  lint / build command, answer style ...) and reads them from the user's own sentences,
  quoting the sentence as evidence; a command that failed and later passed in the same
  task becomes a ``case`` memory (the failure, what was edited, the passing run);
* the **model stage** (when the agent has a model and ``modelSummaries`` is on) reads
  the model's structured candidates — kind, key, value, evidence quote, confidence —
  and keeps only those whose quote is found in the user's messages or in a workspace
  file. The rule stage then adds what the model missed (it never replaces the model's
  keys), so a failing or silent model still leaves the rule findings.

Extracted writes are *observed* (``automatic_rule`` / ``automatic_llm``): they become
active when seen again in another task or confirmed by the user, and never override
what the user stated or ``MEMORY.md`` says (the state machine's user-beats-inferred
rule). A sentence that marks itself as a one-off ("just this once use npm") yields
nothing. What is rejected, and why, goes into the history of the task's summary memory
(``codekeep memory history <summary id>``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codekeep.memory.catalog import PreferenceCatalog
from codekeep.memory.events import Event
from codekeep.memory.evidence import quote_denies, quote_found
from codekeep.memory.model import MemoryInputError
from codekeep.memory.model_json import parse_model_json
from codekeep.memory.write import TEMPORARY_MARKERS

if TYPE_CHECKING:
    from codekeep.memory.service import MemoryService

RULE_SOURCE = "automatic_rule"
MODEL_SOURCE = "automatic_llm"
RULE_CONFIDENCE = 0.8
MODEL_KINDS = ("preference", "soft_preference", "fact", "case")
MAX_CANDIDATES = 20
_SENTENCE = re.compile(r"(?<=[.!?;。！？；])\s+|\n+")
_CLAUSE = re.compile(r",\s*(?:and\s+|but\s+)?|\s+and\s+(?=(?:the|we|our|use|run|tests?)\b)",
                     re.IGNORECASE)
_LEAD = re.compile(r"^(?:(?:and|but|also|please|so|remember|note|fyi)\b[:,]?\s+)+",
                   re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A memory an extraction stage proposes, with the evidence that must verify."""

    kind: str
    content: str
    key: str | None
    value: str | None
    evidence: dict[str, Any]
    confidence: float
    source: str
    files: tuple[str, ...] = ()


@dataclass(slots=True)
class Extraction:
    """What one pass proposed and what memory did with each proposal."""

    written: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"written": self.written, "rejected": self.rejected}


# ---- rule stage --------------------------------------------------------------------------


def one_off(sentence: str) -> bool:
    lowered = sentence.lower()
    return any(marker in lowered for marker in TEMPORARY_MARKERS)


def clauses(text: str) -> list[tuple[str, str]]:
    """``(sentence, clause)`` pairs of a message: the units a catalog rule reads."""
    pairs = []
    for sentence in _SENTENCE.split(text):
        sentence = sentence.strip()
        for part in _CLAUSE.split(sentence):
            clause = _LEAD.sub("", part.strip().rstrip(".!?;"))
            if clause:
                pairs.append((sentence, clause))
    return pairs


def rule_candidates(events: Sequence[Event], catalog: PreferenceCatalog
                    ) -> tuple[list[Candidate], list[dict[str, Any]]]:
    """Catalog preferences the user stated, and failure → fix cases the tools saw."""
    found: dict[str, Candidate] = {}
    rejected: list[dict[str, Any]] = []
    for event in events:
        if event.event_type != "user_message":
            continue
        for sentence, clause in clauses(event.summary):
            inferred = catalog.infer(clause)
            if inferred is None:
                continue
            key, value = inferred
            if one_off(sentence):
                rejected.append({"stage": "rule", "content": f"{key}: {value}",
                                 "reason": f"a one-off request is not a lasting preference "
                                           f"({sentence!r})"})
                continue
            found[key] = Candidate("preference", catalog.render(key, value), key, value,
                                   {"event": event.id, "quote": clause}, RULE_CONFIDENCE,
                                   RULE_SOURCE)
    return [*found.values(), *fixed_failures(events)], rejected


def fixed_failures(events: Sequence[Event]) -> list[Candidate]:
    """A command that failed and then passed in the task: a case with its resolution."""
    cases = []
    failed: dict[str, Event] = {}
    edited: dict[str, list[str]] = {}
    for event in events:
        data = event.data or {}
        command = data.get("command")
        if event.event_type in ("file_edit", "file_create"):
            for pending in edited.values():
                pending.extend(path for path in event.files if path not in pending)
        if event.event_type != "command" or not command:
            continue
        command = str(command)
        if data.get("exit_code") not in (0, None):
            failed.setdefault(command, event)
            edited.setdefault(command, [])
        elif command in failed:
            first = failed.pop(command)
            files = edited.pop(command, [])
            fix = f" after editing {', '.join(files)}" if files else ""
            cases.append(Candidate(
                "case", f"`{command}` failed (exit {(first.data or {}).get('exit_code')}) and "
                        f"passed{fix}", None, None,
                {"items": [{"event": first.id, "quote": command},
                           {"event": event.id, "quote": command}]},
                RULE_CONFIDENCE, RULE_SOURCE, tuple(files)))
    return cases


# ---- model stage -------------------------------------------------------------------------


MODEL_INSTRUCTIONS = """You extract lasting project memories from a finished coding task.
Return ONLY a JSON object: {"memories": [{"kind": "preference" | "soft_preference" | "fact"
| "case", "key": "<catalog key or null>", "value": "<value or null>", "content": "<one
self-contained sentence>", "evidence": {"source": "user" | "file", "file": "<path when
source is file>", "quote": "<exact words from that source>"}, "confidence": 0.0-1.0}]}.
Catalog keys: {keys}. Only what will still be true in later tasks: no one-off requests
("just this once ..."), no secrets, nothing you inferred without a quote. Return
{"memories": []} when there is nothing."""


def model_prompt(events: Sequence[Event], catalog: PreferenceCatalog) -> list[dict[str, str]]:
    """The extraction request: instructions, then the task's messages and observations."""
    lines = []
    for event in events:
        label = "USER" if event.event_type == "user_message" else event.event_type
        lines.append(f"[{label}] {event.summary[:1200]}")
    return [{"role": "system", "content": MODEL_INSTRUCTIONS.replace(
                "{keys}", ", ".join(catalog.slots))},
            {"role": "user", "content": "\n".join(lines)[-12_000:]}]


def model_candidates(text: str, events: Sequence[Event], catalog: PreferenceCatalog
                     ) -> tuple[list[Candidate], list[dict[str, Any]]]:
    """The model's proposals whose evidence points at a real source; reasons for the rest."""
    try:
        payload = parse_model_json(text)
    except ValueError as exc:
        return [], [{"stage": "model", "reason": f"the model's answer is not JSON ({exc})"}]
    items = payload.get("memories") if isinstance(payload, dict) else None
    if not isinstance(items, list):
        return [], [{"stage": "model",
                     "reason": "the model's answer has no \"memories\" list (off template)"}]
    users = [e for e in events if e.event_type == "user_message"]
    found, rejected = [], []
    for item in items[:MAX_CANDIDATES]:
        candidate, problem = _model_candidate(item, users, catalog)
        if candidate is not None:
            found.append(candidate)
        else:
            rejected.append({"stage": "model", "content": str(item)[:200], "reason": problem})
    return found, rejected


def _model_candidate(item: Any, users: Sequence[Event], catalog: PreferenceCatalog
                     ) -> tuple[Candidate | None, str]:
    if not isinstance(item, dict):
        return None, "a memory must be an object"
    kind, content = item.get("kind"), item.get("content")
    evidence = item.get("evidence")
    confidence = item.get("confidence")
    if kind not in MODEL_KINDS:
        return None, f"unknown kind {kind!r}"
    if not isinstance(content, str) or not content.strip():
        return None, "no content"
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        return None, "confidence must be a number"
    if not isinstance(evidence, dict) or not str(evidence.get("quote") or "").strip():
        return None, "no evidence quote"
    quote = str(evidence["quote"])
    key = item.get("key") if isinstance(item.get("key"), str) and item["key"] else None
    value = item.get("value") if isinstance(item.get("value"), str) else None
    if key is not None and key not in catalog:
        key = value = None  # not a catalog slot: the content stands on its own
    if kind == "preference" and key is None:
        kind = "soft_preference"
    if key is not None and value and (against := quote_denies(quote, value)):
        return None, against
    if evidence.get("source") == "file" and isinstance(evidence.get("file"), str):
        proof: dict[str, Any] = {"file": evidence["file"], "quote": quote}
    else:
        said = next((e for e in users if quote_found(e.summary, quote)), None)
        if said is None:
            return None, f"quote {quote[:60]!r} is not in the user's messages"
        if one_off(next((s for s, c in clauses(said.summary) if quote_found(s, quote)), quote)):
            return None, "a one-off request is not a lasting memory"
        proof = {"event": said.id, "quote": quote}
    if kind == "preference" and key is not None:
        content = catalog.render(key, value or "")
    return Candidate(kind, content.strip(), key, value, proof, float(confidence),
                     MODEL_SOURCE), ""


# ---- both stages into memory ------------------------------------------------------------


def merged(model: Sequence[Candidate], rules: Sequence[Candidate]) -> list[Candidate]:
    """The model's candidates plus the rule ones for keys the model did not cover."""
    covered = {c.key for c in model if c.key}
    return [*model, *(c for c in rules if not c.key or c.key not in covered)]


def extract(memory: MemoryService, task_id: str, model_output: str | None = None,
            summary_id: str | None = None) -> Extraction:
    """Run the stages over ``task_id``'s events and write what passes the write path.

    ``model_output`` is the model stage's raw answer (None: no model). Rejections are
    logged in the history of ``summary_id`` (the task's summary) when given.
    """
    events = memory.events.events(task_id)
    rules, rejected = rule_candidates(events, memory.catalog)
    model: list[Candidate] = []
    if model_output is not None:
        model, refused = model_candidates(model_output, events, memory.catalog)
        rejected += refused
    outcome = Extraction(rejected=rejected)
    for candidate in merged(model, rules):
        try:
            written = memory.remember(
                candidate.content, kind=candidate.kind, key=candidate.key,
                evidence=candidate.evidence, source=candidate.source,
                confidence=candidate.confidence, files=candidate.files, task_id=task_id)
        except MemoryInputError as exc:
            outcome.rejected.append({"stage": _stage(candidate), "content": candidate.content,
                                     "reason": str(exc)})
            continue
        entry = {"stage": _stage(candidate), "kind": candidate.kind,
                 "content": candidate.content, "action": written.action, "id": written.id,
                 "reason": written.reason}
        (outcome.rejected if written.rejected else outcome.written).append(entry)
    if summary_id is not None and outcome.rejected:
        memory.log_task_note(summary_id, "EXTRACT_REJECTED", {"rejected": outcome.rejected})
    return outcome


def _stage(candidate: Candidate) -> str:
    return "model" if candidate.source == MODEL_SOURCE else "rule"
