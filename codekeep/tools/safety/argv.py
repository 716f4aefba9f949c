"""What actually runs: a command's words with assignments and wrapper programs peeled off.

``VAR=x env -i nice -n 5 timeout 10 sudo id`` runs ``sudo``; the policy must judge
``sudo id``, not ``VAR=x``. Each wrapper lists its options that take a value, so the
value is not mistaken for the command.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# fmt: off
_XARGS_VALUE_OPTIONS = frozenset({
    "-I", "-i", "-n", "-P", "-L", "-l", "-d", "-s", "-E", "-e", "-a", "--arg-file",
    "--delimiter", "--max-args", "--max-procs", "--replace",
})
# fmt: on
# Wrapper programs that run the command given in their arguments, with the options
# of theirs that take a value (so the value is not mistaken for the command).
WRAPPERS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "nohup": frozenset(),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p", "-t"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "setsid": frozenset(),
    "xargs": _XARGS_VALUE_OPTIONS,
    "watch": frozenset({"-n", "--interval", "-d"}),
    "unbuffer": frozenset(),
    "strace": frozenset({"-o", "-e", "-p"}),
    "ltrace": frozenset({"-o", "-e", "-p"}),
    "flock": frozenset({"-w", "--timeout", "-E"}),
}
_POSITIONAL_WRAPPER_ARGS = {"timeout": 1, "flock": 1}  # DURATION / lock file before the command


def effective_argv(words: Sequence[str]) -> list[str]:
    """The command that actually runs once assignments and wrapper programs are peeled off."""
    argv = list(words)
    while argv:
        if _ASSIGNMENT.match(argv[0]):
            argv.pop(0)
            continue
        program = program_name(argv)
        if program not in WRAPPERS:
            return argv
        argv = _skip_wrapper_options(program, argv[1:])
    return argv


def _skip_wrapper_options(program: str, rest: list[str]) -> list[str]:
    takes_value = WRAPPERS[program]
    i = 0
    while i < len(rest):
        word = rest[i]
        if word == "--":
            i += 1
            break
        if program == "env" and _ASSIGNMENT.match(word):
            i += 1
            continue
        if not word.startswith("-") or word == "-":
            if program == "env" and word == "-":
                i += 1
                continue
            break
        i += 2 if word in takes_value else 1
    return rest[i + _POSITIONAL_WRAPPER_ARGS.get(program, 0) :]


def wrapper_words(words: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Each wrapper program ``words`` runs through, with the words it consumed itself
    (its options, their values, assignments): what :func:`effective_argv` peels off."""
    found: list[tuple[str, list[str]]] = []
    argv = list(words)
    while argv:
        if _ASSIGNMENT.match(argv[0]):
            found.append(("", [argv.pop(0)]))
            continue
        program = program_name(argv)
        if program not in WRAPPERS:
            break
        rest = _skip_wrapper_options(program, argv[1:])
        found.append((program, argv[1 : len(argv) - len(rest)]))
        argv = rest
    return found


def program_name(argv: Sequence[str]) -> str:
    return PurePosixPath(argv[0]).name if argv else ""
