"""Why the index holds few files: which ignore rule, size cap or setting kept the rest out.

A tree whose ignore rules exclude everything is indexed without a single error: the
index is just empty (Debian's kernel source adds ``/*`` to the top-level .gitignore,
and every query then answers "nothing"). So ``codekeep index`` and ``codekeep doctor``
count the source files each rule kept out (a file some bundled language reads is a
source file) and say so when nothing, or less than a tenth, of them was indexed.

The walk notes what it passed over (:attr:`WalkReport.ignored`); here each noted entry
is attributed to its rule (pattern by pattern, slow, but only for what was ignored),
and the source files below each ignored folder are counted by a walk that stops after
:data:`COUNT_BUDGET` entries (its counts are then lower bounds, and said so).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from codekeep.analysis.discovery import IgnoreRules, WalkReport, walk
from codekeep.analysis.registry import LanguageRegistry, default_registry
from codekeep.settings.codemap import IndexSettings

WARN_SHARE = 0.9  # more than this share of the source files kept out: say which rules
COUNT_BUDGET = 100_000  # entries the count below ignored folders looks at, at most
NOT_IN_LANGUAGES = "not in the languages setting"  # a walk's skip reason
# Folders of version control and CodeKeep's own state: never source, never counted.
_NEVER_SOURCE = frozenset({".git", ".hg", ".svn", ".codekeep"})


@dataclass(frozen=True, slots=True)
class Exclusion:
    """One rule and how many source files it kept out of the index."""

    rule: str  # ".gitignore:159 `/*`", "the maxFileSize setting (1048576 bytes)" ...
    files: int


@dataclass(slots=True)
class Coverage:
    """How many of the tree's source files the index holds, and what kept the rest out."""

    indexed: int
    exclusions: list[Exclusion] = field(default_factory=list)  # most files first
    at_least: bool = False  # a count stopped at its budget: the excluded counts are lower bounds

    @property
    def excluded(self) -> int:
        return sum(e.files for e in self.exclusions)

    def worth_saying(self) -> bool:
        """Nothing indexed while rules kept files out, or more than WARN_SHARE kept out."""
        total = self.indexed + self.excluded
        return self.excluded > 0 and (self.indexed == 0 or self.excluded > WARN_SHARE * total)

    def summary(self) -> str:
        """One sentence: how much was kept out, and by which rules (most files first)."""
        more = "at least " if self.at_least else ""
        total = self.indexed + self.excluded
        head = ("no source file was indexed" if self.indexed == 0
                else f"only {self.indexed:,} of {more}{total:,} source files were indexed")
        rules = ", ".join(f"{e.rule} ({more}{e.files:,} files)" for e in self.exclusions[:5])
        if len(self.exclusions) > 5:
            rules += f" and {len(self.exclusions) - 5} more rules"
        return f"{head}; kept out by {rules}"

    def to_json(self) -> dict[str, object]:
        return {"indexed": self.indexed, "excluded": self.excluded, "atLeast": self.at_least,
                "exclusions": [{"rule": e.rule, "files": e.files} for e in self.exclusions]}


def explain(root: Path, settings: IndexSettings, report: WalkReport, indexed: int,
            too_large: int) -> Coverage:
    """The coverage of a walk that noted what it ignored (``report.ignored``): ``indexed``
    source files went in, ``too_large`` were over the size cap."""
    assert report.ignored is not None, "the walk must note what it ignored"
    every_language = default_registry()
    rules = IgnoreRules(root, settings)
    counts: dict[str, int] = {}
    budget = [COUNT_BUDGET]
    for rel, is_dir in report.ignored:
        if is_dir:
            if rel.rpartition("/")[2] in _NEVER_SOURCE:
                continue
            files = _source_files_below(os.path.join(str(root), rel), every_language, budget)
        else:
            files = 1 if every_language.for_path(rel) is not None else 0
        if files:
            rule = rules.why(rel, is_dir)
            name = str(rule) if rule is not None else "an ignore rule"
            counts[name] = counts.get(name, 0) + files
    if too_large:
        counts[f"the maxFileSize setting ({settings.max_file_bytes} bytes)"] = too_large
    if languages := report.skipped.get(NOT_IN_LANGUAGES, 0):
        chosen = ", ".join(settings.languages or ())
        counts[f"the languages setting ({chosen})"] = languages
    exclusions = sorted((Exclusion(rule, n) for rule, n in counts.items()),
                        key=lambda e: (-e.files, e.rule))
    return Coverage(indexed, exclusions, at_least=budget[0] <= 0)


def _source_files_below(folder: str, registry: LanguageRegistry, budget: list[int]) -> int:
    """Source files under ``folder`` (no symbolic link followed), while ``budget[0]``
    (entries still to look at, shared by every call of one explanation) lasts."""
    found = 0
    stack = [folder]
    while stack and budget[0] > 0:
        try:
            with os.scandir(stack.pop()) as entries:
                listing = list(entries)
        except OSError:
            continue
        budget[0] -= len(listing)
        for entry in listing:
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError:
                continue
            if stat.S_ISDIR(mode):
                if entry.name not in _NEVER_SOURCE:
                    stack.append(entry.path)
            elif stat.S_ISREG(mode) and registry.for_path(entry.name) is not None:
                found += 1
    return found


def survey(root: Path, settings: IndexSettings, registry: LanguageRegistry) -> Coverage:
    """The coverage the index of ``root`` by ``settings`` would have, by walking it now
    (reads no file, writes nothing): what ``codekeep doctor`` reports."""
    report = WalkReport({}, ignored=[])
    indexed = too_large = 0
    for candidate in walk(root, settings, report, skip=lambda rel: skip_reason(
            rel, registry, settings)):
        if candidate.size > settings.max_file_bytes:
            too_large += 1
        else:
            indexed += 1
    return explain(root, settings, report, indexed, too_large)


def skip_reason(rel: str, registry: LanguageRegistry, settings: IndexSettings) -> str | None:
    """Why the walk passes a file over before its stat (None: it is read): no language
    reads it, or only one the languages setting left out."""
    if registry.for_path(rel) is not None:
        return None
    if settings.languages is not None and default_registry().for_path(rel) is not None:
        return NOT_IN_LANGUAGES
    return "unsupported language"

