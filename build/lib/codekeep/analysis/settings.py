"""Knobs of the code map: what is indexed and how hard the machine is pushed."""

from __future__ import annotations

from dataclasses import dataclass, field

# Directories that hold dependencies, build output or tool state rather than the
# project's own code: indexing them costs time and drowns the project's symbols.
DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".git", ".hg", ".svn", ".codekeep", "node_modules", "bower_components", "dist",
    "build", "target", "out", ".venv", "venv", "env", ".env", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".tox", ".nox", "vendor", "third_party", ".idea",
    ".vscode", ".next", ".nuxt", ".gradle", "coverage", "site-packages", ".eggs",
)

DEFAULT_MAX_FILE_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class IndexSettings:
    """``exclude`` entries are gitignore-style patterns (a bare name matches at any depth)."""

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    exclude: tuple[str, ...] = DEFAULT_EXCLUDES
    extra_exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    workers: int | None = None  # None: one per CPU
    # Below this many files to parse, worker processes cost more than they save.
    parallel_min_files: int = 48
    follow_symlinks: bool = True
    languages: tuple[str, ...] | None = field(default=None)  # None: every known language

    @property
    def all_excludes(self) -> tuple[str, ...]:
        return self.exclude + self.extra_exclude
