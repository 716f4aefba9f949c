"""Find the files worth indexing: .gitignore and the exclude list respected, loops avoided.

Walking never opens a file (FIFOs would block, huge files would cost); it only stats.
Reading, binary sniffing and the size cap happen in :mod:`codekeep.analysis.reading`.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from codekeep.analysis.listings import FILE, SPECIAL, SUBDIR, Listings, file_stamp
from codekeep.settings.codemap import IndexSettings


class Candidate(NamedTuple):
    """A file the walk found (a tuple: a warm start makes one per file of the tree)."""

    rel: str  # workspace-relative POSIX path
    size: int
    mtime_ns: int


@dataclass(slots=True)
class WalkReport:
    """Why entries were passed over, so ``codekeep index`` can say so. With ``ignored``
    a list, the walk also appends (path, is a folder) of every entry an ignore rule or
    the exclude list passed over: what :mod:`.exclusions` explains."""

    skipped: dict[str, int]
    ignored: list[tuple[str, bool]] | None = None

    def note(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


# How pathspec compiles a bare name (``node_modules``, ``build/``): that name as a whole
# component anywhere in the path (followed by a slash, for the directory-only form).
_ANY_DEPTH = "^(?:.+/)?"
_FILE_OR_DIR, _DIR_ONLY = "(?:(?P<ps_d>/)|$)", "(?P<ps_d>/)"


def _bare_name(regex: str) -> tuple[str, bool] | None:
    """(name, directory only) when ``regex`` is pathspec's form of a bare name."""
    if not regex.startswith(_ANY_DEPTH):
        return None
    for suffix, dir_only in ((_FILE_OR_DIR, False), (_DIR_ONLY, True)):
        if regex.endswith(suffix):
            escaped = regex[len(_ANY_DEPTH):-len(suffix)]
            name = re.sub(r"\\(.)", r"\1", escaped)
            if name and "/" not in name and re.escape(name) == escaped:
                return name, dir_only
    return None


class IgnoreList:
    """One list of gitignore patterns, matched exactly as ``pathspec`` matches it.

    pathspec tries every pattern in turn (a regex search each); a warm start matches
    every path of the tree against the exclude list, so on Django that was ~280k searches
    and most of the time of ``codekeep find`` as typed. A list without negations (the
    exclude list, most .gitignore files) ignores a path when any pattern matches, so:
    bare names (the whole default exclude list) are looked up in a set by path
    component, and the other patterns are joined into one regex: one search per path.
    With a ``!pattern`` the order matters and pathspec decides.
    """

    def __init__(self, lines: list[str]):
        import pathspec  # only a walk that lists a folder matches anything

        self._spec = pathspec.GitIgnoreSpec.from_lines(lines)
        # pathspec drops empty lines: its pattern i is line _line_numbers[i] (1-based)
        self._line_numbers = [number for number, line in enumerate(lines, 1) if line]
        self._texts = [line for line in lines if line]
        active = [(p.include, regex) for p in self._spec.patterns
                  if p.include is not None and (regex := getattr(p, "regex", None)) is not None]
        self._joined: Callable[[str], re.Match[str] | None] | None = None
        self._names: frozenset[str] = frozenset()  # a component anywhere
        self._dir_names: frozenset[str] = frozenset()  # a component before a slash
        self._by_pathspec = bool(active)
        if active and all(include and isinstance(regex.pattern, str)
                          and regex.flags == re.UNICODE for include, regex in active):
            self._by_pathspec = False
            names: set[str] = set()
            dir_names: set[str] = set()
            rest = []
            for _, regex in active:
                bare = _bare_name(regex.pattern)
                if bare is None:
                    rest.append(regex)
                else:
                    (dir_names if bare[1] else names).add(bare[0])
            self._names, self._dir_names = frozenset(names), frozenset(dir_names)
            if rest:
                # The directory-mark group decides priorities between patterns only.
                joined = re.compile("|".join(
                    f"(?:{regex.pattern.replace('(?P<ps_d>', '(?:')})" for regex in rest))
                # Anchored patterns (gitignore's all are) need only be tried at the start.
                anchored = all(regex.pattern.startswith("^") for regex in rest)
                self._joined = joined.match if anchored else joined.search
        self._empty = not active

    def match_file(self, path: str) -> bool:
        if self._empty:
            return False
        if self._by_pathspec:
            return self._spec.match_file(path)
        if self._names or self._dir_names:
            parts = path.split("/")
            if not self._names.isdisjoint(parts):
                return True
            if self._dir_names and not self._dir_names.isdisjoint(parts[:-1]):
                return True
        return self._joined is not None and self._joined(path) is not None

    def deciding(self, path: str) -> tuple[int, str] | None:
        """(1-based line, pattern) of the rule that ignores ``path``; None when none
        does. Slow (pattern by pattern): for explaining, never for walking."""
        result = self._spec.check_file(path)
        if not result.include or result.index is None:
            return None
        return self._line_numbers[result.index], self._texts[result.index]


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
        self._excludes: IgnoreList | None = None  # compiled when first needed
        self._specs: dict[str, IgnoreList | None] = {}
        self._chains: dict[str, tuple[tuple[str, IgnoreList], ...]] = {}

    def listed(self, directory: str, has_gitignore: bool) -> None:
        """The walk listed ``directory``: without a .gitignore there, none is opened."""
        if not has_gitignore:
            self._specs.setdefault(directory, None)

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

    @property
    def excludes(self) -> IgnoreList:
        """The exclude list (a walk that reuses every listing never matches it)."""
        if self._excludes is None:
            self._excludes = IgnoreList(list(self.settings.all_excludes))
        return self._excludes

    def _info_exclude(self) -> IgnoreList | None:
        if "\0info" not in self._specs:
            info_exclude = self.root / ".git" / "info" / "exclude"
            self._specs["\0info"] = (_read_ignore_file(info_exclude)
                                     if info_exclude.is_file() else None)
        return self._specs["\0info"]

    def ignored(self, rel: str, is_dir: bool) -> bool:
        probe = rel + "/" if is_dir else rel
        if self.excludes.match_file(probe):
            return True
        if not self.settings.respect_gitignore:
            return False
        info = self._info_exclude()
        if info is not None and info.match_file(probe):
            return True
        # Each ancestor folder's .gitignore sees the path relative to that folder.
        for directory, spec in self._chain(rel.rpartition("/")[0]):
            if spec.match_file(probe[len(directory) + 1:] if directory else probe):
                return True
        return False

    def why(self, rel: str, is_dir: bool) -> IgnoreRule | None:
        """The rule :meth:`ignored` passes ``rel`` over by (the first it checks that
        matches), for saying so; None when it is not ignored."""
        probe = rel + "/" if is_dir else rel
        decided = self.excludes.deciding(probe)
        if decided is not None:
            number, pattern = decided
            built_in = number <= len(self.settings.exclude)
            return IgnoreRule("the built-in exclude list" if built_in
                              else "the exclude setting", None, pattern)
        if not self.settings.respect_gitignore:
            return None
        info = self._info_exclude()
        if info is not None and (decided := info.deciding(probe)) is not None:
            return IgnoreRule(".git/info/exclude", decided[0], decided[1])
        for directory, spec in self._chain(rel.rpartition("/")[0]):
            decided = spec.deciding(probe[len(directory) + 1:] if directory else probe)
            if decided is not None:
                source = f"{directory}/.gitignore" if directory else ".gitignore"
                return IgnoreRule(source, decided[0], decided[1])
        return None


class IgnoreRule(NamedTuple):
    """Where a rule that ignores a path is written: a file and its line, or a setting."""

    source: str  # ".gitignore", "src/.gitignore", ".git/info/exclude", or a setting
    line: int | None  # 1-based, in ``source`` when it is a file
    pattern: str

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line is not None else self.source
        return f"{where} `{self.pattern}`"


def _inside(real: str, real_root: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


class _Named:
    """A remembered entry looked at again, with the few DirEntry methods the walk uses."""

    __slots__ = ("name", "path")

    def __init__(self, directory: str, name: str):
        self.name = name
        self.path = f"{directory}/{name}"

    def is_symlink(self) -> bool:
        return stat.S_ISLNK(os.lstat(self.path).st_mode)

    def is_file(self, follow_symlinks: bool) -> bool:
        return stat.S_ISREG((os.stat if follow_symlinks else os.lstat)(self.path).st_mode)

    def stat(self, follow_symlinks: bool) -> os.stat_result:
        return os.stat(self.path) if follow_symlinks else os.lstat(self.path)


def start_listings(root_text: str, real_root: str, settings: IndexSettings,
                   listings: Listings) -> None:
    """Begin ``listings`` under the rules a walk of ``root_text`` (its real path
    ``real_root``) by ``settings`` keeps folders by: a memory made under others is dropped."""
    info_exclude = os.path.join(root_text, ".git", "info", "exclude")
    listings.start(real_root, list(settings.all_excludes), settings.respect_gitignore,
                   settings.follow_symlinks,
                   file_stamp(info_exclude) if settings.respect_gitignore else None)


def walk(
    root: Path, settings: IndexSettings, report: WalkReport,
    skip: Callable[[str], str | None] | None = None,
    listings: Listings | None = None,
) -> Iterator[Candidate]:
    """Every regular file under ``root`` that is not ignored, in a stable order.

    ``skip(rel)`` may name a reason to pass a file over (noted in ``report``) before it
    is stat'ed: a plain file's type comes with the directory listing, so a file the
    caller does not want (no language reads it) costs no system call. With
    ``listings`` (see :mod:`codekeep.analysis.listings`), a directory whose stat says
    it is unchanged is not listed again: its remembered entries are walked, with the
    same result, notes and order as listing it.
    """
    rules = IgnoreRules(root, settings)
    root_text = str(root)  # string joins: pathlib costs more than the syscalls here
    real_root = os.path.realpath(root_text)
    seen_dirs: set[tuple[int, int]] = set()
    looked_ns = time.time_ns()  # before any stat: see Listings.reusable
    try:
        root_stat = root.stat()
    except OSError:
        return
    if listings is not None:
        start_listings(root_text, real_root, settings, listings)
    seen_dirs.add((root_stat.st_dev, root_stat.st_ino))
    # (folder, its stat, when it was taken, may a remembered listing of it be used)
    stack: list[tuple[str, os.stat_result, int, bool]] = [("", root_stat, looked_ns, True)]
    while stack:
        directory, dir_stat, dir_looked_ns, trusted = stack.pop()
        full = f"{root_text}/{directory}" if directory else root_text
        remembered = (listings.reusable(directory, full, dir_stat)
                      if listings is not None and trusted else None)
        looked_ns = time.time_ns()  # before the stat of any subfolder
        subdirs: list[tuple[str, os.stat_result, int, bool]] = []
        if remembered is not None:
            rules.listed(directory, remembered.gitignore is not None)
            for why, count in remembered.notes.items():
                report.skipped[why] = report.skipped.get(why, 0) + count
            for entry_text in remembered.entries:
                kind, name = entry_text[0], entry_text[1:]
                rel = f"{directory}/{name}" if directory else name
                if kind == FILE:
                    file = _candidate(rel, f"{full}/{name}", os.lstat, report)
                    if file is not None:
                        yield file
                    continue
                if kind == SUBDIR:
                    try:
                        info = os.stat(f"{full}/{name}")
                    except OSError:
                        report.note("unreadable")
                        continue
                    if stat.S_ISDIR(info.st_mode) and _new_folder(info, seen_dirs, report):
                        subdirs.append((rel, info, looked_ns, True))
                    continue
                for found in _visit(_Named(full, name), rel, settings, rules, real_root, seen_dirs,
                                    report, skip):
                    if isinstance(found, Candidate):
                        yield found
                    else:
                        subdirs.append((rel, found, looked_ns, True))
        else:
            try:
                with os.scandir(full) as entries:
                    listing = sorted(entries, key=lambda e: e.name)
            except OSError:
                report.note("unreadable directory")
                continue
            has_gitignore = any(entry.name == ".gitignore" for entry in listing)
            rules.listed(directory, has_gitignore)
            kept: list[str] = []
            notes: dict[str, int] = {}
            gitignore = (file_stamp(os.path.join(full, ".gitignore"))
                         if listings is not None and has_gitignore else None)
            # What is below keeps its listings only if the rules above it are the same.
            below_trusted = listings is not None and trusted and (
                listings.previous_gitignore(directory) == gitignore)
            for entry in listing:
                rel = f"{directory}/{entry.name}" if directory else entry.name
                kind = _plain_kind(entry)
                if kind == SUBDIR:
                    try:
                        info = entry.stat(follow_symlinks=True)
                    except OSError:
                        kind = SPECIAL  # _visit says why, now and every time
                    else:
                        if rules.ignored(rel, is_dir=True):
                            if report.ignored is not None:
                                report.ignored.append((rel, True))
                            continue
                        kept.append(SUBDIR + entry.name)
                        if _new_folder(info, seen_dirs, report):
                            subdirs.append((rel, info, looked_ns, below_trusted))
                        continue
                if kind == SPECIAL:
                    kept.append(SPECIAL + entry.name)  # looked at again every time
                    for found in _visit(entry, rel, settings, rules, real_root, seen_dirs,
                                        report, skip):
                        if isinstance(found, Candidate):
                            yield found
                        else:
                            subdirs.append((rel, found, looked_ns, below_trusted))
                    continue
                if not _wanted(rel, rules, skip, report, notes):
                    continue
                kept.append(FILE + entry.name)
                file = _candidate(rel, entry.path, os.lstat, report)
                if file is not None:
                    yield file
            if listings is not None:
                listings.keep(directory, dir_stat, dir_looked_ns, gitignore, kept, notes)
        stack.extend(reversed(subdirs))


def _wanted(rel: str, rules: IgnoreRules, skip: Callable[[str], str | None] | None,
            report: WalkReport, notes: dict[str, int] | None = None) -> bool:
    """Is this file neither ignored nor skipped? A skip is noted (in ``notes`` too)."""
    if rules.ignored(rel, is_dir=False):
        if report.ignored is not None:
            report.ignored.append((rel, False))
        return False
    if skip is not None and (reason := skip(rel)) is not None:
        report.note(reason)
        if notes is not None:
            notes[reason] = notes.get(reason, 0) + 1
        return False
    return True


def _candidate(rel: str, path: str, stat_of: Callable[[str], os.stat_result],
               report: WalkReport) -> Candidate | None:
    """The file to yield, if its stat can be read and it has only this one name."""
    try:
        info = stat_of(path)
    except OSError:
        report.note("unreadable")
        return None
    if not stat.S_ISREG(info.st_mode):  # (a remembered file replaced: its folder changed)
        report.note("not a regular file")
        return None
    if info.st_nlink > 1:  # its other names may lie outside (the path guard's rule)
        report.note("hard link")
        return None
    return Candidate(rel, info.st_size, info.st_mtime_ns)


def _plain_kind(entry: os.DirEntry[str]) -> str:
    """SUBDIR or FILE for a plain folder or file (no symbolic link), else SPECIAL."""
    try:
        if entry.is_symlink():
            return SPECIAL
        if entry.is_file(follow_symlinks=False):
            return FILE
        return SUBDIR if entry.is_dir(follow_symlinks=False) else SPECIAL
    except OSError:
        return SPECIAL


def _new_folder(info: os.stat_result, seen_dirs: set[tuple[int, int]],
                report: WalkReport) -> bool:
    key = (info.st_dev, info.st_ino)
    if key in seen_dirs:  # symlink loop or a second path to the same folder
        report.note("symlink loop")
        return False
    seen_dirs.add(key)
    return True


def _visit(
    entry: os.DirEntry[str] | _Named, rel: str, settings: IndexSettings, rules: IgnoreRules,
    real_root: str, seen_dirs: set[tuple[int, int]], report: WalkReport,
    skip: Callable[[str], str | None] | None,
) -> Iterator[Candidate | os.stat_result]:
    """One entry of any type, every rule applied: a file to yield (a Candidate) or a
    folder to walk into (its stat), or nothing (noted in ``report`` when it says why)."""
    try:
        is_link = entry.is_symlink()
        if is_link and not settings.follow_symlinks:
            return
        if is_link and not _inside(os.path.realpath(entry.path), real_root):
            report.note("symlink out of the workspace")  # never indexed, never served
            return
        info = None if not is_link and entry.is_file(follow_symlinks=False) else (
            entry.stat(follow_symlinks=True))
    except OSError:
        try:
            broken = entry.is_symlink()
        except OSError:
            broken = False
        report.note("broken symlink" if broken else "unreadable")
        return
    if info is not None and stat.S_ISDIR(info.st_mode):
        if rules.ignored(rel, is_dir=True):
            if report.ignored is not None:
                report.ignored.append((rel, True))
        elif _new_folder(info, seen_dirs, report):
            yield info
    elif info is None or stat.S_ISREG(info.st_mode):
        if _wanted(rel, rules, skip, report):
            known = info
            found = _candidate(rel, entry.path, lambda path: known or os.lstat(path), report)
            if found is not None:
                yield found
    else:
        report.note("not a regular file")
