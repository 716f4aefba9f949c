"""The preference catalog: the only preference keys the agent acts on, and their legal values.

A slot is ``enum`` (closed set), ``regex`` (one string matching a pattern) or
``free_text`` (any single-line string, bound to a known key). The catalog is the single
source of truth for validating ``MEMORY.md`` lines, for ``remember --kind preference``,
for rendering the notes template and for compiling the effective preferences. Rule
patterns let plain sentences ("tests run with pytest -x", "we use pnpm") land in a slot
without a model, so a later contradicting sentence is a *key* conflict.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Slot:
    key: str
    type: str  # "enum" | "regex" | "free_text"
    description: str
    default: str
    values: tuple[str, ...] = ()
    pattern: str | None = None
    # (regex over lower-cased text, value or None = take group 1 verbatim)
    rules: tuple[tuple[str, str | None], ...] = field(default=())

    def validate(self, value: str) -> str | None:
        """``None`` when ``value`` is legal, else a user-facing reason."""
        value = value.strip()
        if self.type == "enum":
            if value not in self.values:
                return f"{self.key} must be one of {', '.join(self.values)} (got {value!r})"
        elif self.type == "regex":
            assert self.pattern is not None
            if not re.fullmatch(self.pattern, value):
                return f"{self.key} must match {self.pattern} (got {value!r})"
        elif not value or "\n" in value:
            return f"{self.key} must be a non-empty single line"
        return None


_COMMAND = r"[`'\"]?([^`'\"\n]+?)[`'\"]?\s*$"
_PACKAGE_MANAGERS = (
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "pip",
    "uv",
    "poetry",
    "pipenv",
    "conda",
    "cargo",
    "go",
    "maven",
    "gradle",
)

SLOTS: tuple[Slot, ...] = (
    Slot(
        "test_command",
        "free_text",
        "command that runs the tests",
        "",
        rules=(
            (r"^(?:the )?tests? (?:are )?(?:run|ran) (?:with|using|via|by) " + _COMMAND, None),
            (r"^(?:the )?test command is:? " + _COMMAND, None),
            (r"^run (?:the )?tests (?:with|using) " + _COMMAND, None),
        ),
    ),
    Slot(
        "lint_command",
        "free_text",
        "command that lints the code",
        "",
        rules=(
            (r"^(?:the )?lint(?:er|ing)? (?:command )?(?:is|runs? with|uses?):? " + _COMMAND, None),
        ),
    ),
    Slot(
        "build_command",
        "free_text",
        "command that builds the project",
        "",
        rules=((r"^(?:the )?build (?:command )?(?:is|runs? with|uses?):? " + _COMMAND, None),),
    ),
    Slot(
        "package_manager",
        "enum",
        "package manager for installs and scripts",
        "auto",
        values=("auto", *_PACKAGE_MANAGERS),
        rules=tuple(
            (rf"^(?:we |this project |the project )?(?:use|uses|using|prefer) {pm}\b", pm)
            for pm in _PACKAGE_MANAGERS
        ),
    ),
    Slot(
        "verbosity",
        "enum",
        "how detailed answers are",
        "standard",
        values=("concise", "standard", "detailed"),
        rules=(
            (r"\b(?:answers?|responses?|replies?) .*\b(?:concise|brief|short)\b", "concise"),
            (r"\b(?:be|keep it) (?:concise|brief)\b", "concise"),
            (r"\b(?:answers?|responses?|replies?) .*\b(?:detailed|thorough|verbose)\b", "detailed"),
        ),
    ),
    Slot(
        "answer_order",
        "enum",
        "what comes first in an answer",
        "standard",
        values=("standard", "conclusion_first", "steps_first"),
        rules=((r"\b(?:conclusion|answer|summary) first\b", "conclusion_first"),),
    ),
    Slot(
        "format",
        "enum",
        "preferred answer layout",
        "bullets",
        values=("bullets", "prose", "steps", "table"),
    ),
    Slot(
        "language",
        "regex",
        "language of answers (BCP 47 tag)",
        "en",
        pattern=r"[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*",
    ),
    Slot(
        "commit_style",
        "enum",
        "commit message convention",
        "free",
        values=("free", "conventional", "gitmoji"),
        rules=((r"\bconventional commits?\b", "conventional"),),
    ),
    Slot(
        "timezone",
        "regex",
        "timezone for dates in answers",
        "Etc/UTC",
        pattern=r"[A-Za-z_]+/[A-Za-z_+-]+",
    ),
)


class PreferenceCatalog:
    """Lookup, validation and rule inference over a set of slots."""

    def __init__(self, slots: Iterable[Slot] = SLOTS) -> None:
        self.slots = {slot.key: slot for slot in slots}

    def __contains__(self, key: object) -> bool:
        return key in self.slots

    def validate(self, key: str, value: str) -> str | None:
        slot = self.slots.get(key)
        if slot is None:
            return f"unknown preference key {key!r} (known: {', '.join(self.slots)})"
        return slot.validate(value)

    def defaults(self) -> dict[str, str]:
        return {key: slot.default for key, slot in self.slots.items()}

    def infer(self, text: str) -> tuple[str, str] | None:
        """The (key, value) a plain sentence states, if a rule recognises it."""
        lowered = text.strip().lower()
        for slot in self.slots.values():
            for rule, value in slot.rules:
                match = re.search(rule, lowered)
                if not match:
                    continue
                if value is None:
                    # keep the original casing of the captured command
                    start, end = match.span(1)
                    value = text.strip()[start:end].strip()
                if slot.validate(value) is None:
                    return slot.key, value
        return None

    def render(self, key: str, value: str) -> str:
        """The canonical content of a preference memory (one wording per value)."""
        return f"{key}: {value}"

    def template(self) -> str:
        """The ``MEMORY.md`` scaffold (``codekeep memory notes --template``)."""
        lines = [
            "---",
            "schema_version: codekeep-memory/v1",
            "editable: true",
            "---",
            "",
            "# Project memory",
            "",
            "## Preferences",
            "",
            "<!-- One `key: value` per line. Lines with no value keep the default. -->",
        ]
        for slot in self.slots.values():
            if slot.type == "enum":
                hint = f"default: {slot.default}; one of: {', '.join(slot.values)}"
            elif slot.type == "regex":
                hint = f"default: {slot.default}; must match {slot.pattern}"
            else:
                hint = f"free text; {slot.description}"
            lines.append(f"- {slot.key}: <!-- {hint} -->")
        lines += [
            "",
            "## Notes",
            "",
            "<!-- Anything that is not a preference goes here: one note per paragraph or bullet.",
            "     Notes are kept exactly as written and recalled as context; they never change",
            "     what the agent is allowed to do. -->",
            "",
        ]
        return "\n".join(lines)
