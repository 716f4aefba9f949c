"""The file filter of ``list_files`` and ``search_code``: one glob with gitignore semantics.

Models write globs the way ``.gitignore`` and ripgrep read them, so that is what they
mean here (``pathspec``'s gitignore rules): ``*.py`` matches at any depth, ``src/**/*.py``
matches ``src/a.py`` and ``src/x/y/a.py``, ``src/*.py`` only files directly in ``src``,
``tests/`` everything under that directory. The glob is tried against the path from the
workspace root and from the directory being listed or searched, so ``lib/*.py`` under
``path="src"`` means ``src/lib/*.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

import pathspec

from codekeep.tools.result import ToolError


def glob_filter(pattern: str | None, base: str = ".") -> Callable[[str], bool] | None:
    """A predicate on workspace-relative POSIX paths; None when there is nothing to filter."""
    if not pattern or not pattern.strip():
        return None
    try:
        spec = pathspec.GitIgnoreSpec.from_lines([pattern.strip()])
    except (ValueError, TypeError) as exc:  # pathspec's pattern errors are ValueErrors
        raise ToolError(f"invalid glob {pattern!r}: {exc}", rule="arguments") from None
    if pattern.strip().startswith("!"):
        raise ToolError(
            f"invalid glob {pattern!r}: a negated glob selects nothing on its own",
            rule="arguments",
        )
    prefix = PurePosixPath(base).as_posix().strip("/")
    prefix = "" if prefix == "." else prefix + "/"

    def matches(relative: str) -> bool:
        if spec.match_file(relative):
            return True
        return bool(prefix) and relative.startswith(prefix) and spec.match_file(
            relative[len(prefix) :]
        )

    return matches
