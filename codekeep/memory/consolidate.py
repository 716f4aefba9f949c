"""The write-path state machine: how a new candidate relates to what is already stored.

Pure decision logic (no I/O) so each transition is unit-testable. In order:

1. same fingerprint as a live memory                         -> REINFORCE
2. same key, same value                                        -> REINFORCE
   same key, different value                                   -> SUPERSEDE
3. same subject, opposite polarity ("use pnpm" / "don't ...")  -> SUPERSEDE
   (2 and 3 become SKIP when an *inferred* candidate would replace a *user-stated*
   memory: user-stated beats inferred; a negation of a preference that MEMORY.md
   states is a SKIP naming the file, since the file is where the user changes it)
4. candidate's tokens all inside a live memory's tokens        -> SKIP (nothing new)
5. similarity ≥ 0.85 (same polarity)                           -> UPDATE
   (REINFORCE instead when an inferred candidate meets a user-stated memory:
   the user's words are not rewritten by the agent)
6. similarity ≥ 0.60 (same polarity)                           -> MERGE
   (not into a user-stated memory from an inferred candidate: that one is ADDed)
7. same fingerprint as a memory the user forgot (disabled),
   candidate not user-stated                                   -> SKIP (stays forgotten)
8. otherwise                                                   -> ADD
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from codekeep.memory.model import MARKDOWN_SOURCE, USER_SOURCES, WriteAction
from codekeep.memory.text import Analysed, analyse, jaccard, same_subject


@dataclass(frozen=True, slots=True)
class Candidate:
    kind: str
    key: str | None
    value: str | None
    content: str
    fingerprint: str
    source: str
    # (key, value) of the catalog preference a negated statement denies, if any
    negates: tuple[str, str] | None = None

    @property
    def analysed(self) -> Analysed:
        return analyse(self.content)


@dataclass(frozen=True, slots=True)
class Existing:
    id: str
    kind: str
    key: str | None
    value: str | None
    content: str
    fingerprint: str
    source: str
    status: str


@dataclass(frozen=True, slots=True)
class Decision:
    action: WriteAction
    target: str | None = None
    reason: str | None = None
    similarity: float | None = None


def _user_beats_inferred(candidate: Candidate, existing: Existing) -> bool:
    return existing.source in USER_SOURCES and candidate.source not in USER_SOURCES


def decide(
    candidate: Candidate,
    live: Sequence[Existing],
    forgotten: Sequence[Existing],
    update_at: float,
    merge_at: float,
) -> Decision:
    """Choose the transition for ``candidate`` given the live memories of its scope."""
    for memory in live:
        if memory.fingerprint == candidate.fingerprint:
            return Decision("REINFORCE", memory.id, "same content seen again", 1.0)

    if candidate.key:
        for memory in live:
            if memory.key != candidate.key:
                continue
            if (memory.value or "") == (candidate.value or ""):
                return Decision(
                    "REINFORCE", memory.id, f"{candidate.key} is already {candidate.value!r}"
                )
            if _user_beats_inferred(candidate, memory):
                return Decision(
                    "SKIP",
                    memory.id,
                    f"user-stated {memory.key}={memory.value!r} beats inferred {candidate.value!r}",
                )
            return Decision(
                "SUPERSEDE",
                memory.id,
                f"{candidate.key} changed from {memory.value!r} to {candidate.value!r}",
            )

    if candidate.negates:
        key, value = candidate.negates
        for memory in live:
            if memory.key != key or (memory.value or "").lower() != value.lower():
                continue
            if memory.source == MARKDOWN_SOURCE:
                return Decision(
                    "SKIP",
                    memory.id,
                    f"contradicts the MEMORY.md preference {key}: {memory.value}; "
                    "change it in .codekeep/MEMORY.md",
                )
            if _user_beats_inferred(candidate, memory):
                return Decision(
                    "SKIP", memory.id, "contradicts a user-stated memory; user-stated wins"
                )
            return Decision("SUPERSEDE", memory.id, f"{key} is no longer {memory.value!r}")

    new = candidate.analysed
    same_kind = [m for m in live if m.kind == candidate.kind]
    for memory in same_kind:
        old = analyse(memory.content)
        if old.negated != new.negated and same_subject(old, new):
            if _user_beats_inferred(candidate, memory):
                return Decision(
                    "SKIP", memory.id, "contradicts a user-stated memory; user-stated wins"
                )
            return Decision("SUPERSEDE", memory.id, "negation conflict on the same subject")

    best: tuple[float, Existing] | None = None
    for memory in same_kind:
        old = analyse(memory.content)
        if old.negated != new.negated or (
            memory.key and candidate.key and memory.key != candidate.key
        ):
            continue
        if new.token_set and new.token_set < old.token_set:
            return Decision("SKIP", memory.id, "already covered by a more complete memory")
        score = jaccard(new.token_set, old.token_set)
        if best is None or score > best[0]:
            best = (score, memory)
    if best is not None and best[0] >= update_at:
        if _user_beats_inferred(candidate, best[1]):
            return Decision(
                "REINFORCE", best[1].id, "seen again; the user's wording is kept", best[0]
            )
        return Decision("UPDATE", best[1].id, "near-identical wording", best[0])
    if best is not None and best[0] >= merge_at and not _user_beats_inferred(candidate, best[1]):
        return Decision("MERGE", best[1].id, "overlapping content merged", best[0])

    if candidate.source not in USER_SOURCES:
        for memory in forgotten:
            if memory.fingerprint == candidate.fingerprint:
                return Decision(
                    "SKIP", memory.id, "the user forgot this memory; not re-learning it"
                )
    return Decision("ADD", None, None, best[0] if best else None)


_CLAUSE = re.compile(r"(?<=[.;!?。；])\s+|\n+")


def merge_contents(existing: str, new: str) -> str:
    """``existing`` plus the clauses of ``new`` that bring words it does not have yet."""
    known = analyse(existing).token_set
    if known <= analyse(new).token_set:
        return new  # the new wording already says everything the old one did
    additions = []
    for clause in _CLAUSE.split(new):
        clause = clause.strip().rstrip(".;")
        if clause and not analyse(clause).token_set <= known:
            additions.append(_new_tail(existing, clause))
            known = known | analyse(clause).token_set
    if not additions:
        return existing
    return existing.rstrip(" .;") + "; " + "; ".join(additions)


def _new_tail(existing: str, clause: str) -> str:
    """Drop the words a clause repeats from the start of ``existing`` ("X does A" + "X does B")."""
    old_words, new_words = existing.split(), clause.split()
    shared = 0
    while shared < min(len(old_words), len(new_words)) and (
        old_words[shared].lower() == new_words[shared].lower()
    ):
        shared += 1
    if shared < 3 or shared == len(new_words):
        return clause
    tail = new_words[shared:]
    if tail[0].lower() in ("and", "then", "also"):
        tail = tail[1:]
    return "also " + " ".join(tail) if tail else clause
