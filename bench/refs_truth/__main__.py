"""``python -m bench.refs_truth <language> [options]``: print one JSON object."""

from __future__ import annotations

import importlib
import json
import sys


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print("usage: python -m bench.refs_truth <language> [options]", file=sys.stderr)
        return 2
    try:
        module = importlib.import_module(f"bench.refs_truth.{argv[0]}")
    except ModuleNotFoundError:
        print(f"no truth harness for language {argv[0]!r}", file=sys.stderr)
        return 2
    print(json.dumps(module.main(argv[1:]), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
