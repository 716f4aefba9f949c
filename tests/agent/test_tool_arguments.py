"""Tool-call arguments as models really write them."""

from __future__ import annotations

import pytest

from codekeep.agent.accounting import call_type
from codekeep.agent.tool_arguments import coerce_to_schema, parse_tool_arguments


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


def test_raw_newlines_in_written_content_are_kept_exactly():
    content = "def f():\n\treturn {'a': 1}\n\n"
    raw = '{"path": "a.py", "content": "' + content + '"}'  # newlines unescaped, as models do
    parsed = parse_tool_arguments(raw)
    assert parsed.value == {"path": "a.py", "content": content} and parsed.repairs == ()
    broken = '{"path": "a.py", "content": "line one\nline two",}'  # and a trailing comma
    assert parse_tool_arguments(broken).value == {
        "path": "a.py",
        "content": "line one\nline two",
    }


def test_an_empty_object_is_accepted_only_when_written():
    assert parse_tool_arguments("{}").value == {}
    assert parse_tool_arguments("```json\n{ }\n```").value == {}
    assert not parse_tool_arguments("{]").ok


def test_valid_json_needs_no_repair():
    assert parse_tool_arguments('{"a": "it\'s, fine"}').repairs == ()


@pytest.mark.parametrize("raw", ["read the file please", "[1, 2]", "42", "{]"])
def test_unrepairable_arguments_report_an_error(raw):
    parsed = parse_tool_arguments(raw)
    assert not parsed.ok and parsed.error


def test_call_types_say_what_the_call_was_for():
    one_read = {"c1": {"a.py": 120}}
    assert call_type(["read_file", "write_file"], one_read) == "generate_code"
    assert call_type(["find_symbol"], one_read) == "read_code.file"  # new code in the prompt
    assert call_type([], {"c1": {"a.py": 5}, "c2": {"b.py": 9}}) == "read_code.files"
    assert call_type([], {"c1": {"a.py": 5, "b.py": 9}}) == "read_code.directory"  # one sweep
    assert call_type(["repo_map", "recall", "find_symbol"], {}) == "plan"
    assert call_type(["read_file"], {}) == "tool"  # asking for a read is not reading
    assert call_type(["remember"], {}) == "tool"
    assert call_type([], {}) == "other"  # the final answer is not a summary


SCHEMA = {"type": "object", "properties": {
    "limit": {"type": "integer"}, "ratio": {"type": "number"}, "exact": {"type": "boolean"},
    "kinds": {"type": "array", "items": {"type": "string"}},
    "lines": {"type": "array", "items": {"type": "integer"}},
    "end_line": {"type": ["integer", "null"]}, "name": {"type": "string"}}}


@pytest.mark.parametrize(("given", "expected"), [
    ({"limit": "5"}, {"limit": 5}),
    ({"limit": " -3 "}, {"limit": -3}),
    ({"ratio": "0.25"}, {"ratio": 0.25}),
    ({"exact": "true", "name": "x"}, {"exact": True, "name": "x"}),
    ({"exact": "False"}, {"exact": False}),
    ({"kinds": "fact"}, {"kinds": ["fact"]}),
    ({"lines": "7"}, {"lines": [7]}),
    ({"end_line": "12"}, {"end_line": 12}),
])
def test_what_the_schema_allows_is_coerced(given, expected):
    assert coerce_to_schema(given, SCHEMA)[0] == expected


@pytest.mark.parametrize("given", [
    {"limit": "five"}, {"limit": "5.5"}, {"exact": "yes"}, {"name": 5}, {"limit": 5},
    {"ratio": "nan"}, {"lines": "seven"}, {"unknown": "1"},
])
def test_nothing_is_guessed(given):
    assert coerce_to_schema(given, SCHEMA) == (given, ())
