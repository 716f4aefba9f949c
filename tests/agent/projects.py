"""The small project the agent tests work on, shared by the loop tests (``tests/agent``)
and the language-server tests (``tests/server/test_agent_lsp.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

BILLING = '''"""Prices and totals."""


def compute_total(items):
    """Sum the price of every item."""
    return sum(item.price for item in items)


def apply_discount(total, rate):
    return total * (1 - rate)
'''

CHECKOUT = '''from pkg.billing import compute_total


def checkout(cart):
    total = compute_total(cart.items)
    return total
'''


def write_shop(root: Path, *, generated_functions: int = 0) -> Path:
    """A definition in one file, its caller in another; ``generated_functions`` adds
    ``pkg/big.py`` (two lines each) for tests that need a file too big to read whole."""
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "billing.py").write_text(BILLING)
    (root / "pkg" / "checkout.py").write_text(CHECKOUT)
    if generated_functions:
        (root / "pkg" / "big.py").write_text("".join(
            f"def generated_function_{i}(value):\n    return value * {i} + compute_offset({i})\n\n"
            for i in range(generated_functions)))
    return root


def write_zoo(root: Path) -> Path:
    """A class that inherits a method from a base in another file, two levels up:
    ``Puppy.speak`` is ``Animal.speak`` (``Dog`` defines ``fetch`` only)."""
    (root / "zoo").mkdir(parents=True)
    (root / "zoo" / "__init__.py").write_text("")
    (root / "zoo" / "base.py").write_text(
        "class Animal:\n    def speak(self):\n        return '...'\n")
    (root / "zoo" / "dogs.py").write_text(
        "from zoo.base import Animal\n\n\nclass Dog(Animal):\n    def fetch(self):\n"
        "        return 'ball'\n\n\nclass Puppy(Dog):\n    pass\n")
    return root


def zoo_found_by_cli(root: Path, name: str, capsys: Any) -> list[tuple[str, str | None]]:
    """(id, inheritedBy) of what ``codekeep find NAME --json`` answers on ``root``: what
    the other doors' finds must answer too."""
    from codekeep.cli import main

    assert main(["find", name, "--json", "--root", str(root)]) == 0
    return [(s["id"], s.get("inheritedBy")) for s in json.loads(capsys.readouterr().out)["symbols"]]
