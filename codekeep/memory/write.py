"""The write path: safety filter → eligibility gate → canonicalise → state machine → store.

``WritePath`` is the only code that creates or changes memory rows on behalf of a
writer; :class:`ScopedWriter` is what a writer actually receives — the scope is bound
by the service's scope policy, and the writer cannot choose another.
"""

from __future__ import annotations

import hashlib
import math
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import codekeep.memory.safety as safety
from codekeep.memory.catalog import PreferenceCatalog
from codekeep.memory.consolidate import Candidate, Decision, Existing, decide, merge_contents
from codekeep.memory.evidence import EvidenceVerifier, evidence_items
from codekeep.memory.model import (
    CONTENT_WRITTEN,
    DEFAULT_IMPORTANCE,
    DEFAULT_KIND,
    EXTRACTED_SOURCES,
    ID_PREFIXES,
    IMPORTANCE_MAX,
    IMPORTANCE_MIN,
    KINDS,
    MODEL_SOURCES,
    OBSERVING_SOURCES,
    Memory,
    MemoryInputError,
    WriteResult,
)
from codekeep.memory.store import MemoryFilter
from codekeep.memory.store.target import WriteTarget
from codekeep.memory.text import (
    STOP_WORDS,
    analyse,
    canonical_content,
    fingerprint,
    positive_form,
    raw_tokens,
)
from codekeep.settings.memory import MemorySettings

LIVE_STATUSES = ("active", "observed", "confirmed_resolved")
# What an inferred write (extraction, summaries) may only observe until it recurs.
OBSERVED_KINDS = ("fact", "insight", "preference", "soft_preference")
MAX_CONTENT_CHARS = 8_000
_KEY_VALUE = re.compile(r"([a-z][a-z0-9_]*)\s*[:=]\s*(.+)")
# Words that make a request a one-off, not a lasting preference.
TEMPORARY_MARKERS = ("this time", "for now", "just this once", "today only", "这次", "暂时")
UNSUPPORTED_NOTE = (
    "observed, not knowledge: nothing backs it (quote a workspace file, or the user's own "
    "words in this task); it becomes knowledge when a quote supports it or on "
    "`codekeep memory confirm ID`"
)
TEAM_CONFIRMATION_NOTE = (
    "waits for a person's confirmation (`codekeep memory confirm ID`) before teammates "
    "recall it"
)


@dataclass(slots=True)
class WriteRequest:
    content: str
    kind: str = DEFAULT_KIND
    key: str | None = None
    value: str | None = None
    importance: int = DEFAULT_IMPORTANCE
    files: Sequence[str] = ()
    symbols: Sequence[str] = ()
    evidence: dict[str, Any] | None = None
    source: str = "user"
    confidence: float = 1.0
    task_id: str | None = None
    expires_at: float | None = None
    notes: list[str] = field(default_factory=list)  # reasons to report next to the action
    redactions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Screened:
    """A request that passed the write path's gates, in the form it is stored."""

    request: WriteRequest
    status: str
    fingerprint: str


def new_id(scope: str) -> str:
    """Ids start with the scope's letter so a lookup knows which database to open."""
    return f"{ID_PREFIXES[scope]}{secrets.token_hex(6)}"


class WritePath:
    def __init__(
        self,
        stores: Callable[[str], WriteTarget],
        catalog: PreferenceCatalog,
        verifier: EvidenceVerifier,
        settings: MemorySettings,
        after_write: Callable[[WriteTarget, str, str, bool], None],
    ) -> None:
        self._stores = stores
        self.catalog = catalog
        self.verifier = verifier
        self.settings = settings
        # (store, scope, memory id, the live count grew): capacity, embeddings
        self._after_write = after_write

    # ---- validation and gate ------------------------------------------------------------

    def _validate(self, req: WriteRequest) -> None:
        if req.kind not in KINDS or req.kind == "event":
            allowed = ", ".join(k for k in KINDS if k != "event")
            raise MemoryInputError(
                f"unknown kind {req.kind!r} (use one of {allowed}; events go through record_event)"
            )
        if not req.content or not req.content.strip():
            raise MemoryInputError("memory content is empty")
        if len(req.content) > MAX_CONTENT_CHARS:
            raise MemoryInputError(f"memory content is longer than {MAX_CONTENT_CHARS} characters")
        if not isinstance(req.importance, int) or not (
                IMPORTANCE_MIN <= req.importance <= IMPORTANCE_MAX):
            raise MemoryInputError(
                f"importance must be an integer from {IMPORTANCE_MIN} to {IMPORTANCE_MAX} "
                f"(got {req.importance!r})"
            )
        if not 0.0 <= float(req.confidence) <= 1.0:
            raise MemoryInputError(f"confidence must be between 0 and 1 (got {req.confidence!r})")

    def _gate(self, req: WriteRequest, scope: str | None
              ) -> tuple[WriteRequest, str | None, str]:
        """(request with key/value/evidence settled, rejection reason or None, status)."""
        if req.confidence < self.settings.min_confidence:
            return (
                req,
                (
                    f"rejected: confidence {req.confidence:g} is below the threshold "
                    f"{self.settings.min_confidence:g}"
                ),
                "",
            )
        negated = analyse(req.content).negated
        if req.kind in ("preference", "soft_preference"):
            lowered = req.content.lower()
            if any(marker in lowered for marker in TEMPORARY_MARKERS):
                return req, "rejected: a one-off request is not a lasting preference", ""
        if req.kind in ("preference", "fact") and not negated:
            req = self._settle_key(req)
        if req.kind == "preference":
            if not req.key:
                req = replace(req, kind="soft_preference")
                req.notes.append("no catalog slot matches; stored as a soft preference")
            else:
                problem = self.catalog.validate(req.key, req.value or "")
                if problem:
                    return req, f"rejected: {problem}", ""
                req = replace(req, content=self.catalog.render(req.key, req.value or ""))
        status = (
            "observed"
            if req.source in OBSERVING_SOURCES and req.kind in OBSERVED_KINDS
            else "active"
        )
        if req.source in EXTRACTED_SOURCES and req.kind != "case":
            # what extraction proposes is only as good as its quote
            checked, problem = self.verifier.verify(req.evidence)
            if problem:
                return req, f"rejected: unverifiable evidence: {problem}", ""
            req = replace(req, evidence=checked)
        if req.kind == "case":
            checked, problem = self.verifier.verify(req.evidence)
            if problem:
                return req, f"rejected: a case needs verifiable evidence: {problem}", ""
            req = replace(req, evidence=checked)
            status = "confirmed_resolved"
        elif req.source in MODEL_SOURCES:
            return self._model_gate(req, scope, status)
        return req, None, status

    def _model_gate(self, req: WriteRequest, scope: str | None, status: str
                    ) -> tuple[WriteRequest, str | None, str]:
        """No evidence, no knowledge: what a model asserts is active only on a verified
        quote; a quote that is not where it claims to be is refused; a team write from
        a model waits for a person's confirmation whatever its evidence."""
        if evidence_items(req.evidence):
            checked, problem = self.verifier.verify(req.evidence)
            if problem:
                return req, f"rejected: the evidence does not check out: {problem}", ""
            req = replace(req, evidence={**(req.evidence or {}), **(checked or {})})  # + client
        else:
            req.notes.append(UNSUPPORTED_NOTE)
            status = "observed"
        if scope == "team":
            req.notes.append(TEAM_CONFIRMATION_NOTE)
            status = "observed"
        return req, None, status

    def _settle_key(self, req: WriteRequest) -> WriteRequest:
        """Give the memory its (key, value): explicit, ``key: value`` text, or a catalog rule.

        A custom key outside the catalog takes the whole content as its value, so a
        later memory with the same key and other content is a key conflict.
        """
        text = canonical_content(req.content)
        if req.value is not None:
            return req
        stated = _KEY_VALUE.fullmatch(text)
        if stated and (
            stated.group(1) == req.key or (req.key is None and stated.group(1) in self.catalog)
        ):
            return replace(req, key=stated.group(1), value=stated.group(2).strip())
        inferred = self.catalog.infer(text)
        if inferred and req.key in (None, inferred[0]):
            return replace(req, key=inferred[0], value=inferred[1])
        if req.key:
            return replace(req, value=text)
        return req

    # ---- the write --------------------------------------------------------------------

    def screen(self, req: WriteRequest, scope: str | None = None) -> Screened | WriteResult:
        """Validation, safety filter (secrets redacted), gate and canonical form: what any
        store may keep of ``req`` (its status and fingerprint), or the rejection.

        The team database's writes go through this too, so nothing reaches it that the
        local write path would not store, and every secret is redacted before it leaves.
        """
        self._validate(req)
        verdict = safety.check(req.content, kind=req.kind, source=req.source)
        if verdict.rejected:
            return WriteResult("REJECT", None, verdict.rejected)
        req = replace(req, content=verdict.text, redactions=verdict.redactions)
        if verdict.redactions:
            req.notes.append(f"redacted: {', '.join(verdict.redactions)}")
        req, rejected, status = self._gate(req, scope)
        if rejected:
            return WriteResult("REJECT", None, rejected)
        req = replace(
            req, content=canonical_content(req.content), evidence=_redact_evidence(req.evidence)
        )
        fp = (
            _case_fingerprint(req.evidence)
            if req.kind == "case"
            else fingerprint(req.kind, req.key, req.value, req.content)
        )
        return Screened(req, status, fp)

    def remember(self, scope: str, req: WriteRequest) -> WriteResult:
        screened = self.screen(req, scope)
        if isinstance(screened, WriteResult):
            return screened
        req, status, fp = screened.request, screened.status, screened.fingerprint
        negates = (
            self.catalog.infer(positive_form(req.content))
            if req.kind == "fact" and not req.key and analyse(req.content).negated
            else None
        )
        candidate = Candidate(
            req.kind, req.key, req.value, req.content, fp, req.source, negates
        )
        store = self._stores(scope)
        with store.transaction():
            live, forgotten = self._neighbours(store, scope, candidate)
            decision = decide(
                candidate,
                live,
                forgotten,
                self.settings.update_similarity,
                self.settings.merge_similarity,
            )
            result = self._apply(store, scope, req, status, candidate, decision)
        if result.id and result.action in CONTENT_WRITTEN:
            self._after_write(store, scope, result.id, result.action == "ADD")
        return result

    def _neighbours(
        self, store: WriteTarget, scope: str, candidate: Candidate
    ) -> tuple[list[Existing], list[Existing]]:
        ids = set(store.ids(MemoryFilter(fingerprint=candidate.fingerprint, scope=scope)))
        key = candidate.key or (candidate.negates[0] if candidate.negates else None)
        if key:
            ids.update(
                store.ids(MemoryFilter(key=key, scope=scope, statuses=("active", "observed")))
            )
        probe = _neighbour_probe(store, candidate.content)
        ids.update(i for i, _ in store.search.text(probe, LIVE_STATUSES, [candidate.kind], 20))
        rows = store.consolidation_rows(sorted(ids))
        live, forgotten = [], []
        for r in rows:
            if r["scope"] != scope:
                continue
            existing = Existing(
                r["id"],
                r["kind"],
                r["key"],
                r["value"],
                r["content"],
                r["fingerprint"],
                r["source"],
                r["status"],
            )
            if r["status"] in LIVE_STATUSES:
                live.append(existing)
            elif r["status"] == "disabled":
                forgotten.append(existing)
        live.sort(key=lambda e: e.id)
        return live, forgotten

    def _apply(
        self,
        store: WriteTarget,
        scope: str,
        req: WriteRequest,
        status: str,
        candidate: Candidate,
        decision: Decision,
    ) -> WriteResult:
        now = self.settings.clock()
        reason = "; ".join(filter(None, [decision.reason, *req.notes])) or None
        redactions = req.redactions
        action = decision.action
        if action in ("ADD", "SUPERSEDE"):
            memory_id = new_id(scope)
            store.insert(
                _row(memory_id, scope, status, req, candidate.fingerprint, now),
                req.files,
                req.symbols,
            )
            self._count_support(store, memory_id, req.task_id)
            store.log(
                memory_id,
                now,
                action,
                {"content": req.content, "source": req.source, "reason": reason},
            )
            if action == "SUPERSEDE":
                assert decision.target is not None
                store.update(decision.target, status="superseded", superseded_by=memory_id)
                store.log(decision.target, now, "SUPERSEDED", {"by": memory_id, "reason": reason})
            return WriteResult(
                action,
                memory_id,
                reason,
                redactions,
                decision.target if action == "SUPERSEDE" else None,
            )
        assert decision.target is not None
        target = store.get(decision.target)
        assert target is not None
        if action == "SKIP":
            store.log(target.id, now, "SKIP", {"candidate": req.content, "reason": reason})
            return WriteResult("SKIP", target.id, reason, redactions)
        fields: dict[str, Any] = {
            "last_seen_at": now,
            # seen again: a memory with a lifetime gets its full lifetime back
            "expires_at": None
            if target.expires_at is None
            else now + (target.expires_at - target.last_seen_at),
            "importance": max(target.importance, req.importance),
            "confidence": max(target.confidence, req.confidence),
        }
        if action in ("UPDATE", "MERGE"):
            content = (
                req.content if action == "UPDATE" else merge_contents(target.content, req.content)
            )
            fields.update(
                content=content,
                fingerprint=fingerprint(target.kind, target.key, target.value, content),
            )
        if req.evidence and not target.evidence:
            fields["evidence"] = req.evidence
        fields["support_count"] = target.support_count + self._count_support(
            store, target.id, req.task_id
        )
        store.update(target.id, **fields)
        store.links.add(target.id, req.files, req.symbols)
        store.log(
            target.id,
            now,
            action,
            {
                "before": target.content,
                "candidate": req.content,
                "reason": reason,
                "supportCount": fields["support_count"],
            },
        )
        if target.status == "observed" and status == "active":
            # stated explicitly (not merely observed again): it is knowledge now
            store.update(target.id, status="active")
            store.log(target.id, now, "CONFIRM", {"source": req.source})
        elif target.status == "observed" and scope == "team" and target.source in MODEL_SOURCES:
            pass  # a model's team memory becomes the team's knowledge by a person only
        elif target.status == "observed" and fields["support_count"] >= self._needed(target):
            reason = self._promote(store, target, req.evidence, now) or reason
        return WriteResult(action, target.id, reason, redactions)

    def _count_support(self, store: WriteTarget, memory_id: str, task_id: str | None) -> int:
        """1 when this sighting counts; the same task seen twice counts once."""
        if task_id is None:
            return 1
        return store.add_support(memory_id, task_id)

    def _needed(self, memory: Memory) -> int:
        """Sightings before an observed memory is knowledge: a fact a summary saw recur
        ``promotion_count`` times; something extracted from what the user
        said, once more in another task."""
        if memory.source in EXTRACTED_SOURCES:
            return self.settings.extraction_support
        return self.settings.promotion_count

    def _promote(
        self, store: WriteTarget, memory: Memory, new_evidence: dict[str, Any] | None, now: float
    ) -> str:
        """Observed fact recurred often enough: make it knowledge if its evidence checks out."""
        checked, problem = self.verifier.verify(memory.evidence or new_evidence)
        needed = self._needed(memory)
        if problem:
            store.log(memory.id, now, "PROMOTION_BLOCKED", {"reason": problem})
            return f"recurred {needed} times but not promoted: {problem}"
        store.update(memory.id, status="active", evidence=checked)
        store.log(memory.id, now, "PROMOTE", {"evidence": checked})
        return f"recurred {needed} times; promoted to knowledge"

    def insert_verbatim(self, scope: str, req: WriteRequest) -> WriteResult:
        """Store text exactly as given (notes, summaries): safety filter only, no consolidation."""
        self._validate(req)
        verdict = safety.check(req.content, kind=req.kind, source=req.source)
        if verdict.rejected:
            return WriteResult("REJECT", None, verdict.rejected)
        store = self._stores(scope)
        now = self.settings.clock()
        memory_id = new_id(scope)
        content = verdict.text.strip()
        with store.transaction():
            store.insert(
                _row(
                    memory_id,
                    scope,
                    "active",
                    replace(req, content=content),
                    fingerprint(req.kind, None, None, content),
                    now,
                ),
                req.files,
                req.symbols,
            )
            store.log(
                memory_id, now, "ADD", {"content": content, "source": req.source, "verbatim": True}
            )
        self._after_write(store, scope, memory_id, True)
        reason = f"redacted: {', '.join(verdict.redactions)}" if verdict.redactions else None
        return WriteResult("ADD", memory_id, reason, tuple(verdict.redactions))


def _neighbour_probe(store: WriteTarget, content: str) -> str:
    """The rarest words of ``content`` that any memory it could conflict or merge with must
    contain at least one of.

    Every transition the state machine makes on similarity needs a token-set Jaccard of
    at least 0.5 (negation conflict; UPDATE/MERGE need more, SKIP needs all), so such a
    memory shares at least half of the candidate's tokens and misses at most the rest:
    any ``len(words) - ceil(tokens / 2) + 1`` of the words hit it. Searching only the
    rarest of them gives the same neighbours without scoring the common words' huge
    posting lists. (Identical fingerprints and keys are found through their own indexes.)
    """
    words = [w for w in dict.fromkeys(raw_tokens(content)) if w not in STOP_WORDS]
    need = len(words) - math.ceil(len(analyse(content).token_set) / 2) + 1
    if need >= len(words):
        return content
    frequency = store.search.document_frequencies(words)
    return " ".join(sorted(words, key=lambda w: (frequency.get(w, 0), w))[:need])


def _row(
    memory_id: str, scope: str, status: str, req: WriteRequest, fp: str, now: float
) -> dict[str, Any]:
    return {
        "id": memory_id,
        "kind": req.kind,
        "status": status,
        "scope": scope,
        "key": req.key,
        "value": req.value,
        "content": req.content,
        "fingerprint": fp,
        "importance": req.importance,
        "confidence": float(req.confidence),
        "source": req.source,
        "evidence": req.evidence,
        "support_count": 1,
        "access_count": 0,
        "created_at": now,
        "last_seen_at": now,
        "last_accessed_at": None,
        "expires_at": req.expires_at,
        "superseded_by": None,
        "task_id": req.task_id,
    }


def _redact_evidence(evidence: dict[str, Any] | None) -> dict[str, Any] | None:
    """Evidence is verified against the original text, but stored with secrets removed."""
    if not evidence:
        return evidence
    redacted: dict[str, Any] = {}
    for name, value in evidence.items():
        if isinstance(value, str):
            redacted[name] = safety.redact(value)[0]
        elif isinstance(value, list):
            redacted[name] = [_redact_evidence(v) if isinstance(v, dict) else v for v in value]
        else:
            redacted[name] = value
    return redacted


def _case_fingerprint(evidence: dict[str, Any] | None) -> str:
    """Cases are the same case when their verified evidence is the same."""
    basis = "|".join(
        sorted(
            f"{i.get('file', i.get('event'))}:{i.get('quote', '')}"
            for i in evidence_items(evidence)
        )
    )
    return hashlib.sha256(("case\x00" + basis).encode("utf-8")).hexdigest()[:32]
