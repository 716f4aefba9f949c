"""The command policy: what ``run_command`` may execute, decided on the parsed command.

Every simple command in the line is unwrapped (``VAR=x``, ``env``, ``nice``,
``timeout``, ``xargs`` ... run the *next* word) and checked against a deny list that
no configuration can lift (privilege raising, disk formatting, device writes,
recursive deletes of the root, downloads piped into an interpreter), then its path
arguments go through the path guard, then it must match the configurable allow list.
Operators and redirections need a shell, which is only used when the policy allows it.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from codekeep.tools.safety.argv import effective_argv, program_name, wrapper_words
from codekeep.tools.safety.paths import (
    ENCODED_SPECIAL,
    SECRET_DIRECTORIES,
    SECRET_PATTERNS,
    PathGuard,
    PathRefusedError,
    is_secret_name,
)
from codekeep.tools.safety.shell_lexer import (
    ParsedCommand,
    Segment,
    ShellSyntaxError,
    parse_command,
)

PRIVILEGE = frozenset({"sudo", "su", "doas", "pkexec", "runuser", "chroot", "setpriv", "capsh"})
# fmt: off
SYSTEM = frozenset({
    "mkfs", "mke2fs", "mkswap", "fdisk", "sfdisk", "cfdisk", "parted", "wipefs", "shutdown",
    "reboot", "halt", "poweroff", "init", "telinit", "swapoff", "swapon", "mount", "umount",
    "insmod", "rmmod", "modprobe", "iptables", "nft", "crontab", "visudo", "passwd",
    "useradd", "userdel", "usermod", "chpasswd", "kexec", "sysctl",
})
SHELLS = frozenset({
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "ash", "busybox",
})
# fmt: on
EVALUATORS = frozenset({"eval", "source", ".", "exec"})
INTERPRETERS = SHELLS | {"python", "python3", "perl", "ruby", "node", "php", "lua"}
DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "nc", "ncat", "socat"})
RECURSIVE_DANGER = frozenset({"rm", "chmod", "chown", "chgrp", "shred", "rmdir", "mv"})
PURE_OUTPUT = frozenset({"echo", "printf", "true", "false"})
SAFE_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/zero", "/dev/urandom"})
# Options with which an otherwise harmless program can run other programs.
EXEC_OPTIONS: dict[str, tuple[str, ...]] = {
    "rg": ("--pre", "--pre-glob"),
    "sort": ("--compress-program",),
    "git": ("-c", "--config-env", "--exec-path", "--upload-pack", "--receive-pack", "--ext-diff"),
    "tar": ("--to-command", "--use-compress-program", "-I", "--checkpoint-action"),
    "less": ("+!",),
}
# Options (and for uniq the second operand) that make a program write a file.
OUTPUT_OPTIONS: dict[str, tuple[str, ...]] = {
    "sort": ("-o", "--output"),
    "tree": ("-o",),
    "git": ("--output",),
    "find": ("-fprint", "-fprint0", "-fprintf", "-fls"),
    "diff": ("--output",),
    "tee": (),
}


# Wrapper options the policy cannot follow: a command string with its own expansion
# (env -S), another working directory for every relative path (env -C), arguments
# read from a file or a pipe the policy never sees (xargs), a command run by a shell
# (watch).
REFUSED_WRAPPERS: dict[str, tuple[tuple[str, ...], str]] = {
    "env": (("-S", "--split-string", "-C", "--chdir"),
            "env -S/-C run a command the policy cannot see as written"),
    "xargs": ((), "xargs runs a command with arguments read from its input, which the "
                  "policy never sees; run the command with its paths written out"),
    "watch": ((), "watch runs its command through a shell; run the command directly"),
}
# Wrapper options that name a file the wrapper writes.
WRAPPER_OUTPUTS: dict[str, tuple[str, ...]] = {
    "time": ("-o", "--output"), "strace": ("-o",), "ltrace": ("-o",),
}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# Variables that make an ordinary program load or run other code.
INJECTING_VARIABLES = re.compile(
    r"^(?:LD_\w+|DYLD_\w+|BASH_ENV|ENV|PROMPT_COMMAND|PAGER|GIT_PAGER|GIT_SSH|GIT_SSH_COMMAND|"
    r"GIT_EXTERNAL_DIFF|GIT_EDITOR|GIT_EXEC_PATH|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|PERL5OPT|"
    r"PERL5LIB|PYTHONSTARTUP|PYTHONPATH|NODE_OPTIONS|RUBYOPT|SHELLOPTS|IFS)="
)
# Recursive search reads every file under a folder. ``grep -r`` and ``rg`` are run
# with the secret-file rules of the file tools added as exclusions (neither follows a
# symlink it was not given, and given paths are path-checked); variants that follow
# symlinks, and searchers without such options, are refused in favour of search_code.
GREP = frozenset({"grep", "egrep", "fgrep"})
GREP_RECURSIVE = re.compile(r"^(?:-[A-Za-z]*r[A-Za-z]*|--recursive|--directories=recurse)$")
GREP_FOLLOWING = re.compile(r"^(?:-[A-Za-z]*R[A-Za-z]*|--dereference-recursive)$")
RG_FOLLOWING = re.compile(r"^(?:-[A-Za-z]*L[A-Za-z]*|--follow)$")
TREE_SEARCH_REFUSED = frozenset({"ag", "ack", "ack-grep"})


class CommandRefusedError(ValueError):
    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(reason)
        self.rule = rule
        self.reason = reason


@dataclass(frozen=True, slots=True)
class CommandPlan:
    """How to run an accepted command: ``argv`` without a shell, or ``shell`` text with one."""

    argv: tuple[str, ...] | None
    shell: str | None
    programs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CommandPolicy:
    guard: PathGuard
    allow: Sequence[str]
    allow_shell: bool = False

    def check(self, command: str) -> CommandPlan:
        """Return how to run ``command`` or raise :class:`CommandRefusedError` saying why not."""
        try:
            parsed = parse_command(command)
        except ShellSyntaxError as exc:
            raise CommandRefusedError(exc.rule, exc.reason) from None
        effective = [effective_argv(segment.words) for segment in parsed.segments]
        for index, (segment, argv) in enumerate(zip(parsed.segments, effective, strict=True)):
            self._deny(segment, argv, parsed, index, effective)
        for segment, argv in zip(parsed.segments, effective, strict=True):
            self._check_paths(segment, argv, parsed)
        for argv in effective:
            self._check_allowed(argv)
        programs = tuple(program_name(argv) for argv in effective)
        if parsed.needs_shell:
            if not self.allow_shell:
                raise CommandRefusedError(
                    "command.needs_shell",
                    "operators (|, &&, ;, redirections) need a shell and this policy runs commands "
                    "without one; run one command per call",
                )
            if any(confined(argv) != argv for argv in effective):
                raise CommandRefusedError(
                    "command.tree_read",
                    "a recursive grep or rg inside a shell line cannot be held to the "
                    "secret-file rules; run it on its own or use the search_code tool",
                )
            if parsed.expansions:
                raise CommandRefusedError(
                    "command.expansion",
                    f"shell variable expansion ({', '.join(parsed.expansions[:3])}) "
                    "is not allowed; use literal values",
                )
            return CommandPlan(None, command, programs)
        return CommandPlan(tuple(confined(parsed.segments[0].words)), None, programs)

    # -- deny list (cannot be lifted by configuration) ----------------------------------
    def _deny(
        self,
        segment: Segment,
        argv: list[str],
        parsed: ParsedCommand,
        index: int,
        effective: list[list[str]],
    ) -> None:
        self._deny_wrappers(segment.words)  # first: env -S 'cmd' leaves no command to see
        if not argv:
            raise CommandRefusedError(
                "command.parse", "a command consists only of variable assignments"
            )
        program = program_name(argv)
        if "$" in argv[0] or not program:
            raise CommandRefusedError("command.expansion", "the program name must be literal text")
        self._deny_tree_reads(program, argv)
        if program in PRIVILEGE:
            raise CommandRefusedError(
                "command.privilege", f"{program} raises privileges; never allowed"
            )
        if program in SYSTEM or program.startswith(("mkfs", "mkswap")):
            raise CommandRefusedError(
                "command.system",
                f"{program} changes the system (disks, boot, users); never allowed",
            )
        if program in EVALUATORS:
            raise CommandRefusedError(
                "command.shell", f"{program} evaluates arbitrary shell code; not allowed"
            )
        if (
            index > 0
            and parsed.segments[index - 1].operator in ("|", "|&")
            and program in INTERPRETERS
        ):
            upstream = [program_name(a) for a in effective[:index]]
            if any(p in DOWNLOADERS for p in upstream):
                raise CommandRefusedError(
                    "command.download_exec",
                    f"piping a download into {program} runs untrusted code; never allowed",
                )
            raise CommandRefusedError(
                "command.shell", f"piping into the interpreter {program} is not allowed"
            )
        if program in SHELLS:
            inner = _shell_inline(argv)
            if inner is None or not self.allow_shell:
                raise CommandRefusedError(
                    "command.shell",
                    f"starting a shell ({program}) is not allowed; run the command directly",
                )
            self.check(inner)  # the inner command faces the same policy
        if program == "dd":
            for operand in argv[1:]:
                if operand.startswith("of=/dev/") and operand[3:] not in SAFE_DEVICES:
                    raise CommandRefusedError(
                        "command.device_write",
                        f"dd writes to the device {operand[3:]}; never allowed",
                    )
        for op, target in segment.redirects:
            writes = op.startswith((">", "&>")) or op == "<>"
            if writes and target.startswith("/dev/") and target not in SAFE_DEVICES:
                raise CommandRefusedError(
                    "command.device_write",
                    f"redirection writes to the device {target}; never allowed",
                )
        if program in RECURSIVE_DANGER:
            self._deny_recursive(program, argv)
        if program == "find" and any(
            a in ("-delete", "-exec", "-execdir", "-ok", "-okdir") for a in argv
        ):
            raise CommandRefusedError(
                "command.destructive",
                "find with -delete/-exec is not allowed; list first, then act",
            )
        for option in EXEC_OPTIONS.get(program, ()):
            if any(a == option or a.startswith(option + "=") for a in argv[1:]):
                raise CommandRefusedError(
                    "command.exec_option",
                    f"{program} {option} can make it run other programs; not allowed",
                )

    def _deny_wrappers(self, words: Sequence[str]) -> None:
        """Check what the wrappers themselves take: refuse the options the policy cannot
        follow, path-check the files they write, refuse variables that inject code."""
        for wrapper, consumed in wrapper_words(words):
            for word in consumed:
                if _ASSIGNMENT.match(word) and INJECTING_VARIABLES.match(word):
                    name = word.split("=", 1)[0]
                    raise CommandRefusedError(
                        "command.env_injection",
                        f"setting {name} makes programs load or run other code; not allowed",
                    )
            if wrapper in REFUSED_WRAPPERS:
                options, why = REFUSED_WRAPPERS[wrapper]
                if not options or any(w in options or w.startswith(tuple(
                        f"{o}=" for o in options if o.startswith("--"))) for w in consumed):
                    raise CommandRefusedError("command.wrapper", why)
            outputs = WRAPPER_OUTPUTS.get(wrapper, ())
            for i, word in enumerate(consumed):
                if word in outputs and i + 1 < len(consumed):
                    self._guard(consumed[i + 1], "write", f"{wrapper} {word} file", False)
            if wrapper == "flock" and consumed:  # its last word is the lock file
                self._guard(consumed[-1], "write", f"flock lock file {consumed[-1]!r}", False)

    def _deny_tree_reads(self, program: str, argv: list[str]) -> None:
        """Recursive reads the policy cannot confine to the file tools' rules (symlinks
        followed, tracked secret files, archives of a folder) are refused."""
        options = [a for a in argv[1:] if a.startswith("-")]
        recursive = (
            program in TREE_SEARCH_REFUSED
            or (program in GREP and any(GREP_FOLLOWING.match(a) for a in options))
            or (program == "rg" and any(RG_FOLLOWING.match(a) for a in options))
            or (program == "git" and "grep" in argv[1:2])
            or (program == "tar" and len(argv) > 1 and (
                "c" in argv[1].lstrip("-") or "--create" in argv))
            or (program == "zip" and any(a in ("-r", "--recurse-paths") for a in argv))
        )
        if recursive:
            raise CommandRefusedError(
                "command.tree_read",
                f"{' '.join(argv[:2])} reads every file under a folder, secret files and "
                "symlinks out of the workspace included; use the search_code tool (it skips "
                "them) or name the files",
            )

    def _deny_recursive(self, program: str, argv: list[str]) -> None:
        flags = [a for a in argv[1:] if a.startswith("-")]
        recursive = any(
            f in ("--recursive", "--no-preserve-root")
            or (not f.startswith("--") and ("r" in f or "R" in f))
            for f in flags
        ) or program in ("mv", "shred", "rmdir")
        if "--no-preserve-root" in flags:
            raise CommandRefusedError(
                "command.destructive", f"{program} --no-preserve-root is never allowed"
            )
        if not recursive:
            return
        for target in (a for a in argv[1:] if not a.startswith("-")):
            clean = target.rstrip("/") or "/"
            if clean in ("/", "/*", "~", "*", ".", "./*", "..", ".git") or clean.startswith(
                ("/", "~")
            ):
                raise CommandRefusedError(
                    "command.destructive",
                    f"recursive {program} on {target!r} would destroy the system or the workspace",
                )
            try:
                rel = self.guard.relative(target, "write")
            except PathRefusedError as exc:
                raise CommandRefusedError(exc.rule, f"{program} {target!r}: {exc.reason}") from None
            if rel in ("", ".git") or rel.startswith(".git/"):
                raise CommandRefusedError(
                    "command.destructive",
                    f"{program} on {target!r} would destroy the workspace or its history",
                )

    # -- path arguments -----------------------------------------------------------------
    def _check_paths(self, segment: Segment, argv: list[str], parsed: ParsedCommand) -> None:
        program = program_name(argv)
        if program not in PURE_OUTPUT:
            for value in _path_like_values(argv[1:], self.guard.root):
                self._guard(value, "read", f"argument {value!r}", parsed.globs)
        for target in output_targets(argv):
            self._guard(target, "write", f"output file {target!r}", parsed.globs)
        for op, target in segment.redirects:
            if op in (">&", "<&") and (target.isdigit() or target == "-"):
                continue
            if target in SAFE_DEVICES:
                continue
            access = "read" if op.startswith("<") and op != "<>" else "write"
            self._guard(target, access, f"redirection target {target!r}", parsed.globs)

    def _guard(self, value: str, access: str, what: str, expand_globs: bool) -> None:
        candidates = [value]
        if expand_globs and self.allow_shell and any(c in value for c in "*?["):
            candidates += [
                os.path.relpath(m, self.guard.root) for m in glob.glob(str(self.guard.root / value))
            ]
        for candidate in candidates:
            try:
                self.guard.check(candidate, "write" if access == "write" else "read")
            except PathRefusedError as exc:
                raise CommandRefusedError(exc.rule, f"{what}: {exc.reason}") from None

    # -- allow list ---------------------------------------------------------------------
    def _check_allowed(self, argv: list[str]) -> None:
        if not self.allow:
            return
        words = [program_name(argv), *argv[1:]]
        for entry in self.allow:
            prefix = entry.split()
            if words[: len(prefix)] == prefix:
                return
        raise CommandRefusedError(
            "command.not_allowed",
            f"{' '.join(argv[:2])!r} is not on the command allow list; "
            f"allowed: {', '.join(self.allow)}",
        )


def confined(words: Sequence[str]) -> list[str]:
    """``words`` with the secret-file rules added to a recursive ``grep`` or to ``rg``
    (which searches recursively by default), as exclusions after the program name."""
    effective = effective_argv(words)
    at = len(words) - len(effective) + 1  # just after the program
    program = program_name(effective)
    if program in GREP and any(GREP_RECURSIVE.match(a) for a in effective[1:]):
        extra = [f"--exclude={p}" for p in SECRET_PATTERNS]
        extra += [f"--exclude-dir={d}" for d in sorted(SECRET_DIRECTORIES)]
    elif program == "rg":
        extra = [f"--glob=!{p}" for p in (*SECRET_PATTERNS, *sorted(SECRET_DIRECTORIES))]
    else:
        return list(words)
    return [*words[:at], *extra, *words[at:]]


def output_targets(argv: Sequence[str]) -> list[str]:
    """Files ``argv`` would write (checked as writes: never into .git/, secrets, outside)."""
    program = program_name(argv)
    targets: list[str] = []
    options = OUTPUT_OPTIONS.get(program, ())
    for i, arg in enumerate(argv[1:], start=1):
        for option in options:
            if arg == option and i + 1 < len(argv):
                targets.append(argv[i + 1])
            elif arg.startswith(option + "=") or (
                option.startswith("-") and not option.startswith("--") and len(option) == 2
                and arg.startswith(option) and len(arg) > 2
            ):  # fmt: skip
                targets.append(arg.split("=", 1)[1] if "=" in arg else arg[2:])
    operands = [a for a in argv[1:] if not a.startswith("-")]
    if program == "uniq" and len(operands) >= 2:
        targets.append(operands[1])
    if program == "tee":
        targets += operands
    return targets


def _shell_inline(argv: Sequence[str]) -> str | None:
    """The script of ``sh -c 'script'`` (None when the shell would read a file or stdin)."""
    for i, word in enumerate(argv[1:], start=1):
        if word == "-c" or (word.startswith("-") and not word.startswith("--") and "c" in word):
            return argv[i + 1] if i + 1 < len(argv) else None
    return None


def _path_like_values(args: Sequence[str], root: Path) -> list[str]:
    """Arguments (and ``--opt=value`` / ``key=value`` values) that are or look like paths.

    Anything naming an existing workspace entry counts, so a harmless-looking name that
    is really a symlink to a secret or out of the workspace is still checked.
    """
    values = []
    for arg in args:
        for value in (arg, arg.split("=", 1)[1] if "=" in arg else None):
            if not value or value in SAFE_DEVICES:
                continue
            parts = re.split(r"[\\/]", value)
            if (
                value.startswith(("/", "~"))
                or ".." in parts
                or "\x00" in value
                or is_secret_name(parts[-1])
                or ENCODED_SPECIAL.search(value)
                or os.path.lexists(root / value)
                or any(c in value for c in "*?[")  # a shell would expand it
            ):
                values.append(value)
    return values
