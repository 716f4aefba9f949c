"""Tool-call arguments as models really write them."""

from __future__ import annotations

import pytest

from codekeep.agent.json_repair import parse_tool_arguments
from codekeep.agent.loop import infer_call_type


@pytest.mark.parametrize(("raw", "expected"), [
    ('{"path": "a.py"}', {"path": "a.py"}),
    ('```json\n{"path": "a.py",}\n```', {"path": "a.py"}),
    ("{'name': 'Foo', 'exact': True, 'kind': None}", {"name": "Foo", "exact": True,
                                                       "kind": None}),
    ('{"path": "a.py", "lines": [1, 2', {"path": "a.py", "lines": [1, 2]}),
    ('{"query": "unterminated', {"query": "unterminated"}),
    ('Calling the tool: {"name": "it\'s"} now', {"name": "it's"}),
    ('"{\\"path\\": \\"a.py\\"}"', {"path": "a.py"}),
    ("", {}),
])
def test_repairs(raw, expected):
    parsed = parse_tool_arguments(raw)
    assert parsed.ok and parsed.value == expected


def test_valid_json_needs_no_repair():
    assert parse_tool_arguments('{"a": "it\'s, fine"}').repairs == ()


@pytest.mark.parametrize("raw", ["read the file please", "[1, 2]", "42", "{]"])
def test_unrepairable_arguments_report_an_error(raw):
    parsed = parse_tool_arguments(raw)
    assert not parsed.ok and parsed.error


def test_call_types_follow_what_the_round_did():
    assert infer_call_type(["read_file", "write_file"], False) == "generate_code"
    assert infer_call_type(["find_references"], False) == "read_code"
    assert infer_call_type(["repo_map", "recall"], False) == "plan"
    assert infer_call_type(["remember"], False) == "tool"
    assert infer_call_type([], True) == "summarize"
    assert infer_call_type([], False) == "other"
