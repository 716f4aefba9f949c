"""TypeScript: the LanguageService's ``findReferences`` (npm ``typescript`` 5.4.5) as
truth on rxjs 7.8.1, which ships its ``.ts`` sources under ``src/``.

``npm install --prefix`` puts both packages into the cache; the workspace is a copy of
rxjs's ``src/``. The symbols are 30 of what ``src/index.ts`` and
``src/operators/index.ts`` export (functions, classes, constants, interfaces, types),
drawn in a fixed pseudo-random order among those with a use; ``ts_references.js`` asks
the LanguageService.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

from bench.refs_truth.common import arguments, brief, close_maps, codekeep_references, score

TYPESCRIPT = "5.4.5"
RXJS = "7.8.1"
ENTRIES = ("src/index.ts", "src/operators/index.ts")
SYMBOLS = 30
SEED = 13
SCRIPT = Path(__file__).with_name("ts_references.js")


def fetch(cache: Path) -> tuple[Path, Path]:
    """(the ``typescript`` package folder, the workspace holding rxjs's ``src/``)."""
    cache.mkdir(parents=True, exist_ok=True)
    modules = cache / "node_modules"
    root = cache / f"rxjs-{RXJS}"
    if not (modules / "typescript").is_dir() or not (modules / "rxjs" / "src").is_dir():
        subprocess.run(["npm", "install", "--prefix", str(cache), "--no-audit", "--no-fund",
                        "--silent", f"typescript@{TYPESCRIPT}", f"rxjs@{RXJS}"], check=True)
    if not (root / "src").is_dir():
        shutil.copytree(modules / "rxjs" / "src", root / "src")
    return modules / "typescript", root


def _node(typescript: Path, root: Path, *args: str, stdin: str | None = None) -> Any:
    done = subprocess.run(["node", str(SCRIPT), str(typescript), str(root), *args],
                          input=stdin, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main(argv: list[str]) -> dict[str, Any]:
    args = arguments("typescript").parse_args(argv)
    typescript, root = fetch(args.cache.resolve() / "typescript")
    pool = sorted(_node(typescript, root, "exports", *ENTRIES),
                  key=lambda item: (item["path"], item["line"]))
    random.Random(SEED).shuffle(pool)
    # a few spare: an export only ``export *`` lines reach has no use the LanguageService names
    answers = _node(typescript, root, "references", stdin=json.dumps(pool[:SYMBOLS + 10]))
    truth: dict[str, set[tuple[str, int]]] = {}
    ours: dict[str, list[tuple[str, int, str]]] = {}
    for item in [answer for answer in answers if answer["references"]][:SYMBOLS]:
        key = f"{item['path']}::{item['name']}"
        own = {(item["path"], line) for line in item["declarations"]}
        truth[key] = {(path, line) for path, line in item["references"]}
        ours[key] = [use for use in codekeep_references(root, item["name"], item["path"],
                                                        item["line"])
                     if use[:2] not in own]
    close_maps()
    return {"language": "typescript",
            "truth": f"typescript {TYPESCRIPT} LanguageService.findReferences",
            "project": f"rxjs {RXJS} src/ (npm)", **brief(score(truth, ours), args.show_symbols)}
