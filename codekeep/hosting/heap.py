"""Giving freed memory back to the system after a burst of work.

A long-lived door (the server) sometimes allocates a lot at once and frees it: the
cold index decodes every worker's results, the repository map ranks every symbol and
reference. glibc keeps what was freed for reuse, so the process's resident set stays
at the high-water mark for the rest of the session. ``malloc_trim`` hands the free
pages back (about 15 MB after a repository map of Django, measured with
bench/server_rss_bench.py); it walks the allocator's arenas (milliseconds to tens of
them on a big heap), so it is called only after those bursts — once per cold index and
per repository map — and never on the event loop. Elsewhere than glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import logging
from collections.abc import Callable

logger = logging.getLogger(__name__)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to call
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    function: Callable[[int], int] = trim
    return function


def release_free_memory() -> None:
    """Return the allocator's free pages to the system (glibc only; ctypes lets the
    other threads run meanwhile)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
