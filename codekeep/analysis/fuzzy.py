"""Fuzzy symbol-name search: subsequences, camelCase/snake_case word starts, small typos.

The distinct names live in memory as one newline-joined, lower-cased string so that
candidate finding is a single C-speed regex scan (possessive quantifiers: linear, no
backtracking); only the candidates are scored in Python. ``gtUsr`` finds ``get_user``
and ``getUser`` because its letters fall on word starts and runs of those words.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable
from typing import Protocol

from codekeep.common.sqlite import like_escape

# How many candidates get the full (Python) alignment score; the rest of a huge candidate
# set (one- or two-letter queries) is ranked by the cheap substring score alone.
FULL_SCORE_LIMIT = 600
# The typo pass (one forgiven letter) runs only when the query found almost nothing.
TYPO_PASS_BELOW = 3


def word_starts(name: str) -> frozenset[int]:
    """Positions where a word begins: after _ - . $ or digits, and at camelCase humps."""
    starts = set()
    previous = ""
    for i, ch in enumerate(name):
        if ch in "_-.$ ":
            previous = ch
            continue
        if (
            i == 0
            or previous in "_-.$ "
            or (ch.isupper() and not previous.isupper())
            or (ch.isupper() and i + 1 < len(name) and name[i + 1].islower() and previous.isupper())
            or (ch.isdigit() and not previous.isdigit())
            or (ch.isalpha() and previous.isdigit())
        ):
            starts.add(i)
        previous = ch
    return frozenset(starts)


def _align(query: str, lower: str, starts: frozenset[int], prefer_starts: bool) -> float | None:
    """Quality in (0, 1] of placing every query letter in order, or None if impossible."""
    points = 0.0
    pos = 0
    last = -2
    for ch in query:
        found = -1
        if last >= 0 and last + 1 < len(lower) and lower[last + 1] == ch:
            found = last + 1  # continue the current run
        elif prefer_starts:
            for start in sorted(s for s in starts if s >= pos):
                if lower[start] == ch:
                    found = start
                    break
        if found < 0:
            found = lower.find(ch, pos)
            if found < 0:
                return None
        if found in starts:
            points += 1.0
        elif found == last + 1:
            points += 0.7
        else:
            points += 0.2
        last = found
        pos = found + 1
    return points / len(query)


def score(query: str, name: str) -> float | None:
    """How well ``name`` matches ``query``: 1.0 exact, higher is better, None = no match."""
    if not query:
        return None
    if name == query:
        return 1.0
    lower, q = name.lower(), query.lower()
    if lower == q:
        return 0.97
    coverage = len(q) / max(len(lower), 1)
    if lower.startswith(q):
        return 0.85 + 0.1 * coverage
    starts = word_starts(name)
    index = lower.find(q)
    if index >= 0:
        return (0.75 if index in starts else 0.6) + 0.1 * coverage
    best = None
    for prefer in (True, False):
        quality = _align(q, lower, starts, prefer)
        if quality is not None and (best is None or quality > best):
            best = quality
    if best is not None:
        first_bonus = 0.05 if lower[0] == q[0] else 0.0
        return 0.2 + 0.35 * best + 0.05 * coverage + first_bonus
    return None


def typo_score(query: str, name: str) -> float | None:
    """A match after forgiving one wrong, missing, extra or swapped letter (lower score)."""
    q = query.lower()
    best = None
    for i in range(1, len(q)):  # the first letter is trusted
        variant = q[:i] + q[i + 1:]
        found = score(variant, name)
        if found is not None and (best is None or found > best):
            best = found
    return None if best is None else best * 0.6


def _subsequence_pattern(query: str) -> re.Pattern[str]:
    parts = [f"[^\\n{re.escape(ch)}]*+{re.escape(ch)}" for ch in query]
    return re.compile("^" + "".join(parts) + "[^\\n]*", re.MULTILINE)


# What a candidate step gives: the lower-cased names that may match, each with the
# names that lower-case to it, in sorted order of the lower-cased name.
Candidates = dict[str, list[str]]


def _grouped(names: Iterable[str], keep: Callable[[str], bool]) -> Candidates:
    groups: Candidates = {}
    for name in names:
        lower = name.lower()
        if keep(lower):
            groups.setdefault(lower, []).append(name)
    return {lower: groups[lower] for lower in sorted(groups)}


class NameIndex:
    """The distinct symbol names in memory, searchable fuzzily; rebuilt lazily after
    changes. What a long-lived code map (the server) searches with."""

    def __init__(self, names: Iterable[str] = ()):
        self._counts: dict[str, int] = {}
        for name in names:
            self.add(name)
        self._blob: str | None = None
        self._line_starts: list[int] = []
        self._lines: list[str] = []  # lower-cased name per line of the blob
        self._originals: dict[str, list[str]] = {}

    @classmethod
    def from_counts(cls, counts: dict[str, int]) -> NameIndex:
        """An index of names defined ``counts[name]`` times (one dict, no per-name calls:
        a one-shot ``codekeep search`` builds it for ~50k names)."""
        index = cls()
        index._counts = {name: count for name, count in counts.items() if count > 0}
        return index

    def add(self, name: str) -> None:
        count = self._counts.get(name, 0)
        self._counts[name] = count + 1
        if count == 0:
            self._blob = None

    def remove(self, name: str) -> None:
        count = self._counts.get(name, 0)
        if count <= 1:
            if self._counts.pop(name, None) is not None:
                self._blob = None
        else:
            self._counts[name] = count - 1

    def _build(self) -> str:
        if self._blob is None:
            originals: dict[str, list[str]] = {}
            for name in self._counts:
                originals.setdefault(name.lower(), []).append(name)
            self._originals = originals
            self._lines = sorted(originals)
            self._line_starts = []
            offset = 0
            for line in self._lines:
                self._line_starts.append(offset)
                offset += len(line) + 1
            self._blob = "\n".join(self._lines)
        return self._blob

    def candidates(self, q: str) -> Candidates:
        blob = self._build()
        if "\n" in q:
            return {}
        found: dict[str, None] = {}
        for match in _subsequence_pattern(q).finditer(blob):
            found[match.group(0)] = None
        return {lower: self._originals[lower] for lower in found}

    def typo_candidates(self, q: str) -> Candidates:
        self._build()
        lo = bisect.bisect_left(self._lines, q[0])
        hi = bisect.bisect_left(self._lines, chr(ord(q[0]) + 1))
        bucket = "\n".join(self._lines[lo:hi])
        found: dict[str, None] = {}
        for i in range(1, len(q)):
            for match in _subsequence_pattern(q[:i] + q[i + 1:]).finditer(bucket):
                found[match.group(0)] = None
        return {lower: self._originals[lower] for lower in sorted(found)}

    def search(self, query: str, limit: int | None) -> list[tuple[str, float]]:
        """Best-first (name, score) pairs (``limit`` None: every match)."""
        if not self._counts:
            return []
        return rank(query, limit, self)


class NamesLike(Protocol):
    def names_like(self, pattern: str) -> list[str]:
        """Distinct names matching the LIKE ``pattern`` (``\\`` escapes) and every
        name holding a non-ASCII character."""


class StoredNames:
    """The candidate step done by SQLite over the index's names: what a one-shot query
    (``codekeep search``) uses instead of loading every name into a :class:`NameIndex`.

    ``LIKE '%g%t%u%'`` is the subsequence test, case-blind for ASCII letters only, so
    names with any other character come back too and every name is checked here with
    the same pattern as the in-memory index: the candidates are exactly its own.
    """

    def __init__(self, store: NamesLike):
        self._store = store

    def candidates(self, q: str) -> Candidates:
        if "\n" in q:
            return {}
        pattern = _subsequence_pattern(q)
        like = "%" + "%".join(like_escape(ch) for ch in q) + "%"
        return _grouped(self._store.names_like(like),
                        lambda lower: pattern.match(lower) is not None)

    def typo_candidates(self, q: str) -> Candidates:
        variants = [_subsequence_pattern(q[:i] + q[i + 1:]) for i in range(1, len(q))]
        return _grouped(self._store.names_like(like_escape(q[0]) + "%"),
                        lambda lower: lower.startswith(q[0]) and "\n" not in lower
                        and any(v.match(lower) for v in variants))


class NameSource(Protocol):
    def candidates(self, q: str) -> Candidates: ...

    def typo_candidates(self, q: str) -> Candidates: ...


def rank(query: str, limit: int | None, source: NameSource) -> list[tuple[str, float]]:
    """Best-first (name, score) pairs of the names ``source`` holds (``limit`` None:
    every match): candidates by subsequence, scored in Python, typos when few match."""
    q = query.strip().lower()
    if not q:
        return []
    found = source.candidates(q)
    lowers = list(found)
    scored: list[tuple[str, float]] = []
    if len(lowers) > FULL_SCORE_LIMIT:
        # Cheap pre-ranking: contiguous matches first, shorter names first.
        lowers.sort(key=lambda lower: (q not in lower, len(lower)))
        lowers = lowers[:FULL_SCORE_LIMIT]
    for lower in lowers:
        for name in found[lower]:
            value = score(query.strip(), name)
            if value is not None:
                scored.append((name, value))
    wanted = TYPO_PASS_BELOW if limit is None else min(limit, TYPO_PASS_BELOW)
    if len(scored) < wanted and len(q) >= 3:
        have = {name for name, _ in scored}
        for names in source.typo_candidates(q).values():
            for name in names:
                if name in have:
                    continue
                value = typo_score(query.strip(), name)
                if value is not None:
                    scored.append((name, value))
    scored.sort(key=lambda item: (-item[1], len(item[0]), item[0]))
    return scored[:limit]
