"""What install writes into a host's instruction file: when CodeKeep's tools beat grep
and whole-file reads. Short on purpose: the host loads it into every session."""

from __future__ import annotations

GUIDANCE = """\
## CodeKeep: code map and memory for this repository

The `codekeep` MCP server indexes this repository and keeps what earlier sessions learnt.

- Where is a function, class or setting defined? Call `find_symbol` instead of grep or
  reading whole files: it answers with the definition's own lines.
- Who uses or calls it? Call `find_references` instead of grep.
- How does this project do something (commands, conventions, earlier decisions, past
  failures)? Call `recall` with the question before exploring.
- When the user states a lasting preference or a decision is made, call `remember` with
  one self-contained sentence.
- Read a whole file only when you need most of it.
"""

#: Cursor's rule files are Markdown with a front matter saying when the rule applies.
CURSOR_FRONT_MATTER = """\
---
description: When to use CodeKeep's code map and memory tools instead of grep
alwaysApply: true
---
"""
