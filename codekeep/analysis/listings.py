"""Remembered directory listings: a warm walk lists only the directories that changed.

A warm start must see every file that was added, removed or edited. Edits show in the
file's own stat (size, mtime), which the walk reads for every file it yields anyway;
additions, removals and renames show in the *directory's* stat: creating, deleting or
renaming an entry changes the directory's mtime and ctime (as git's untracked cache
relies on). So once a directory has been listed, what the walk kept from it (the
folders it walks into, the files it yields, the entries it must look at again) is
remembered with the directory's inode, mtime and ctime; next time, a directory whose
stat is unchanged is not listed again, and the ignore rules and the language of its
other entries are not worked out again.

What would make a remembered listing wrong, and how each is caught:

* an entry added or removed in the same clock tick as the listing (file times are
  coarse): a listing is trusted only if the directory had not changed for
  ``racy_ns`` before it was looked at (git's "racy" rule);
* a ``.gitignore`` edited in place (its folder's stat does not change): its own stat is
  remembered and compared; when it changed, that folder and everything below it are
  listed again;
* the exclude list, ``respectGitignore``, ``followSymlinks``, the languages read,
  ``.git/info/exclude`` or the root's real path changing: the whole memory is dropped
  (a fingerprint of them is kept with it);
* symbolic links and other special entries (their target can change anywhere): never
  remembered as what they were, they are looked at again on every walk;
* a ``chmod`` or a ``touch -d`` that puts an mtime back: the ctime changes too.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Mapping
from typing import Any, NamedTuple

# Bump when what a listing records or means changes: older memories are dropped.
FORMAT = 1
# Kinds of remembered entries.
SUBDIR, FILE, SPECIAL = "d", "f", "s"


def file_stamp(path: str) -> list[int] | None:
    """The stat of a ``.gitignore`` (None: there is none, or it cannot be read)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def fingerprint(*parts: Any) -> str:
    """Everything that decides what a walk keeps from a listing, as one string."""
    return json.dumps([FORMAT, *parts], separators=(",", ":"))


class Remembered(NamedTuple):
    """A folder as the walk last kept it: ``entries`` are kind + name (``"fa.py"``) in
    walk order, ``notes`` the skip reasons of the files it passed over, with how many."""

    gitignore: list[int] | None
    entries: list[str]
    notes: dict[str, int]


# A damaged memory must never name "", "." or "..": the walk would leave the folder.
_NOT_A_NAME = re.compile(r"(?:^|/)[^/]?\.{0,2}(?:/|$)")


class Listings:
    """The remembered listings of one workspace, read before a walk and written after.

    ``state`` is what :meth:`dump` gave last time (None: nothing remembered); ``skips``
    says what the walk's ``skip`` passes over (the languages read). The walk then calls
    :meth:`start` with its own rules: a memory made under other rules is dropped.
    """

    def __init__(self, state: str | None, skips: str, racy_ns: int):
        self.skips = skips
        self.racy_ns = racy_ns
        self.rules = ""
        self._state = state
        self._previous: dict[str, list[Any]] = {}
        self._kept: dict[str, list[Any]] = {}
        self.changed = False

    def start(self, *rules: Any) -> None:
        """Begin a walk under ``rules`` (JSON values)."""
        self.rules = fingerprint(self.skips, *rules)
        self._previous, self._kept, self.changed = {}, {}, False
        if self._state is None:
            return
        try:
            saved = json.loads(self._state)
            if saved.get("rules") == self.rules and isinstance(saved.get("dirs"), dict):
                self._previous = saved["dirs"]
        except (ValueError, TypeError, KeyError, AttributeError):
            self._previous = {}  # unreadable: a full walk rebuilds it

    def reusable(self, directory: str, path: str, info: os.stat_result) -> Remembered | None:
        """What ``directory`` (``path`` on disk, ``info`` its stat) held last time, if
        that is provably what listing it again would give: the same stat, not changed
        just before it was looked at, the same ``.gitignore``. None: list it."""
        raw = self._still(directory, path, info)
        if raw is None:
            return None
        return Remembered(raw[4], raw[5].split("/") if raw[5] else [], raw[6])

    def _still(self, directory: str, path: str, info: os.stat_result) -> list[Any] | None:
        """The remembered row of ``directory`` if it may be used (see :meth:`reusable`),
        kept for the next walk; None: list it."""
        raw = self._previous.get(directory)
        if type(raw) is not list or len(raw) != 7:
            return None
        ino, mtime, ctime, seen_ns, gitignore, entries, notes = raw
        if (ino != info.st_ino or mtime != info.st_mtime_ns or ctime != info.st_ctime_ns
                or type(seen_ns) is not int or max(mtime, ctime) >= seen_ns - self.racy_ns):
            return None
        if (type(entries) is not str or type(notes) is not dict
                or (entries and _NOT_A_NAME.search(entries))):
            return None  # a damaged memory: list it
        if gitignore is not None and file_stamp(f"{path}/.gitignore") != gitignore:
            return None
        self._kept[directory] = raw
        return raw

    def unchanged(self, root: str, files: Mapping[str, tuple[int, int]]) -> bool:
        """Would a walk of ``root`` (after :meth:`start`) find exactly ``files`` (path ->
        size and mtime in ns), each with that stat? True only when that is certain: every
        remembered folder is :meth:`reusable` (so no entry was added, removed or renamed,
        and every folder below is one of them), none holds an entry that must be looked
        at again (a link, a special file), and each remembered file still is a regular
        file with one name (the walk's rule) and the stat given. Then the walk, and
        everything a query would work out from it, can be skipped; anything else (also
        a file the index does not know, or one it knows that was not found) is False.

        One pass over the memory with one ``stat`` per folder and one ``lstat`` per
        file, no object per entry: what a query pays when nothing changed."""
        if not self._previous or len(files) == 0:
            return False
        lstat, is_regular = os.lstat, stat.S_ISREG
        found = 0
        for directory in self._previous:
            path = f"{root}/{directory}" if directory else root
            try:
                info = os.stat(path)
            except OSError:
                return False
            raw = self._still(directory, path, info)
            if raw is None:
                return False
            if not raw[5]:
                continue
            prefix = f"{directory}/" if directory else ""
            for entry in raw[5].split("/"):
                if entry[0] == FILE:
                    rel = prefix + entry[1:]
                    wanted = files.get(rel)
                    try:
                        now = lstat(f"{root}/{rel}")
                    except OSError:
                        return False
                    if (wanted is None or now.st_size != wanted[0]
                            or now.st_mtime_ns != wanted[1] or not is_regular(now.st_mode)
                            or now.st_nlink > 1):
                        return False
                    found += 1
                elif entry[0] != SUBDIR:
                    return False
        return found == len(files)

    def previous_gitignore(self, directory: str) -> list[int] | bool | None:
        """The remembered ``.gitignore`` stat of ``directory``; False: not remembered."""
        raw = self._previous.get(directory)
        return raw[4] if type(raw) is list and len(raw) == 7 else False

    def keep(self, directory: str, info: os.stat_result, seen_ns: int,
             gitignore: list[int] | None, entries: list[str], notes: dict[str, int]) -> None:
        """A directory listed afresh (``info``: its stat taken at ``seen_ns``)."""
        self._kept[directory] = [info.st_ino, info.st_mtime_ns, info.st_ctime_ns, seen_ns,
                                 gitignore, "/".join(entries), notes]
        self.changed = True

    def dump(self) -> str | None:
        """The state to save after a complete walk (None: nothing changed)."""
        if not self.changed and self._kept.keys() == self._previous.keys():
            return None
        return json.dumps({"rules": self.rules, "dirs": self._kept}, separators=(",", ":"))
