"""Argument normalisation: exact name, snake/camel, alias table, then schema validation."""

from __future__ import annotations

from typing import Any

import pytest

from codekeep.tools.normalize import (
    ArgumentError,
    normalise_arguments,
    parse_arguments,
    to_camel,
    to_snake,
    validate_arguments,
)
from codekeep.tools.toolkit import default_registry

REGISTRY = default_registry()
READ = REGISTRY.get("read_file")
SEARCH = REGISTRY.get("search_code")
assert READ is not None and SEARCH is not None


def test_case_conversion() -> None:
    assert to_snake("startLine") == "start_line"
    assert to_snake("maxResults") == "max_results"
    assert to_camel("start_line") == "startLine"


@pytest.mark.parametrize(
    "alias", ["file", "filepath", "file_path", "filePath", "filename", "fileName"]
)
def test_path_aliases(alias: str) -> None:
    assert READ is not None
    assert normalise_arguments(READ, {alias: "a.py"}) == {"path": "a.py"}


@pytest.mark.parametrize("alias", ["query", "search", "regex"])
def test_pattern_aliases(alias: str) -> None:
    assert SEARCH is not None
    result = normalise_arguments(SEARCH, {alias: "foo"})
    assert result["pattern"] == "foo"


def test_camel_case_parameters_become_snake_case() -> None:
    assert READ is not None
    assert normalise_arguments(READ, {"path": "a", "startLine": 3, "endLine": 4}) == {
        "path": "a",
        "start_line": 3,
        "end_line": 4,
    }


def test_exact_name_wins_over_alias() -> None:
    assert READ is not None
    result = normalise_arguments(READ, {"file": "alias.py", "path": "exact.py"})
    assert result["path"] == "exact.py"
    with pytest.raises(ArgumentError, match="file"):
        validate_arguments(READ, result)  # the leftover alias is named, not silently dropped


def test_json_string_arguments_are_parsed() -> None:
    assert parse_arguments('{"path": "a.py"}') == {"path": "a.py"}
    assert parse_arguments("") == {}
    assert parse_arguments(None) == {}


@pytest.mark.parametrize("bad", ['{"path": ', "[1, 2]", "42", "{'path': 'x'}"])
def test_malformed_arguments_get_a_clear_error(bad: str) -> None:
    with pytest.raises(ArgumentError) as info:
        parse_arguments(bad)
    assert "JSON" in str(info.value) or "object" in str(info.value)


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({}, "'path' is a required property"),
        ({"path": 3}, "path: 3 is not of type 'string'"),
        ({"path": "a", "start_line": 0}, "start_line: 0 is less than the minimum of 1"),
        ({"path": "a", "colour": "red"}, "colour"),
    ],
)
def test_validation_errors_tell_the_model_what_to_send(
    arguments: dict[str, Any], fragment: str
) -> None:
    assert READ is not None
    with pytest.raises(ArgumentError) as info:
        validate_arguments(READ, normalise_arguments(READ, arguments))
    message = str(info.value)
    assert fragment in message
    assert "Expected: read_file(path: string, start_line?: integer" in message
