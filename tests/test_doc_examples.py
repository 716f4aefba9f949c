"""Every ``codekeep`` example in README.md and docs/*.md runs as written.

A newcomer copies the README's tour into a shell; when ``related …:80`` had drifted onto
a blank line the tour answered "nothing is defined or used at …". So every ``codekeep``
line of a ``bash``/``sh`` block is run here, in its block's workspace, in document
order, and must exit 0 with an answer on stdout. The convention (CONTRIBUTING.md) is an
HTML comment on the line before a block, ``<!-- examples: CLAUSE; CLAUSE -->``:

* ``workspace shop`` — run in the small shop project below (default: a clone of this
  repository, whose history ``impact HEAD~1..HEAD`` reads);
* ``needs WHAT: agent, models install`` — lines starting with those commands need a
  service (a model endpoint, an editor, the network …) and are not run;
* ``synopsis`` — the block shows usage with placeholders (``ID``, ``[--all]``).

A line not run is still checked: its command's ``--help`` must succeed and name every
option the line uses, so a renamed flag fails here too. Nothing is skipped unsaid: a mark
that matches no line, or an unknown clause, fails.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # a clone of the repo is indexed

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SHELLS = {"bash", "sh", "shell"}
# The installed command: ``python -m codekeep`` in a clone would import the clone.
COMMAND = str(Path(sys.executable).parent / "codekeep")
BLOCK = re.compile(r"(?:^<!-- examples: (?P<marks>.*?) -->\n)?^```(?P<lang>\w*)\n(?P<body>.*?)^```",
                   re.M | re.S)


@dataclass
class Block:
    """One fenced shell block of a document and how its examples are to be treated."""

    doc: str
    line: int
    workspace: str = "repository"
    needs: dict[str, str] = field(default_factory=dict)  # command prefix -> what it needs
    synopsis: bool = False
    commands: list[tuple[int, str]] = field(default_factory=list)

    def need_of(self, command: str) -> str | None:
        words = command.split()[1:]
        for prefix, what in self.needs.items():
            if words[: len(prefix.split())] == prefix.split():
                return what
        return None


def parse_marks(block: Block, marks: str) -> None:
    for clause in filter(None, (c.strip() for c in marks.split(";"))):
        if clause == "synopsis":
            block.synopsis = True
        elif clause.startswith("workspace "):
            block.workspace = clause.removeprefix("workspace ").strip()
        elif clause.startswith("needs ") and ":" in clause:
            what, prefixes = clause.removeprefix("needs ").split(":", 1)
            block.needs.update({p.strip(): what.strip() for p in prefixes.split(",")})
        else:
            raise AssertionError(f"{block.doc}:{block.line}: unknown examples clause {clause!r}")


def blocks() -> list[Block]:
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            if match.group("lang") not in SHELLS:
                continue
            first = text.count("\n", 0, match.start("body")) + 1
            block = Block(doc.relative_to(REPO).as_posix(), first)
            parse_marks(block, match.group("marks") or "")
            block.commands = [(first + n, line.strip())
                              for n, line in enumerate(match.group("body").splitlines())
                              if line.startswith("codekeep")]
            if block.commands:
                found.append(block)
    return found


def words_of(line: str) -> list[str]:
    """The command line as the shell splits it, comment cut."""
    return shlex.split(line, comments=True)


def subcommand(words: list[str], env: dict[str, str]) -> list[str]:
    """The leading words naming the (sub)command (``memory remember``, ``find``)."""
    path = [words[1]] if len(words) > 1 and not words[1].startswith("-") else []
    while path and len(words) > len(path) + 1 and re.fullmatch(r"[a-z-]+", words[len(path) + 1]):
        listed = run([COMMAND, *path, "--help"], REPO, env).stdout
        if not re.search(rf"^\s{{4}}{re.escape(words[len(path) + 1])}\s", listed, re.M):
            break
        path.append(words[len(path) + 1])
    return path


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL)


def check_usage(line: str, env: dict[str, str]) -> str | None:
    """What is wrong with a line that is not run: its command's help must exist and name
    every option the line uses."""
    words = words_of(line)
    path = subcommand(words, env)
    helped = run([COMMAND, *path, "--help"], REPO, env)
    if helped.returncode != 0:
        return f"`codekeep {' '.join(path)} --help` exited {helped.returncode}"
    options = {w.split("=", 1)[0] for w in re.findall(r"--[a-z][a-z-]*(?:=\S*)?", line)}
    missing = sorted(o for o in options - {"--help"}
                     if not re.search(rf"{re.escape(o)}(?![a-z-])", helped.stdout))
    return f"options {missing} are not in its --help" if missing else None


# What ``impact`` reads definitions from; a range touching none of these changes none.
CODE_SUFFIXES = (".py", ".pyi", ".ts", ".tsx", ".js", ".jsx", ".go", ".lua", ".c", ".h", ".rs")


def quiet_range(words: list[str], done: subprocess.CompletedProcess[str], cwd: Path) -> bool:
    """``impact HEAD~1..HEAD`` on a clone whose last commit touched only docs answers
    "no definitions change" (exit 1, nothing found): right, when git agrees no code
    file differs in that range."""
    if words[1] != "impact" or done.returncode != 1 or len(words) < 3 \
            or "no definitions change" not in done.stderr:
        return False
    names = subprocess.run(["git", "diff", "--name-only", words[2]], cwd=cwd, check=True,
                           capture_output=True, text=True).stdout.split()
    return not any(name.endswith(CODE_SUFFIXES) for name in names)


def answer_problem(words: list[str], done: subprocess.CompletedProcess[str],
                   cwd: Path) -> str | None:
    """Why a run does not count as answered, or None."""
    if quiet_range(words, done, cwd):
        return None
    if done.returncode != 0:
        return f"exited {done.returncode}: {done.stderr.strip()[-600:]}"
    if not done.stdout.strip():
        return "printed nothing"
    if words[1] == "related" and not done.stdout.startswith("symbol:"):
        return f"named no symbol: {done.stdout.splitlines()[0]!r}"
    return None


# ---- workspaces -------------------------------------------------------------------------

SHOP_HISTORY: list[dict[str, str]] = [
    {
        "shop/__init__.py": "",
        "shop/models.py": (
            '"""The shop\'s models."""\n\n\n'
            "class Cart:\n"
            '    """Items a user is about to buy."""\n\n'
            "    def __init__(self, user):\n"
            "        self.user = user\n"
            "        self.items = []\n\n"
            "    def add(self, item):\n"
            "        self.items.append(item)\n"
            "        return self\n\n\n"
            "def get_user(name):\n"
            "    return {'name': name}\n\n\n"
            "def make_cart(name):\n"
            "    return Cart(get_user(name))\n"
        ),
        "settings.toml": "[ci]\ntimeout = 30\n",
        "src/auth.py": "def login(user):\n    return user\n",
        "src/session.py": "SESSIONS = {}\n",
        "prompt.txt": "Fix the login redirect in src/auth.py.\n",
        "answer.txt": "The redirect now keeps the next parameter.\n",
        "docs/deploy.md": (
            "# Deploying\n\nWe deploy with `make deploy` from the main branch; the cache\n"
            "lifetime of the static files is one day.\n"
        ),
    },
    {
        "shop/cart.py": (
            "from shop.models import make_cart\n\n\n"
            "def checkout(name, items):\n"
            '    """Build the cart and total it; never touches the network."""\n'
            "    cart = make_cart(name)\n"
            "    for item in items:\n"
            "        cart.add(item)\n"
            "    return sum(item['price'] for item in cart.items)\n"
        ),
    },
    {
        "shop/checkout.py": (
            '"""Checkout from the command line."""\n\n'
            "import sys\n\n"
            "from shop.cart import checkout\n"
            + "".join(f"\nPRICE_{n} = {n}" for n in range(30))
            + "\n\n\ndef main(argv=None):\n"
            "    args = argv or sys.argv[1:]\n"
            "    name = args[0] if args else 'guest'\n"
            "    items = [{'price': float(a)} for a in args[1:]]\n"
            "    total = checkout(name, items)\n"
            "    print(f'{name}: {total:.2f}')\n"
            "    return 0\n\n\n"
            "if __name__ == '__main__':\n"
            "    raise SystemExit(main())\n"
        ),
    },
    {"shop/cart.py": (
        "from shop.models import make_cart\n\n\n"
        "def checkout(name, items):\n"
        '    """Build the cart and total it; never touches the network."""\n'
        "    cart = make_cart(name)\n"
        "    for item in items:\n"
        "        cart = cart.add(item)\n"
        "    return round(sum(item['price'] for item in cart.items), 2)\n"
    )},
]


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@127.0.0.1",
                    "-c", "commit.gpgsign=false", *args], cwd=folder, check=True,
                   capture_output=True)


def shop(folder: Path) -> Path:
    """The shop the docs' examples name (Cart, Cart.add, make_cart, get_user, main,
    shop/checkout.py:42 inside main), with four commits for ``impact HEAD~3..HEAD``."""
    folder.mkdir()
    git(folder, "init", "-q")
    for n, files in enumerate(SHOP_HISTORY):
        for name, text in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text, encoding="utf-8")
        git(folder, "add", "-A")
        git(folder, "commit", "-q", "-m", f"step {n}")
    return folder


def repository(folder: Path) -> Path:
    """This repository as a newcomer clones it, with the checkout's uncommitted edits."""
    subprocess.run(["git", "clone", "-q", "--depth", "3", f"file://{REPO}", str(folder)],
                   check=True, capture_output=True)
    changed = subprocess.run(["git", "ls-files", "-m", "-o", "--exclude-standard", "-z"],
                             cwd=REPO, check=True, capture_output=True, text=True).stdout
    for name in filter(None, changed.split("\0")):
        source, target = REPO / name, folder / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return folder


@pytest.fixture(scope="module")
def workspaces(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, Path],
                                                                          dict[str, str]]]:
    top = tmp_path_factory.mktemp("doc-examples")
    home = top / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / ".local/share"),
           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_STATE_HOME": str(home / ".state"),
           "COLUMNS": "100"}
    for name in [k for k in env if k.startswith("CODEKEEP_")]:
        del env[name]
    yield {"repository": repository(top / "repository"), "shop": shop(top / "shop")}, env


BLOCKS = blocks()


def test_every_mark_names_a_line_of_its_block() -> None:
    stale = [f"{b.doc}:{b.line}: {prefix!r}" for b in BLOCKS for prefix in b.needs
             if not any(line.split()[1:][: len(prefix.split())] == prefix.split()
                        for _number, line in b.commands)]
    assert stale == []


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b.doc}:{b.line}" for b in BLOCKS])
def test_the_examples_run_as_written(
        block: Block, workspaces: tuple[dict[str, Path], dict[str, str]]) -> None:
    folders, env = workspaces
    assert block.workspace in folders, f"{block.doc}:{block.line}: no workspace {block.workspace}"
    problems = []
    for number, line in block.commands:
        words = words_of(line)
        if block.synopsis or block.need_of(line):
            problem = check_usage(line, env)
        else:
            folder = folders[block.workspace]
            problem = answer_problem(words, run([COMMAND, *words[1:]], folder, env), folder)
        if problem:
            problems.append(f"{block.doc}:{number}: {line}\n    {problem}")
    assert problems == [], "\n".join(problems)
