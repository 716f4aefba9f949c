"""Find the shell structure of a command line: operators, redirections, substitutions.

The scanner tracks POSIX quoting (single quotes, double quotes, backslash escapes)
so an operator or ``$(`` inside quotes is text, not structure: ``echo "rm -rf /; x"``
is one harmless command. Words are then split with :mod:`shlex` in POSIX mode.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

SEPARATORS = ("&&", "||", "|&", ";;", ";", "|", "&", "\n")
_REDIRECT = re.compile(r"\d*(>>|>\||>&|>|<<<|<<|<&|<>|<)|&>>|&>")
_EXPANSION = re.compile(r"\$(\{[^}]*\}|[A-Za-z_][A-Za-z0-9_]*|.)")
_BRACE_EXPANSION = re.compile(r"\{[^\s{}]*(,|\.\.)[^\s{}]*\}")


class ShellSyntaxError(ValueError):
    """The command uses structure we refuse to run (substitution, subshells) or is malformed."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(reason)
        self.rule = rule
        self.reason = reason


@dataclass(slots=True)
class Segment:
    """One simple command: its words, its redirections and the operator that follows it."""

    words: list[str] = field(default_factory=list)
    redirects: list[tuple[str, str]] = field(default_factory=list)
    operator: str | None = None


@dataclass(slots=True)
class ParsedCommand:
    segments: list[Segment]
    expansions: list[str]  # $VAR, ${...}, $'..', {a,b} outside single quotes (shell-only)
    globs: bool  # unquoted * ? [ (expanded only by a shell)

    @property
    def needs_shell(self) -> bool:
        return len(self.segments) > 1 or any(s.redirects for s in self.segments)


def parse_command(text: str) -> ParsedCommand:
    """Split ``text`` into simple commands; refuse substitutions and subshells outright."""
    chunks: list[tuple[str, str]] = []  # ("text", raw) | ("sep", op) | ("redir", op)
    expansions: list[str] = []
    globs = False
    raw = ""
    quote: str | None = None
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if quote == "'":
            raw += ch
            quote = None if ch == "'" else quote
            i += 1
            continue
        if ch == "\\" and i + 1 < n:
            raw += text[i : i + 2]
            i += 2
            continue
        if ch == "`" or text.startswith("$(", i):
            raise ShellSyntaxError(
                "command.substitution",
                "command substitution ($(...) or backticks) is not allowed; "
                "run the inner command on its own",
            )
        if ch == "$" and i + 1 < n and not text[i + 1].isspace():
            # $VAR, ${...}, $1, $'\x73udo' (ANSI-C quoting): all rewritten by a shell.
            match = _EXPANSION.match(text, i)
            expansions.append(match.group(0) if match else text[i : i + 2])
        if quote == '"':
            raw += ch
            quote = None if ch == '"' else quote
            i += 1
            continue
        # outside quotes
        if ch in "'\"":
            quote = ch
            raw += ch
            i += 1
            continue
        if ch in "<>" and i + 1 < n and text[i + 1] == "(":
            raise ShellSyntaxError(
                "command.substitution", "process substitution <(...) is not allowed"
            )
        if ch in "()":
            raise ShellSyntaxError(
                "command.subshell",
                "subshells, groups and function definitions ( ... ) are not allowed",
            )
        if ch == "#" and (not raw or raw[-1].isspace()):
            end = text.find("\n", i)
            i = n if end == -1 else end
            continue
        if ch in "*?[":
            globs = True
        if ch == "{" and (brace := _BRACE_EXPANSION.match(text, i)):
            expansions.append(brace.group(0))  # {a,b} / {1..9}: bash brace expansion
        separator = next((op for op in SEPARATORS if text.startswith(op, i)), None)
        redirect = _REDIRECT.match(text, i) if separator is None or separator == "&" else None
        if redirect and (redirect.group(0)[0] in "<>&" or not raw or raw[-1].isspace()):
            chunks.append(("text", raw))
            chunks.append(("redir", redirect.group(0).lstrip("0123456789")))
            raw = ""
            i = redirect.end()
            continue
        if separator:
            chunks.append(("text", raw))
            chunks.append(("sep", separator))
            raw = ""
            i += len(separator)
            continue
        raw += ch
        i += 1
    if quote:
        raise ShellSyntaxError("command.parse", f"unterminated {quote} quote")
    chunks.append(("text", raw))
    return ParsedCommand(_segments(chunks), expansions, globs)


def _segments(chunks: list[tuple[str, str]]) -> list[Segment]:
    segments = [Segment()]
    pending_redirect: str | None = None
    for kind, value in chunks:
        current = segments[-1]
        if kind == "sep":
            if pending_redirect:
                raise ShellSyntaxError(
                    "command.parse", f"redirection {pending_redirect} has no target"
                )
            if not current.words:
                if value == "\n":
                    continue
                raise ShellSyntaxError(
                    "command.parse", f"operator {value!r} has no command before it"
                )
            current.operator = value.strip() or ";"
            segments.append(Segment())
        elif kind == "redir":
            if pending_redirect:
                raise ShellSyntaxError(
                    "command.parse", f"redirection {pending_redirect} has no target"
                )
            pending_redirect = value
        else:
            try:
                words = shlex.split(value, posix=True)
            except ValueError as exc:
                raise ShellSyntaxError("command.parse", f"cannot parse command: {exc}") from None
            if pending_redirect and words:
                current.redirects.append((pending_redirect, words.pop(0)))
                pending_redirect = None
            current.words.extend(words)
    if pending_redirect:
        raise ShellSyntaxError("command.parse", f"redirection {pending_redirect} has no target")
    if not segments[-1].words:
        segments.pop()
        if segments and segments[-1].operator not in (";", "&", None):
            raise ShellSyntaxError(
                "command.parse", f"operator {segments[-1].operator!r} has no command after it"
            )
        if segments:
            segments[-1].operator = None
    if not segments:
        raise ShellSyntaxError("command.parse", "the command is empty")
    return segments
