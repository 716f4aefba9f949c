"""JSON a model wrote for memory (extraction candidates, template summaries).

Models wrap JSON in Markdown fences and sometimes add a sentence around it; the fence
is stripped, anything else that is not JSON is an error the caller reports as a reason.
"""

from __future__ import annotations

import json
from typing import Any


def parse_model_json(text: str) -> Any:
    """The JSON value in ``text``; raises ``ValueError`` saying what is wrong."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        stripped = stripped.rsplit("```", 1)[0]
    if not stripped:
        raise ValueError("the answer is empty")
    return json.loads(stripped)
