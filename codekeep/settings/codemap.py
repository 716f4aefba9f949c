"""Knobs of the code map: what is indexed and how hard the machine is pushed.

Fields declared with :func:`~codekeep.settings.fields.setting` are user settings (they
sit at the top of the ``codekeep`` section: ``codekeep.exclude``, ``codekeep.maxFileSize``);
the others are tuned by code and tests only.
"""

from __future__ import annotations

from dataclasses import dataclass

from codekeep.settings.fields import check_bounds, setting

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

    max_file_bytes: int = setting(
        "Files larger than this many bytes are not indexed.",
        default=DEFAULT_MAX_FILE_BYTES, wire="maxFileSize", minimum=1)
    exclude: tuple[str, ...] = DEFAULT_EXCLUDES
    extra_exclude: tuple[str, ...] = setting(
        "Extra gitignore-style globs not to index, added to `.gitignore` and the built-in "
        "list (`node_modules`, `dist`, `.venv`, ...).", default=(), wire="exclude")
    respect_gitignore: bool = setting(
        "Skip what `.gitignore` files (and `.git/info/exclude`) ignore.", default=True)
    workers: int | None = setting(
        "Worker processes for a cold index (null: one per CPU).", default=None, minimum=1)
    # Below this many files to parse, worker processes cost more than they save.
    parallel_min_files: int = 48
    # A folder that changed less than this long before the walk looked at it is listed
    # again next time, not remembered (file times are coarse: see analysis.listings).
    listing_settle_s: float = 3.0
    follow_symlinks: bool = setting(
        "Follow symbolic links while walking the workspace (loops are detected).",
        default=True)
    languages: tuple[str, ...] | None = setting(
        "Index only these languages, e.g. `[\"python\", \"go\"]` (null: every known one).",
        default=None)

    entry_hooks: tuple[str, ...] = setting(
        "Names a framework calls for you (globs, e.g. `setUp*`, `handle`, `ready`): "
        "`codekeep unused` never lists definitions of these names.",
        default=("setUp*", "tearDown*", "main"), wire="entryHooks")
    rename_languages: tuple[str, ...] = setting(
        "Languages whose files the editor may rename symbols in through CodeKeep "
        "(`textDocument/rename`), e.g. `[\"python\"]`; `[\"*\"]`: every language. Empty "
        "by default: an editor with a language's own server (Pylance, tsserver, gopls) "
        "renames there, and two answers to one rename compete; list the languages "
        "whose files no other server renames. `codekeep rename` and the tool always work.",
        default=(), wire="renameLanguages")

    def __post_init__(self) -> None:
        check_bounds(self)

    @property
    def all_excludes(self) -> tuple[str, ...]:
        return self.exclude + self.extra_exclude
