"""Allow ``python -m codekeep`` (used by editors that run the server through a Python path)."""

from codekeep.cli import run

run()
