"""The two sides of a git diff, read in two git processes whatever the diff's size.

``git diff --raw`` names the changed files with the blob each side holds; one ``git
cat-file --batch`` then reads every blob at once. (A ``git show`` per file and side cost
a process each: 40 of them for a 20-file diff, a third of the whole answer.) A side that
is the files on disk is read from disk.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from codekeep.analysis.errors import CodeMapError

NO_BLOB = "0" * 40
GIT_TIMEOUT_S = 60


class ImpactError(CodeMapError):
    """The diff could not be read (not a git repository, an unknown revision)."""


@dataclass(frozen=True, slots=True)
class DiffSides:
    """Which two states of the tree to compare: git revisions, ``:`` for the index,
    None for the files on disk."""

    base: str | None
    head: str | None

    @classmethod
    def of(cls, rev_range: str | None, *, staged: bool = False,
           worktree: bool = False) -> DiffSides:
        if staged:
            return cls("HEAD", ":")
        if worktree:
            return cls(":", None)
        if rev_range is None:
            return cls("HEAD", None)
        if ".." in rev_range:
            base, _dots, head = rev_range.partition("..")
            return cls(base.rstrip(".") or "HEAD", head.lstrip(".") or "HEAD")
        return cls(rev_range, None)

    def label(self, side: str | None) -> str:
        return {None: "worktree", ":": "index"}.get(side, side or "")


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """One file the diff names, with the bytes of each side (None: not on that side)."""

    path: str
    before: bytes | None
    after: bytes | None


def _run(root: Path, args: list[str], stdin: bytes | None = None) -> bytes:
    done = subprocess.run(["git", "-C", str(root), *args], input=stdin, capture_output=True,
                          timeout=GIT_TIMEOUT_S, check=False)
    if done.returncode == 0:
        return done.stdout
    inside = subprocess.run(["git", "-C", str(root), "rev-parse", "--is-inside-work-tree"],
                            capture_output=True, timeout=GIT_TIMEOUT_S, check=False)
    if inside.returncode != 0:
        # git's own answer outside a repository is its usage text: say what is wrong
        raise ImpactError(f"'{root}' is not in a git repository: impact maps a git diff "
                          "to the symbols it touches")
    message = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
    raise ImpactError(f"'git {' '.join(args)}' failed: "
                      f"{message[-1] if message else 'no message'}")


def _diff_args(sides: DiffSides) -> list[str]:
    args = ["diff", "--raw", "-z", "--no-renames", "--no-abbrev", "--relative"]
    if sides.head == ":":
        return [*args, "--cached", sides.base or "HEAD"]
    if sides.base == ":":
        return args  # the files on disk against the index
    return [*args, sides.base or "HEAD", *([sides.head] if sides.head is not None else [])]


def _raw_entries(out: bytes) -> list[tuple[str, str | None, str | None]]:
    """(path, blob before, blob after) of each ``--raw -z`` record
    (``:old_mode new_mode old_blob new_blob status\\0path\\0``); None: not on that side
    (added, deleted). A side on disk has no blob yet: :data:`NO_BLOB`."""
    fields = out.split(b"\0")
    entries: list[tuple[str, str | None, str | None]] = []
    for header, name in zip(fields[0::2], fields[1::2], strict=False):
        parts = header.decode("ascii").split()
        if len(parts) < 5 or not name:
            continue
        old_blob, new_blob, status = parts[2], parts[3], parts[4]
        before = None if status.startswith("A") else old_blob
        after = None if status.startswith("D") else new_blob
        entries.append((name.decode("utf-8", errors="surrogateescape"), before, after))
    return entries


def _blobs(root: Path, blobs: set[str]) -> dict[str, bytes]:
    """Every blob's bytes, read by one ``git cat-file --batch``."""
    if not blobs:
        return {}
    ordered = sorted(blobs)
    out = _run(root, ["cat-file", "--batch"], "".join(f"{b}\n" for b in ordered).encode())
    found: dict[str, bytes] = {}
    at = 0
    for blob in ordered:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        at = end + 1
        if len(header) != 3:  # "<blob> missing"
            continue
        size = int(header[2])
        found[blob] = out[at:at + size]
        at += size + 1  # the content and its newline
    return found


def read_diff(root: Path, sides: DiffSides,
              wanted: Callable[[str], bool] = lambda _path: True) -> list[ChangedFile]:
    """The files the diff names, in path order, with both sides' bytes; only the paths
    ``wanted`` accepts are read (the others come with None on both sides: a binary or a
    file no language reads is never fetched)."""
    entries = sorted(_raw_entries(_run(root, _diff_args(sides))), key=lambda e: e[0])
    keep = [(path, before, after) for path, before, after in entries if wanted(path)]
    on_disk = sides.head is None
    blobs = _blobs(root, {blob for _path, before, after in keep
                          for blob in (before, None if on_disk else after)
                          if blob is not None and blob != NO_BLOB})
    kept = {path for path, _before, _after in keep}
    files = []
    for path, before, after in entries:
        if path not in kept:
            files.append(ChangedFile(path, None, None))
            continue
        if after is None:
            new = None
        elif on_disk:
            try:
                new = (root / path).read_bytes()
            except OSError:
                new = None
        else:
            new = blobs.get(after)
        files.append(ChangedFile(path, None if before is None else blobs.get(before), new))
    return files
