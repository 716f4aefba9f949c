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
from typing import Any

# Bump when what a listing records or means changes: older memories are dropped.
FORMAT = 1
# Kinds of remembered entries.
SUBDIR, FILE, SPECIAL = "d", "f", "s"


def stamp(info: os.stat_result) -> tuple[int, int, int]:
    """What changes when an entry is added to, removed from or renamed in a folder."""
    return info.st_ino, info.st_mtime_ns, info.st_ctime_ns


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


class Listing:
    """One directory as the walk last kept it: ``entries`` are (kind, name) in walk
    order, ``notes`` the skip reasons of the files it passed over, with how many."""

    __slots__ = ("entries", "gitignore", "notes", "seen_ns", "stat")

    def __init__(self, stat: tuple[int, int, int], seen_ns: int, gitignore: list[int] | None,
                 entries: list[tuple[str, str]], notes: dict[str, int]):
        self.stat = stat
        self.seen_ns = seen_ns
        self.gitignore = gitignore
        self.entries = entries
        self.notes = notes

    def to_json(self) -> list[Any]:
        return [*self.stat, self.seen_ns, self.gitignore,
                "/".join(kind + name for kind, name in self.entries), self.notes]

    @classmethod
    def from_json(cls, raw: Any) -> Listing:
        """The listing :meth:`to_json` gave; ValueError if ``raw`` is not one."""
        if not isinstance(raw, list) or len(raw) != 7:
            raise ValueError("not a listing")
        ino, mtime, ctime, seen_ns, gitignore, entries, notes = raw
        if not (all(type(n) is int for n in (ino, mtime, ctime, seen_ns))
                and isinstance(entries, str) and isinstance(notes, dict)
                and (gitignore is None or isinstance(gitignore, list))):
            raise ValueError("not a listing")
        # "/" never occurs in a file name: it separates the entries
        parsed = [(entry[0], entry[1:]) for entry in entries.split("/")] if entries else []
        if any(name in ("", ".", "..") for _, name in parsed):  # never walk out of a folder
            raise ValueError("not a listing")
        return cls((ino, mtime, ctime), seen_ns, gitignore, parsed, notes)


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

    def reusable(self, directory: str, path: str, info: os.stat_result) -> Listing | None:
        """The listing of ``directory`` if it is provably what listing it again would
        give: same stat, not changed just before it was listed, same ``.gitignore``."""
        raw = self._previous.get(directory)
        if raw is None:
            return None
        try:
            listing = Listing.from_json(raw)
        except (ValueError, IndexError):  # a damaged memory: list it
            return None
        _ino, mtime, ctime = listing.stat
        if (stamp(info) != listing.stat
                or max(mtime, ctime) >= listing.seen_ns - self.racy_ns):
            return None
        if listing.gitignore is not None and (
                file_stamp(os.path.join(path, ".gitignore")) != listing.gitignore):
            return None
        self._kept[directory] = raw
        return listing

    def previous_gitignore(self, directory: str) -> list[int] | bool | None:
        """The remembered ``.gitignore`` stat of ``directory``; False: not remembered."""
        raw = self._previous.get(directory)
        return raw[4] if isinstance(raw, list) and len(raw) == 7 else False

    def keep(self, directory: str, listing: Listing) -> None:
        """A directory listed afresh."""
        self._kept[directory] = listing.to_json()
        self.changed = True

    def dump(self) -> str | None:
        """The state to save after a complete walk (None: nothing changed)."""
        if not self.changed and self._kept.keys() == self._previous.keys():
            return None
        return json.dumps({"rules": self.rules, "dirs": self._kept}, separators=(",", ":"))
