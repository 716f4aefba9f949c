"""Find the files worth indexing: .gitignore and the exclude list respected, loops avoided.

Walking never opens a file (FIFOs would block, huge files would cost); it only stats.
Reading, binary sniffing and the size cap happen in :mod:`codekeep.analysis.reading`.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pathspec

from codekeep.settings.codemap import IndexSettings


@dataclass(frozen=True, slots=True)
class Candidate:
    rel: str  # workspace-relative POSIX path
    size: int
    mtime_ns: int


@dataclass(slots=True)
class WalkReport:
    """Why entries were passed over, so ``codekeep index`` can say so."""

    skipped: dict[str, int]

    def note(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


class IgnoreList:
    """One list of gitignore patterns, matched exactly as ``pathspec`` matches it.

    pathspec tries every pattern in turn (a regex search each); a warm start matches
    every path of the tree against the exclude list, so on Django that was ~280k searches
    and most of the time of ``codekeep find`` as typed. A list without negations (the
    exclude list, most .gitignore files) ignores a path when any pattern matches, so its
    patterns are joined into one regex: one search per path. With a ``!pattern`` the
    order matters and pathspec decides.
    """

    def __init__(self, lines: list[str]):
        self._spec = pathspec.GitIgnoreSpec.from_lines(lines)
        active = [(p.include, regex) for p in self._spec.patterns
                  if p.include is not None and (regex := getattr(p, "regex", None)) is not None]
        self._joined: Callable[[str], re.Match[str] | None] | None = None
        if active and all(include and isinstance(regex.pattern, str)
                          and regex.flags == re.UNICODE for include, regex in active):
            # The directory-mark group decides priorities between patterns only.
            joined = re.compile("|".join(
                f"(?:{regex.pattern.replace('(?P<ps_d>', '(?:')})" for _, regex in active))
            # Anchored patterns (gitignore's all are) need only be tried at the start.
            anchored = all(regex.pattern.startswith("^") for _, regex in active)
            self._joined = joined.match if anchored else joined.search
        self._empty = not active

    def match_file(self, path: str) -> bool:
        if self._empty:
            return False
        if self._joined is not None:
            return self._joined(path) is not None
        return self._spec.match_file(path)


def _read_ignore_file(path: Path | str) -> IgnoreList | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            lines = file.read().splitlines()
    except OSError:  # missing, a folder, unreadable
        return None
    return IgnoreList(lines) if lines else None


class IgnoreRules:
    """The exclude list plus every .gitignore on the way down, each relative to its folder."""

    def __init__(self, root: Path, settings: IndexSettings):
        self.root = root
        self._root_text = str(root)
        self.settings = settings
        self.excludes = IgnoreList(list(settings.all_excludes))
        self._specs: dict[str, IgnoreList | None] = {}
        self._chains: dict[str, tuple[tuple[str, IgnoreList], ...]] = {}
        if settings.respect_gitignore:
            info_exclude = root / ".git" / "info" / "exclude"
            extra = _read_ignore_file(info_exclude) if info_exclude.is_file() else None
            self._specs["\0info"] = extra

    def _spec_for(self, directory: str) -> IgnoreList | None:
        if directory not in self._specs:
            # Opened without a stat first: a missing file costs the one failed open.
            gitignore = os.path.join(self._root_text, directory, ".gitignore")
            self._specs[directory] = _read_ignore_file(gitignore)
        return self._specs[directory]

    def _chain(self, directory: str) -> tuple[tuple[str, IgnoreList], ...]:
        """The .gitignore lists that apply inside ``directory`` (its own and its
        ancestors'), outermost first; worked out once per folder."""
        chain = self._chains.get(directory)
        if chain is None:
            outer = self._chain(directory.rpartition("/")[0]) if directory else ()
            spec = self._spec_for(directory)
            chain = (*outer, (directory, spec)) if spec is not None else outer
            self._chains[directory] = chain
        return chain

    def ignored(self, rel: str, is_dir: bool) -> bool:
        probe = rel + "/" if is_dir else rel
        if self.excludes.match_file(probe):
            return True
        if not self.settings.respect_gitignore:
            return False
        info = self._specs.get("\0info")
        if info is not None and info.match_file(probe):
            return True
        # Each ancestor folder's .gitignore sees the path relative to that folder.
        for directory, spec in self._chain(rel.rpartition("/")[0]):
            if spec.match_file(probe[len(directory) + 1:] if directory else probe):
                return True
        return False


def _inside(real: str, real_root: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def walk(
    root: Path, settings: IndexSettings, report: WalkReport,
    skip: Callable[[str], str | None] | None = None,
) -> Iterator[Candidate]:
    """Every regular file under ``root`` that is not ignored, in a stable order.

    ``skip(rel)`` may name a reason to pass a file over (noted in ``report``) before it
    is stat'ed: a plain file's type comes with the directory listing, so a file the
    caller does not want (no language reads it) costs no system call.
    """
    rules = IgnoreRules(root, settings)
    root_text = str(root)  # string joins: pathlib costs more than the syscalls here
    real_root = os.path.realpath(root_text)
    seen_dirs: set[tuple[int, int]] = set()
    try:
        root_stat = root.stat()
    except OSError:
        return
    seen_dirs.add((root_stat.st_dev, root_stat.st_ino))
    stack: list[str] = [""]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(os.path.join(root_text, directory)) as entries:
                listing = sorted(entries, key=lambda e: e.name)
        except OSError:
            report.note("unreadable directory")
            continue
        subdirs: list[str] = []
        for entry in listing:
            rel = f"{directory}/{entry.name}" if directory else entry.name
            try:
                is_link = entry.is_symlink()
                if is_link and not settings.follow_symlinks:
                    continue
                if is_link and not _inside(os.path.realpath(entry.path), real_root):
                    report.note("symlink out of the workspace")  # never indexed, never served
                    continue
                info = None if not is_link and entry.is_file(follow_symlinks=False) else (
                    entry.stat(follow_symlinks=True))
            except OSError:
                report.note("broken symlink" if entry.is_symlink() else "unreadable")
                continue
            if info is not None and stat.S_ISDIR(info.st_mode):
                if rules.ignored(rel, is_dir=True):
                    continue
                key = (info.st_dev, info.st_ino)
                if key in seen_dirs:  # symlink loop or a second path to the same folder
                    report.note("symlink loop")
                    continue
                seen_dirs.add(key)
                subdirs.append(rel)
            elif info is None or stat.S_ISREG(info.st_mode):
                if rules.ignored(rel, is_dir=False):
                    continue
                if skip is not None and (reason := skip(rel)) is not None:
                    report.note(reason)
                    continue
                try:
                    info = info or entry.stat(follow_symlinks=False)
                except OSError:
                    report.note("unreadable")
                    continue
                if info.st_nlink > 1:  # its other names may lie outside (the path guard's rule)
                    report.note("hard link")
                    continue
                yield Candidate(rel, info.st_size, info.st_mtime_ns)
            else:
                report.note("not a regular file")
        stack.extend(reversed(subdirs))
