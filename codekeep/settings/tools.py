"""Tool settings: the command policy, caps and the forge switch (``codekeep.tools.*``).

A project tunes what the agent may run without touching code::

    # .codekeep/config.toml
    [tools]
    commandAllowExtra = ["npm test", "cargo test"]   # added to the default allow list
    commandTimeout = 120
"""

from __future__ import annotations

from dataclasses import dataclass

from codekeep.settings.fields import check_bounds, setting

FORGE_GENERATE_ENV = "CODEKEEP_FORGE_GENERATE"
UNSANDBOXED_ENV = "CODEKEEP_ALLOW_UNSANDBOXED"

# Programs (or program + leading arguments) the agent may run by default: read-only
# inspection, version control queries and the usual test/lint runners.
# fmt: off
DEFAULT_COMMAND_ALLOW: tuple[str, ...] = (
    "ls", "cat", "head", "tail", "wc", "grep", "rg", "find", "echo", "pwd", "sort", "uniq",
    "diff", "stat", "file", "tree", "true", "false", "which",
    "git status", "git log", "git diff", "git show", "git blame", "git ls-files",
    "git rev-parse", "git branch --list", "git branch --show-current",
    "pytest", "python -m pytest", "python3 -m pytest", "ruff", "mypy",
)
# fmt: on


@dataclass(frozen=True, slots=True)
class ToolSettings:
    """What the agent's tools may do and how much they return (``codekeep.tools.*``)."""

    command_allow: tuple[str, ...] = setting(
        "Programs (or program + first words) `run_command` may run; replaces the default "
        "list (`ls`, `cat`, `grep`, `rg`, `git status/log/diff/show`, `pytest`, `ruff`, "
        "`mypy`, ...).", default=DEFAULT_COMMAND_ALLOW)
    command_allow_extra: tuple[str, ...] = setting(
        "Added to the allow list, e.g. `[\"npm test\", \"cargo test\"]`.", default=())
    allow_shell: bool = setting(
        "Allow `|`, `&&`, `;`, `>` in commands (each part is still checked).", default=False)
    allow_unsandboxed: bool = setting(
        "Run commands without the bubblewrap sandbox when the machine has no working "
        "bubblewrap (off: such commands are refused).", default=False,
        env=(UNSANDBOXED_ENV,))
    command_timeout: float = setting("Seconds a command may run.", default=60.0, above=0)
    output_cap: int = setting("Characters of command output kept (head and tail).",
                              default=20_000, minimum=1)
    read_cap: int = setting(
        "Characters one `read_file` returns (it says where to continue).",
        default=10_000, minimum=1)
    search_max_matches: int = setting("Matches one `search_code` collects.", default=2_000,
                                      minimum=1)
    search_max_file_bytes: int = setting("Files larger than this are not searched.",
                                         default=1_000_000, minimum=1)
    search_timeout: float = setting(
        "Seconds a search pattern may run in total (stops runaway regexes).",
        default=10.0, above=0)
    result_chars: int = setting("Characters of a tool result that enter the model's context.",
                                default=12_000, minimum=1)
    forge_ttl_seconds: float = setting("Seconds a forged tool lives.", default=30 * 60.0,
                                       above=0)
    forge_generate: bool = setting(
        "Let the forge register model-written Python (sandboxed, tested first).",
        default=False, env=(FORGE_GENERATE_ENV,))
    sandbox_timeout: float = setting("Seconds generated code may run in its sandbox.",
                                     default=10.0, above=0)

    def __post_init__(self) -> None:
        check_bounds(self)

    @property
    def allowed_commands(self) -> tuple[str, ...]:
        return self.command_allow + self.command_allow_extra
