"""The small project the agent tests work on, shared by the loop tests (``tests/agent``)
and the language-server tests (``tests/server/test_agent_lsp.py``)."""

from __future__ import annotations

from pathlib import Path

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
