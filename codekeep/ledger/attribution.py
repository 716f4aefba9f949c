"""Splitting a call's input tokens over the files its prompt carries, and the overhead.

Weights are characters: a file weighs the characters of its text present in the prompt
(a 40-line excerpt of a huge file weighs 40 lines, not the file size; a file compressed
out of the context weighs nothing), and whatever else the prompt holds goes to named
overhead buckets — the system prompt (with memory and nudges), the tool schemas, and
the conversation (the task, the model's own messages, tool output that is not file
text); for another host's calls, whose logs do not break the prompt down, the rest is
one bucket, the host's context. Largest-remainder rounding makes the integer parts sum
exactly to the total, so the by-file report (files + buckets) adds up to the by-type report.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath

# Overhead bucket -> the key it is stored and reported under next to file paths.
OVERHEAD_BUCKETS = {
    "system": "<system prompt>",
    "tools": "<tool schemas>",
    "conversation": "<conversation>",
    # Another host's prompt beyond the files it carried (its logs do not break it down).
    "context": "<host context>",
}
CONTEXT_KEY = OVERHEAD_BUCKETS["context"]
_BUCKET_KEYS = frozenset(OVERHEAD_BUCKETS.values())


def is_overhead(key: str) -> bool:
    """Whether a by-file key is an overhead bucket rather than a workspace file."""
    return key in _BUCKET_KEYS


def overhead_keys(overhead: Mapping[str, int] | None) -> dict[str, int]:
    """``bucket -> characters`` as stored keys; raises ``ValueError`` for an unknown bucket
    or a negative count (nothing is recorded then)."""
    if not overhead:
        return {}
    stored: dict[str, int] = {}
    for bucket, chars in overhead.items():
        key = OVERHEAD_BUCKETS.get(bucket)
        if key is None:
            raise ValueError(f"unknown overhead bucket {bucket!r}; expected one of "
                             f"{', '.join(OVERHEAD_BUCKETS)}")
        if type(chars) is not int or chars < 0:
            raise ValueError(f"characters of overhead {bucket!r} must be a non-negative integer")
        if chars:
            stored[key] = chars
    return stored


def split_tokens(total: int, weights: Mapping[str, int]) -> dict[str, int]:
    """``total`` divided over ``weights``' keys in proportion to their values.

    All-zero weights (files opened but nothing read) fall back to equal shares; ties in
    the remainders go to the earlier key so the result is deterministic.
    """
    if not weights:
        return {}
    if len(weights) == 1:  # the common single-file read: no arithmetic needed
        (path, weight), = weights.items()
        if weight < 0:
            raise ValueError("file weights (characters read) must not be negative")
        return {path: total}
    keys = list(weights)
    raw = list(weights.values())
    if min(raw) < 0:
        raise ValueError("file weights (characters read) must not be negative")
    denominator = sum(raw)
    if denominator == 0:
        raw = [1] * len(keys)
        denominator = len(keys)
    quotients = [total * weight // denominator for weight in raw]
    leftover = total - sum(quotients)
    if leftover:
        negated = [quotient * denominator - total * weight  # -remainder, for an ascending sort
                   for quotient, weight in zip(quotients, raw, strict=True)]
        # sorted() is stable: equal remainders keep file order
        for index in sorted(range(len(keys)), key=negated.__getitem__)[:leftover]:
            quotients[index] += 1
    return dict(zip(keys, quotients, strict=True))


def normalise_path(path: str, root: Path) -> str:
    """Workspace-relative POSIX path when ``path`` lies inside ``root``, else as given.

    Code lenses look files up by their relative path, so an absolute path from a tool
    and a relative one from the CLI must land on the same key.
    """
    candidate = Path(path)
    if candidate.is_absolute():
        for absolute in (candidate, candidate.resolve()):
            if absolute.is_relative_to(root):
                return absolute.relative_to(root).as_posix()
        return candidate.as_posix()
    return PurePosixPath(path.replace("\\", "/")).as_posix()


def characters_in_files(paths: list[str], root: Path) -> dict[str, int]:
    """``path -> characters`` of whole files, for callers that only know which files
    a call read (the ``codekeep ledger record --file`` door). Raises ``ValueError`` for a
    missing or unreadable file so the call is not recorded with a wrong weight."""
    sizes: dict[str, int] = {}
    for path in paths:
        candidate = Path(path)
        resolved = candidate if candidate.is_absolute() else root / candidate
        try:
            sizes[path] = len(resolved.read_text(encoding="utf-8", errors="replace"))
        except OSError as exc:
            raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return sizes
