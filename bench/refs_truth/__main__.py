"""``python -m bench.refs_truth [python|typescript|go ...] [options]``: ONE JSON object,
``{"goals": …, "languages": {language: figures + meets_goals}}``; options (``--cache``,
``--show-symbols``) go to every language named (all of them when none is)."""

from __future__ import annotations

import importlib
import json
import sys
import traceback
from typing import Any

from bench.refs_truth.common import GOALS, meets_goals

LANGUAGES = ("python", "typescript", "go")


def run(language: str, options: list[str]) -> dict[str, Any]:
    """One language's figures; a language whose tools fail reports its error, so the
    others' figures are still printed."""
    try:
        figures = importlib.import_module(f"bench.refs_truth.{language}").main(options)
    except Exception as error:
        traceback.print_exc(file=sys.stderr)
        return {"error": f"{type(error).__name__}: {error}"}
    if "meets_goals" in figures:  # judged package by package (Python)
        return figures
    return {**figures, "meets_goals": meets_goals(figures)}


def main(argv: list[str]) -> int:
    count = next((i for i, arg in enumerate(argv) if arg.startswith("-")), len(argv))
    languages, options = argv[:count], argv[count:]
    unknown = [language for language in languages if language not in LANGUAGES]
    if unknown:
        print(f"usage: python -m bench.refs_truth [{'|'.join(LANGUAGES)} ...] [options]"
              f" (no truth harness for {unknown[0]!r})", file=sys.stderr)
        return 2
    results = {language: run(language, options) for language in languages or LANGUAGES}
    print(json.dumps({"goals": GOALS, "languages": results}, indent=1, sort_keys=True))
    return 1 if any("error" in figures for figures in results.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
