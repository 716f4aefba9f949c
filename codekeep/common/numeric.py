"""numpy, loaded lazily and with its BLAS kept to one thread.

numpy is a core dependency but costs ~90 ms to import, so the modules that compute with
it (memory recall's posting lists, the docs' vectors, the local embedding model) load it
through :func:`numpy` when first needed, not at import: a one-off CLI query never pays
for it. Whoever loads it first fixes its BLAS thread count for the process, so the rule
lives here, once: one thread. A 20-token question is too small to split, and two BLAS
threads spinning beside the editor's worker (and other processes on a 2-core machine)
made embedding it 10x slower.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType


def numpy() -> ModuleType:
    """The numpy module (loading it, single-threaded, if nothing has yet)."""
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        os.environ.setdefault("OMP_NUM_THREADS", "1")
    import numpy as loaded

    return loaded
