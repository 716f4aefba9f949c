"""Fuzzy symbol-name search: subsequences, camelCase/snake_case word starts, small typos.

The distinct names live in memory as one newline-joined, lower-cased string so that
candidate finding is a single C-speed regex scan (possessive quantifiers: linear, no
backtracking); only the candidates are scored in Python. ``gtUsr`` finds ``get_user``
and ``getUser`` because its letters fall on word starts and runs of those words.
"""

from __future__ import annotations

import bisect
import heapq
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from itertools import groupby
from typing import TYPE_CHECKING, Any, Protocol, overload

from codekeep.common.sqlite import like_escape

if TYPE_CHECKING:
    import numpy as np

# How many candidates get the full (Python) alignment score; the rest of a huge candidate
# set (one- or two-letter queries) is ranked by the cheap substring score alone.
FULL_SCORE_LIMIT = 600
# The typo pass (one forgiven letter) runs only when the query found almost nothing.
TYPO_PASS_BELOW = 3
# A query this short is the start of a name or of a word in it: its letters as a
# subsequence anywhere match most of a large repository's names (``s``: 290k of a
# kernel's 447k), which no scoring in Python gets through within a keystroke.
SHORT_QUERY = 2


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


def short_score(query: str, name: str) -> float | None:
    """:func:`score` for a query of at most :data:`SHORT_QUERY` letters, which matches only
    a name starting with it (exact, then prefix, as :func:`score` ranks them) or a name
    in which a word starts with it, at any of its occurrences (below every prefix; the
    shorter name first). None for anything else: a mid-word or scattered match of one
    or two letters says nothing."""
    if not query:
        return None
    lower, q = name.lower(), query.lower()
    if lower.startswith(q):
        return score(query, name)
    at = lower.find(q, 1)
    if at < 0:
        return None
    starts = word_starts(name)
    while at >= 0:
        if at in starts:
            return 0.75 + 0.1 * len(q) / len(lower)
        at = lower.find(q, at + 1)
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


# A name's bytes (UTF-8) as a bit set: a-z, 0-9 and "_" a bit each, any other byte folded
# into the bits left. A name holds a query as a subsequence only if it holds all of its
# bytes, so comparing bit sets (numpy, over every name at once) leaves the regex few names.
_OWN_BITS = b"abcdefghijklmnopqrstuvwxyz0123456789_"
_BYTE_BITS = [0 if byte == 10 else 1 << (_OWN_BITS.index(byte) if byte in _OWN_BITS else
                                         len(_OWN_BITS) + byte % (64 - len(_OWN_BITS)))
              for byte in range(256)]


def letter_mask(text: str) -> int:
    mask = 0
    for byte in set(text.encode("utf-8", "surrogatepass")):
        mask |= _BYTE_BITS[byte]
    return mask


def _line_masks(blob: str) -> np.ndarray[Any, np.dtype[np.uint64]]:
    """:func:`letter_mask` of every line of ``blob`` (each ends with a newline), at once."""
    import numpy as np

    data = np.frombuffer(blob.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    if not len(data):
        return np.zeros(0, dtype=np.uint64)
    ends = np.flatnonzero(data == 10)
    starts = np.concatenate(([0], ends[:-1] + 1))
    bits = np.array(_BYTE_BITS, dtype=np.uint64)[data]
    return np.bitwise_or.reduceat(bits, starts)


def _starts_of(lines: list[str]) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Where each line of ``"\\n".join(lines)`` starts, and one past the last line's
    newline (line i is ``blob[starts[i]:starts[i + 1] - 1]``)."""
    import numpy as np

    starts = np.zeros(len(lines) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, lines), dtype=np.int64, count=len(lines)) + 1,
              out=starts[1:])
    return starts


_SEPARATOR_BYTES = b"_-.$ "
_SEPARATOR, _DIGIT, _LETTER, _UPPER, _BOUNDARY = 1, 2, 4, 8, 16  # a byte's class, as bits
_ASCII_LOWER = bytes(range(256)).translate(
    bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz"))


def _byte_rows(positions: np.ndarray[Any, np.dtype[np.int64]],
               breaks: np.ndarray[Any, np.dtype[np.int64]]) -> np.ndarray[Any, Any]:
    """The line of each byte position (``breaks``: where the newlines are)."""
    import numpy as np

    return np.searchsorted(breaks, positions, side="left").astype(np.int64)


def _distinct(values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The sorted distinct values (by sorting: numpy's hashing ``unique`` took 10 s on a
    kernel's million word starts)."""
    import numpy as np

    ordered = np.sort(values)
    if len(ordered) < 2:
        return ordered
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


def _inner_word_starts(blob: str, spelled: str) -> tuple[
        np.ndarray[Any, np.dtype[np.uint16]], np.ndarray[Any, np.dtype[np.uint32]],
        np.ndarray[Any, np.dtype[np.int64]]]:
    """Where a word starts inside a name (not at its first letter), as (key, row) pairs
    sorted by key: the key is the word's first two bytes, lower-cased (``sp`` of
    ``dev_spin_lock``), so a one- or two-letter query finds the names in which one of its
    words starts with it by bisecting. Separators and digit switches are read from the
    lower-cased names, camelCase humps from the spellings (the rows of both align).
    The rows of names holding a non-ASCII byte come apart (the third array): their case
    and letters are Python's to judge, so every such row is a candidate."""
    import numpy as np

    table = np.frombuffer(_ASCII_LOWER, dtype=np.uint8)
    classes = np.zeros(256, dtype=np.uint8)  # one lookup per byte, then bit tests
    classes[list(_SEPARATOR_BYTES)] = _SEPARATOR
    classes[list(b"0123456789")] = _DIGIT
    classes[list(b"abcdefghijklmnopqrstuvwxyz")] = _LETTER
    classes[list(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")] = _UPPER
    classes[[9, 10]] = _BOUNDARY  # a line's end, a spelling's end (tab)
    keys: list[np.ndarray[Any, Any]] = []
    rows: list[np.ndarray[Any, Any]] = []
    unusual: list[np.ndarray[Any, Any]] = []
    for text, camel in ((blob, False), (spelled + "\n" if spelled else "", True)):
        data = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
        if len(data) < 2:
            continue
        breaks = np.flatnonzero(data == 10)
        unusual.append(_byte_rows(np.flatnonzero(data >= 128), breaks))
        kind = classes[data]
        before, at = kind[:-1], kind[1:]
        inner = ((before | at) & _BOUNDARY == 0) & (at & _SEPARATOR == 0)
        if camel:
            after = np.concatenate((kind[2:], np.array([_BOUNDARY], dtype=np.uint8)))
            start = inner & (at & _UPPER != 0) & ((before & _UPPER == 0)
                                                  | (after & _LETTER != 0))
        else:
            start = inner & ((before & _SEPARATOR != 0)
                             | ((at & _DIGIT != 0) & (before & _DIGIT == 0))
                             | ((at & _LETTER != 0) & (before & _DIGIT != 0)))
        positions = np.flatnonzero(start) + 1
        if positions.size:
            following = data[np.minimum(positions + 1, len(data) - 1)]
            keys.append(table[data[positions]].astype(np.uint16) * 256 + table[following])
            rows.append(_byte_rows(positions, breaks))
    odd = _distinct(np.concatenate(unusual)) if unusual else np.zeros(0, dtype=np.int64)
    if not keys:
        return np.zeros(0, dtype=np.uint16), np.zeros(0, dtype=np.uint32), odd
    pairs = _distinct(np.concatenate(keys).astype(np.int64) << 32 | np.concatenate(rows))
    return (pairs >> 32).astype(np.uint16), (pairs & 0xFFFFFFFF).astype(np.uint32), odd


class _Lines(Sequence[str]):
    """The i-th name of the blob, for bisecting it without a list of every name."""

    def __init__(self, blob: str, starts: np.ndarray[Any, np.dtype[np.int64]]):
        self._blob, self._starts = blob, starts

    def __len__(self) -> int:
        return len(self._starts) - 1

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self._blob[int(self._starts[index]):int(self._starts[index + 1]) - 1]


class NameIndex:
    """The distinct symbol names in memory, searchable fuzzily: what a long-lived code map
    (the server) searches with.

    Compact, because a kernel-sized index holds millions of names: one string of the
    lower-cased names in sorted order (a line each), numpy arrays of where each line
    starts and of its letters' bit set, and one more such string of the spellings of the
    names that are not lower case already: no Python object per name. Edits do not rebuild
    it: a name defined or undefined since (``add``, ``remove``) is kept aside, and when
    it is a candidate ``exists`` decides (the store, which holds the edit already;
    without one, the count of ``names`` and of the edits).
    """

    def __init__(self, names: Iterable[str] = (),
                 exists: Callable[[str], bool] | None = None):
        # (whole-list operations where it can: a kernel's millions of names are built
        # in a few passes, not a loop of dictionary updates per name)
        every = list(names)
        counts = Counter(every) if exists is None else Counter[str]()
        # (a store's names are distinct already)
        unique = list(dict.fromkeys(every)) if exists is None else every
        del every
        unique.sort()
        unique.sort(key=str.lower)  # (stable: the spellings of a line stay sorted)
        ordered: list[str] = []
        # a line's spellings, a line each too: "" for a name written in lower case only,
        # else every spelling, tab-separated (a kernel's macros are half its names: a dict
        # of them held a Python object per name, hundreds of MB)
        spellings: list[str] = []
        for lower, group in groupby(unique, key=str.lower):
            names = list(group)
            ordered.append(lower)
            spellings.append("" if names == [lower] else "\t".join(names))
        del unique
        self._spelled = "\n".join(spellings)
        self._spelled_starts = _starts_of(spellings)
        del spellings
        self._blob = "\n".join(ordered) + "\n" if ordered else ""
        starts = _starts_of(ordered)
        del ordered
        self._starts = starts
        self._masks = _line_masks(self._blob)
        self._lines = _Lines(self._blob, starts)
        self._word_keys, self._word_rows, self._unusual = _inner_word_starts(
            self._blob, self._spelled)
        self._touched: dict[str, int] = {}  # name -> definitions added minus removed since
        self._exists = exists or (
            lambda name: counts.get(name, 0) + self._touched.get(name, 0) > 0)

    def add(self, name: str) -> None:
        self._touched[name] = self._touched.get(name, 0) + 1

    def remove(self, name: str) -> None:
        self._touched[name] = self._touched.get(name, 0) - 1

    def search(self, query: str, limit: int | None) -> list[tuple[str, float]]:
        """Best-first (name, score) pairs (``limit`` None: every match)."""
        return rank(query, limit, self)

    def _rows(self, text: str, first: int, matches: Iterable[re.Match[str]],
              rows: np.ndarray[Any, np.dtype[np.int64]] | None = None) -> dict[str, int]:
        """Each matched line of ``text`` -> its row: ``text`` is the blob from row
        ``first`` on, or (``rows``) the lines of those rows joined."""
        import numpy as np

        found = list(matches)
        if not found:
            return {}
        positions = np.array([match.start() for match in found], dtype=np.int64)
        if rows is None:
            at = np.searchsorted(self._starts, positions + self._starts[first],
                                 side="right") - 1
        else:
            lengths = self._starts[rows + 1] - self._starts[rows]  # each with its newline
            offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
            at = rows[np.searchsorted(offsets, positions, side="right") - 1]
        return {match.group(0): row for match, row in zip(found, at.tolist(), strict=True)}

    def _spelled_at(self, row: int, lower: str) -> list[str]:
        line = self._spelled[int(self._spelled_starts[row]):
                             int(self._spelled_starts[row + 1]) - 1]
        return line.split("\t") if line else [lower]

    def _spellings(self, lowers: dict[str, int],
                   matches: Callable[[str], bool]) -> Candidates:
        """The candidates: the base's lower-cased names ``lowers`` (-> their row) and the
        names touched since whose lower case ``matches``, in sorted order, without the
        names gone."""
        found = {lower: self._spelled_at(row, lower) for lower, row in lowers.items()}
        if not self._touched:
            return found
        for name in self._touched:
            lower = name.lower()
            if matches(lower) and name not in found.get(lower, ()):
                found[lower] = [*found.get(lower, ()), name]
        kept: Candidates = {}
        for lower in sorted(found):
            names = [name for name in found[lower]
                     if name not in self._touched or self._exists(name)]
            if names:
                kept[lower] = names
        return kept

    def candidates(self, q: str) -> Candidates:
        if "\n" in q:
            return {}
        import numpy as np

        wanted = np.uint64(letter_mask(q))
        rows = np.flatnonzero((self._masks & wanted) == wanted)
        starts, ends = self._starts[rows].tolist(), (self._starts[rows + 1] - 1).tolist()
        blob = self._blob
        text = "\n".join([blob[a:b] for a, b in zip(starts, ends, strict=True)])
        pattern = _subsequence_pattern(q)
        lowers = self._rows(text, 0, pattern.finditer(text), rows)
        return self._spellings(lowers, lambda lower: pattern.match(lower) is not None)

    def short_candidates(self, q: str, want: int | None) -> tuple[Candidates, bool]:
        """For a query of at most :data:`SHORT_QUERY` letters: the names starting with
        it, then those in which a word starts with it, the shortest first — the order
        :func:`short_score` ranks them in — as far as the ``want``-th row (and every row
        as short as that one): a bounded set holding the best ``want`` names exactly,
        without a scan of every name. Non-ASCII names are always candidates (Python
        judges their letters). True when nothing that could match was left out."""
        import numpy as np

        lo = bisect.bisect_left(self._lines, q)
        hi = (len(self._lines) if ord(q[-1]) == 0x10FFFF
              else bisect.bisect_left(self._lines, q[:-1] + chr(ord(q[-1]) + 1)))
        rows = np.arange(lo, hi, dtype=np.int64)
        tiers = np.zeros(len(rows), dtype=np.int64)
        words = want is None or len(rows) < want + len(self._touched)
        if words:  # too few names start with it: the names where a word does come next
            encoded = q.encode("utf-8", "surrogatepass")
            inner = self._unusual
            if encoded.isascii():
                key = encoded[0] * 256 + (encoded[1] if len(encoded) > 1 else 0)
                upto = key + (1 if len(encoded) > 1 else 256)
                a, b = np.searchsorted(self._word_keys, [key, upto])
                inner = _distinct(np.concatenate((self._word_rows[a:b], inner)))
            inner = inner[(inner < lo) | (inner >= hi)]
            rows = np.concatenate((rows, inner))
            tiers = np.concatenate((tiers, np.ones(len(inner), dtype=np.int64)))
        complete, cutoff = words, None
        if want is not None and len(rows) > want:
            # (tier, length) of each row: lines hold their newline, so 1 + the length
            order = tiers << 32 | (self._starts[rows + 1] - self._starts[rows])
            cutoff = int(np.partition(order, want - 1)[want - 1])
            complete = False
            rows = rows[order <= cutoff]

        def edited(lower: str) -> bool:  # a name defined since, as far as the rows go
            if q not in lower:
                return False
            return cutoff is None or (int(not lower.startswith(q)) << 32 | len(lower) + 1) <= cutoff

        found = {self._lines[row]: row for row in rows.tolist()}
        return self._spellings(dict(sorted(found.items())), edited), complete

    def typo_candidates(self, q: str) -> Candidates:
        lo = bisect.bisect_left(self._lines, q[0])
        hi = bisect.bisect_left(self._lines, chr(ord(q[0]) + 1))
        bucket = self._blob[int(self._starts[lo]):int(self._starts[hi])]
        variants = [_subsequence_pattern(q[:i] + q[i + 1:]) for i in range(1, len(q))]
        found: dict[str, int] = {}
        for variant in variants:
            found.update(self._rows(bucket, lo, variant.finditer(bucket)))
        return self._spellings(dict(sorted(found.items())),
                               lambda lower: lower.startswith(q[0]) and any(
            v.match(lower) for v in variants))


class NamesLike(Protocol):
    def names_like(self, pattern: str) -> list[str]:
        """Distinct names matching the LIKE ``pattern`` (``\\`` escapes) and every
        name holding a non-ASCII character."""

    def names_by_start(self, prefixes: Sequence[str], globs: Sequence[str],
                       want: int | None) -> tuple[list[str], bool]:
        """Distinct ASCII names by prefixes, then GLOBs, the best ``want`` and ties."""

    def non_ascii_names(self) -> list[str]:
        """Distinct names holding a non-ASCII character."""


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

    def short_candidates(self, q: str, want: int | None) -> tuple[Candidates, bool]:
        """As :meth:`NameIndex.short_candidates`, from SQLite: the names starting with
        ``q`` (LIKE) or in which a word may start with it (GLOB patterns for separators,
        digit switches and camelCase humps: a superset), the first ``want`` by (tier,
        length) with their ties; non-ASCII names cut at the same place in Python."""
        if "\n" in q:
            return {}, True
        names, complete = self._store.names_by_start(_spellings_of(q), _word_globs(q), want)
        found = _grouped(names, lambda lower: q in lower)
        odd = _grouped(self._store.non_ascii_names(), lambda lower: q in lower)
        if not complete and names:
            last = max(_short_key(q, name.lower()) for name in names)
            odd = {lower: spelled for lower, spelled in odd.items()
                   if _short_key(q, lower) <= last}
        return {lower: found.get(lower, []) + odd.get(lower, [])
                for lower in sorted(found.keys() | odd.keys())}, complete

    def typo_candidates(self, q: str) -> Candidates:
        variants = [_subsequence_pattern(q[:i] + q[i + 1:]) for i in range(1, len(q))]
        return _grouped(self._store.names_like(like_escape(q[0]) + "%"),
                        lambda lower: lower.startswith(q[0]) and "\n" not in lower
                        and any(v.match(lower) for v in variants))


def _short_key(q: str, lower: str) -> tuple[bool, int]:
    """Where a short query's candidate stands: the names starting with it first, then
    the shorter (what both sources cut their candidates by)."""
    return not lower.startswith(q), len(lower)


def _spellings_of(q: str) -> list[str]:
    """Every ASCII spelling of ``q`` (``sp``: sp, sP, Sp, SP): a case-blind prefix as
    ranges of a case-sensitive index."""
    spellings = [""]
    for ch in q:
        cases = {ch, ch.upper()} if ch.isascii() else {ch}
        spellings = [s + c for s in spellings for c in sorted(cases)]
    return spellings


def _glob_class(ch: str) -> str:
    if ch.isascii() and ch.isalpha():
        return f"[{ch}{ch.upper()}]"
    return f"[{ch}]" if ch in "*?[]" else ch


def _word_globs(q: str) -> list[str]:
    """GLOB patterns of the names in which a word may start with ``q`` (lower case, one
    or two characters), as :func:`word_starts` finds them: after a separator, at a
    digit switch, at a camelCase hump (``HTTPServer``'s S too). None when ``q`` cannot
    start a word."""
    first, rest = q[0], "".join(_glob_class(ch) for ch in q[1:])
    if not first.isascii() or first in "_-.$ " or not q.isascii():
        return []
    globs = [f"*[_.$ -]{_glob_class(first)}{rest}*"]
    if first.isdigit():
        return [*globs, f"*[^0-9]{first}{rest}*"]
    if not first.isalpha():
        return globs
    upper = first.upper()
    following = q[1] if len(q) > 1 and q[1].isalpha() else "[a-z]" if len(q) == 1 else None
    globs += [f"*[0-9]{_glob_class(first)}{rest}*", f"*[^A-Z]{upper}{rest}*"]
    if following is not None:
        globs.append(f"*[A-Z]{upper}{following}*")
    return globs


class NameSource(Protocol):
    def candidates(self, q: str) -> Candidates: ...

    def short_candidates(self, q: str, want: int | None) -> tuple[Candidates, bool]: ...

    def typo_candidates(self, q: str) -> Candidates: ...


def rank(query: str, limit: int | None, source: NameSource) -> list[tuple[str, float]]:
    """Best-first (name, score) pairs of the names ``source`` holds (``limit`` None:
    every match): candidates by subsequence, scored in Python, typos when few match."""
    q = query.strip().lower()
    if not q:
        return []
    if len(q) <= SHORT_QUERY:
        return _rank_short(query.strip(), q, limit, source)
    found = source.candidates(q)
    lowers = list(found)
    scored: list[tuple[str, float]] = []
    if len(lowers) > FULL_SCORE_LIMIT:
        # Cheap pre-ranking: contiguous matches first, shorter names first.
        # (as sorting all of them and keeping the first: the same names, in the same order)
        lowers = heapq.nsmallest(FULL_SCORE_LIMIT, lowers,
                                 key=lambda lower: (q not in lower, len(lower)))
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


def _rank_short(query: str, q: str, limit: int | None,
                source: NameSource) -> list[tuple[str, float]]:
    """A one- or two-letter query, ranked by :func:`short_score` over the source's bounded
    candidates: exact top ``limit``. Asked again for four times as many rows when names
    in the set are gone (an edit removed them) or were not a match after all."""
    want = limit
    while True:
        found, complete = source.short_candidates(q, want)
        scored = [(name, value) for names in found.values() for name in names
                  if (value := short_score(query, name)) is not None]
        if complete or want is None or limit is None or len(scored) >= limit:
            break
        want *= 4
    scored.sort(key=lambda item: (-item[1], len(item[0]), item[0]))
    return scored[:limit]
