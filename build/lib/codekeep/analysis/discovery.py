"""Find the files worth indexing: .gitignore and the exclude list respected, loops avoided.

Walking never opens a file (FIFOs would block, huge files would cost); it only stats.
Reading, binary sniffing and the size cap happen in :mod:`codekeep.analysis.reading`.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pathspec

from codekeep.analysis.settings import IndexSettings


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


def _read_ignore_file(path: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines) if lines else None


class IgnoreRules:
    """The exclude list plus every .gitignore on the way down, each relative to its folder."""

    def __init__(self, root: Path, settings: IndexSettings):
        self.root = root
        self.settings = settings
        self.excludes = pathspec.GitIgnoreSpec.from_lines(settings.all_excludes)
        self._specs: dict[str, pathspec.GitIgnoreSpec | None] = {}
        if settings.respect_gitignore:
            info_exclude = root / ".git" / "info" / "exclude"
            extra = _read_ignore_file(info_exclude) if info_exclude.is_file() else None
            self._specs["\0info"] = extra

    def _spec_for(self, directory: str) -> pathspec.GitIgnoreSpec | None:
        if directory not in self._specs:
            base = self.root / directory if directory else self.root
            gitignore = base / ".gitignore"
            self._specs[directory] = _read_ignore_file(gitignore) if gitignore.is_file() else None
        return self._specs[directory]

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
        parts = rel.split("/")
        for depth in range(len(parts)):
            directory = "/".join(parts[:depth])
            spec = self._spec_for(directory)
            tail = "/".join(parts[depth:]) + ("/" if is_dir else "")
            if spec is not None and spec.match_file(tail):
                return True
        return False


def walk(root: Path, settings: IndexSettings, report: WalkReport) -> Iterator[Candidate]:
    """Every regular file under ``root`` that is not ignored, in a stable order."""
    rules = IgnoreRules(root, settings)
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
            with os.scandir(root / directory if directory else root) as entries:
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
                info = entry.stat(follow_symlinks=True)
            except OSError:
                report.note("broken symlink" if entry.is_symlink() else "unreadable")
                continue
            if stat.S_ISDIR(info.st_mode):
                if rules.ignored(rel, is_dir=True):
                    continue
                key = (info.st_dev, info.st_ino)
                if key in seen_dirs:  # symlink loop or a second path to the same folder
                    report.note("symlink loop")
                    continue
                seen_dirs.add(key)
                subdirs.append(rel)
            elif stat.S_ISREG(info.st_mode):
                if not rules.ignored(rel, is_dir=False):
                    yield Candidate(rel, info.st_size, info.st_mtime_ns)
            else:
                report.note("not a regular file")
        stack.extend(reversed(subdirs))
