"""Where allowed commands run: inside bubblewrap, or (only if the user opted in) bare.

The command policy judges the command line, but an allowed ``pytest`` runs whatever
tests the agent just wrote, with every right the user has. So each command runs in a
bubblewrap sandbox (Codex CLI's model): the machine read-only, the workspace
read-write (CodeKeep's own ``.codekeep/`` read-only), no network, a private ``/tmp``,
the home directories hidden (the toolchains on ``PATH`` that live there or in ``/tmp``
— a fresh clone's venv —, and the interpreter running CodeKeep, are put back read-only
so ``pytest`` or ``npm test`` still start), and inside the workspace every secret file
(``.env``, keys, ``.ssh/`` …) and every hard-linked file replaced by an empty one.

Without a working ``bwrap`` the command is refused with a message saying how to get
one, unless the user opted in to unsandboxed runs (the setting
``tools.allowUnsandboxed``, or ``CODEKEEP_ALLOW_UNSANDBOXED=1``).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from codekeep.settings.tools import UNSANDBOXED_ENV
from codekeep.tools.safety.commands import CommandRefusedError
from codekeep.tools.safety.paths import SECRET_DIRECTORIES, is_secret_name

# Folders of generated or vendored files: no secret file of the project lives there.
_PRUNE = frozenset({".git", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache",
                    ".tox", ".venv", "venv", ".codekeep"})
NO_SANDBOX = (
    "commands run in a bubblewrap sandbox and this machine has no working `bwrap` "
    "(Debian/Ubuntu: `apt-get install bubblewrap`); without it a command (or a test it "
    "runs) could read and change every file you can. To run commands unsandboxed anyway, "
    "set the setting tools.allowUnsandboxed = true (allowUnsandboxed = true under [tools] "
    f"in .codekeep/config.toml) or {UNSANDBOXED_ENV}=1"
)


@functools.cache
def bwrap() -> str | None:
    """The ``bwrap`` program if it can build a sandbox here (containers may forbid it)."""
    program = shutil.which("bwrap")
    if program is None:
        return None
    try:
        probe = subprocess.run(
            [program, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-net",
             "--die-with-parent", "true"],
            capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return program if probe.returncode == 0 else None


def launch_argv(argv: Sequence[str], root: Path, allow_unsandboxed: bool) -> list[str]:
    """The argv that runs ``argv`` in the workspace ``root``: sandboxed, or bare when no
    sandbox exists and the user opted in; refused otherwise."""
    program = bwrap()
    if program is not None:
        return sandboxed(program, argv, root.resolve())
    if allow_unsandboxed:  # the setting tools.allowUnsandboxed (or its variable)
        return list(argv)
    raise CommandRefusedError("command.no_sandbox", NO_SANDBOX)


def sandboxed(program: str, argv: Sequence[str], root: Path) -> list[str]:
    args = [program, "--die-with-parent", "--new-session", "--unshare-net", "--unshare-pid",
            "--unshare-ipc", "--unshare-uts", "--ro-bind", "/", "/", "--dev", "/dev",
            "--proc", "/proc", "--tmpfs", "/tmp"]
    homes = _homes()
    for home in homes:
        args += ["--tmpfs", str(home)]
    for toolchain in _toolchains([*homes, Path("/tmp")]):
        args += ["--ro-bind", str(toolchain), str(toolchain)]
    args += ["--bind", str(root), str(root)]
    state = root / ".codekeep"
    if state.is_dir():
        args += ["--ro-bind", str(state), str(state)]
    for hidden, is_dir in _hidden_in(root):
        args += ["--tmpfs", hidden] if is_dir else ["--ro-bind", "/dev/null", hidden]
    return [*args, "--chdir", str(root), "--", *argv]


def _homes() -> list[Path]:
    """Home directories to hide: the user's, root's and every one under /home."""
    found = {Path.home().resolve(), Path("/root"), Path("/home")}
    return sorted(home for home in found if home.is_dir() and home != Path("/"))


def _toolchains(homes: Sequence[Path]) -> list[Path]:
    """Read-only folders to put back inside the hidden folders: each ``PATH`` entry there
    (its parent when it is a ``bin`` folder, so the toolchain's libraries come along; the
    whole tool for a ``shims`` folder, whose scripts run the tool: ``~/.pyenv``) and the
    interpreter that runs CodeKeep (its venv's ``python`` points into it)."""
    wanted: set[Path] = set()
    entries = [Path(p) for p in os.environ.get("PATH", "").split(os.pathsep) if p]
    for entry in [*entries, Path(sys.prefix), Path(sys.base_prefix)]:
        for candidate in {entry, entry.resolve()}:
            home = next((h for h in homes if candidate.is_relative_to(h)), None)
            if home is None or candidate == home or not candidate.is_dir():
                continue
            top = candidate
            if candidate.name == "bin" and candidate.parent.parent != home:
                top = candidate.parent  # ~/.pyenv/versions/3.11/bin: its lib/ too, not ~/.local
            elif candidate.name == "shims":
                top = home / candidate.relative_to(home).parts[0]  # ~/.pyenv/shims: ~/.pyenv
            wanted.add(top)
    return sorted(wanted)


def _hidden_in(root: Path) -> Iterator[tuple[str, bool]]:
    """Secret files and folders, and hard-linked files, inside the workspace."""
    for directory, subdirs, files in os.walk(root):
        kept = []
        for name in subdirs:
            path = os.path.join(directory, name)
            if name in SECRET_DIRECTORIES and not os.path.islink(path):
                yield path, True
            elif name not in _PRUNE:
                kept.append(name)
        subdirs[:] = kept
        for name in files:
            path = os.path.join(directory, name)
            if os.path.islink(path):
                continue  # its target is hidden, or outside and hidden by the mounts
            if is_secret_name(name):
                yield path, False
                continue
            try:
                if os.stat(path).st_nlink > 1:
                    yield path, False
            except OSError:
                continue
