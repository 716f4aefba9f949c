"""``SymbolId``: the one spelling of a symbol's id, ``<path>::<Container.name>[#n]``.

The code map makes ids, memory links to them, the server and tools pass them on; all
of them build, read and rename ids here. ``#n`` (n ≥ 2) numbers the second and later
definitions with the same qualified name in one file. A name may itself contain dots
(TypeScript ``declare module "a.b"``), so ``name`` and ``container`` read back from an
id are the last dotted part and the rest: exact for every other language, a first
guess there (the code map confirms against its rows).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SEPARATOR = "::"
_NUMBER = re.compile(r"#([0-9]+)$")


def qualify(name: str, container: str | None) -> str:
    """``Container.name`` (just ``name`` at top level)."""
    return f"{container}.{name}" if container else name


def numbered(qualified: str, n: int | None) -> str:
    """The qualified name of the ``n``-th definition with that name (1 or None: the first)."""
    return f"{qualified}#{n}" if n and n > 1 else qualified


def split_number(qual: str) -> tuple[str, int | None]:
    """``("A.f", 2)`` for ``"A.f#2"``; ``("A.f", None)`` for ``"A.f"``."""
    match = _NUMBER.search(qual)
    return (qual[: match.start()], int(match.group(1))) if match else (qual, None)


def moved_path(path: str, old: str, new: str) -> str | None:
    """``path`` after renaming the file or directory ``old`` to ``new`` (None: not under it)."""
    old, new = old.rstrip("/"), new.rstrip("/")
    if path == old:
        return new
    return new + path[len(old) :] if path.startswith(old + "/") else None


def prefix_range(prefix: str) -> tuple[str, str]:
    """``(low, high)`` such that ``low <= s < high`` exactly when ``s`` starts with ``prefix``:
    a prefix query an index answers (``LIKE 'p%'`` is not, and needs escaping)."""
    if not prefix:
        raise ValueError("an empty prefix matches everything")
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)


@dataclass(frozen=True, slots=True, order=True)
class SymbolId:
    path: str  # relative to the workspace root, "/"-separated
    qual: str  # Container.name plus "#n" when numbered

    @classmethod
    def of(
        cls, path: str, name: str, container: str | None = None, number: int | None = None
    ) -> SymbolId:
        return cls(path, numbered(qualify(name, container), number))

    @classmethod
    def parse(cls, text: str) -> SymbolId:
        """Read an id; ``ValueError`` (with the text) when it is not one."""
        path, separator, qual = text.partition(SEPARATOR)
        if not separator or not path or not qual:
            raise ValueError(f"not a symbol id (want path::Container.name): {text!r}")
        return cls(path, qual)

    @classmethod
    def try_parse(cls, text: str) -> SymbolId | None:
        try:
            return cls.parse(text)
        except ValueError:
            return None

    def __str__(self) -> str:
        return f"{self.path}{SEPARATOR}{self.qual}"

    @property
    def number(self) -> int | None:
        """``n`` of ``#n``; None for the first definition of its qualified name."""
        return split_number(self.qual)[1]

    @property
    def qualified(self) -> str:
        """``Container.name`` without the number."""
        return split_number(self.qual)[0]

    @property
    def name(self) -> str:
        return self.qualified.rsplit(".", 1)[-1]

    @property
    def container(self) -> str | None:
        head, dot, _name = self.qualified.rpartition(".")
        return head if dot else None

    @property
    def parent(self) -> SymbolId | None:
        """The id of the enclosing definition (a method's class), if there is one."""
        container = self.container
        return SymbolId(self.path, container) if container else None

    def with_path(self, path: str) -> SymbolId:
        """The same symbol in a file that was renamed to ``path``."""
        return SymbolId(path, self.qual)

    def moved(self, old: str, new: str) -> SymbolId | None:
        """After renaming the file or directory ``old`` to ``new``: this symbol's new id,
        or None when it was not under ``old``."""
        path = moved_path(self.path, old, new)
        return None if path is None else self.with_path(path)


def file_prefix(path: str) -> str:
    """What every id of a symbol defined in ``path`` starts with."""
    return path + SEPARATOR
