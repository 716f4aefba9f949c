"""Which files a shell command prints: how an agent that reads through its shell (Codex
runs ``sed -n '1,200p' src/app.py`` or ``cat``, it has no Read tool) puts a file's text
into its context, so the command's output can be weighed as that file's.

Only commands whose output *is* the file's text count (``cat``, ``head``, ``tail``,
``nl``, ``sed`` but ``sed -i``, ``bat``, ``less``, ``more``); a search (``rg``, ``grep``) prints
lines of many files, and is left as context. A command that does not parse as a shell
line reads nothing.
"""

from __future__ import annotations

import shlex

_READERS = {"cat", "head", "tail", "nl", "sed", "bat", "batcat", "less", "more"}
# Options that take a value (``head -n 50``), per command.
_VALUED = {"head": {"-n", "-c"}, "tail": {"-n", "-c"}, "nl": {"-b", "-w", "-s", "-v", "-i"},
           "sed": {"-e", "-f", "-l"}, "bat": {"-l", "--language", "-r", "--line-range"},
           "batcat": {"-l", "--language", "-r", "--line-range"}}
_SEPARATORS = {"&&", "||", ";", "|", "&"}
_REDIRECTS = {">", ">>", "<", "2>", "2>>"}  # the next word is where output goes
_SHELLS = {"bash", "sh", "zsh", "dash"}


def files_read(command: str | list[str]) -> list[str]:
    """The file arguments of the reading commands in ``command`` (a shell line, or an
    argv such as Codex's ``["bash", "-lc", "cat a.py"]``), in order, each once."""
    argv = _script_argv(command)
    found: list[str] = []
    segment: list[str] = []
    for word in [*argv, ";"]:
        if word in _SEPARATORS:
            if segment:
                found += _segment_files(segment)
            segment = []
        else:
            segment.append(word)
    return list(dict.fromkeys(found))


def _script_argv(command: str | list[str]) -> list[str]:
    if isinstance(command, list):
        words = [str(word) for word in command]
        if len(words) >= 3 and words[0].rsplit("/", 1)[-1] in _SHELLS and words[1] in ("-c", "-lc"):
            return _split(words[2])
        return words
    return _split(command)


def _split(line: str) -> list[str]:
    try:
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        return list(lexer)
    except ValueError:  # an unclosed quote: not a line we can read
        return []


def _segment_files(words: list[str]) -> list[str]:
    name = words[0].rsplit("/", 1)[-1]
    if name not in _READERS:
        return []
    if name == "sed" and any(w.startswith(("-i", "--in-place")) for w in words[1:]):
        return []  # an edit in place prints nothing
    valued = _VALUED.get(name, set()) | _REDIRECTS
    positional: list[str] = []
    script_given = False
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
        elif word in valued:
            script_given = script_given or (name == "sed" and word in ("-e", "-f"))
            skip = True
        elif word.startswith(("-", "<", ">", "2>")) and word != "-":
            continue
        else:
            positional.append(word)
    if name == "sed" and not script_given:
        positional = positional[1:]  # the first is the script
    return [word for word in positional if word != "-"]
