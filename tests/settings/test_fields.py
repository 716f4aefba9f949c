"""Reading one settings object: strict types, bounds, unknown keys, secrets, schema."""

from __future__ import annotations

import pytest

from codekeep.settings import Settings
from codekeep.settings.agent import ModelSettings
from codekeep.settings.codemap import IndexSettings
from codekeep.settings.fields import (
    SettingsError,
    camel,
    json_schema,
    leaves,
    structure,
    unstructure,
)
from codekeep.settings.ledger import LedgerSettings


def messages(cls: type, raw: object) -> list[str]:
    return [str(problem) for problem in structure(cls, raw)[1]]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"maxFileSize": "2048"}, "maxFileSize: must be a whole number, got '2048'"),
        ({"maxFileSize": True}, "maxFileSize: must be a whole number, got True"),
        ({"maxFileSize": 1.5}, "maxFileSize: must be a whole number, got 1.5"),
        ({"maxFileSize": 0}, "maxFileSize: must be at least 1, got 0"),
        ({"exclude": "gen/"}, "exclude: must be a list of strings, got 'gen/'"),
        ({"exclude": ["gen/", 3]}, "exclude: must be a list of strings"),
        ({"languages": [1]}, "languages: must be a list of strings"),
        ({"respectGitignore": "no"}, "respectGitignore: must be true or false"),
        ({"workers": 0}, "workers: must be at least 1, got 0"),
        ({"maxFileSise": 10}, "maxFileSise: is not a setting (did you mean maxFileSize?)"),
    ],
)
def test_values_that_do_not_fit_are_named_and_not_taken(raw: dict, message: str) -> None:
    settings, problems = structure(Settings, raw)
    assert len(problems) == 1 and str(problems[0]).startswith(message), problems
    assert settings.index == IndexSettings()  # nothing half-applied


def test_good_values_are_taken_next_to_bad_ones() -> None:
    settings, problems = structure(Settings, {"exclude": ["gen/"], "maxFileSize": "big",
                                              "ledger": {"retentionDays": 7, "warnRatios": []}})
    assert settings.index.extra_exclude == ("gen/",)
    assert settings.index.max_file_bytes == IndexSettings().max_file_bytes
    assert settings.ledger.retention_days == 7
    assert settings.ledger.warn_ratios == (0.75, 1.0)
    assert [p.dotted for p in problems] == ["maxFileSize", "ledger.warnRatios"]


def test_numbers_widen_to_floats_but_nothing_else_converts() -> None:
    settings, problems = structure(Settings, {"agent": {"timeout": 30, "temperature": 0}})
    assert problems == [] and settings.agent.timeout == 30.0
    assert isinstance(settings.agent.timeout, float)
    assert messages(Settings, {"agent": {"maxRetries": "3"}}) == [
        "agent.maxRetries: must be a whole number, got '3'"]
    assert messages(Settings, {"agent": {"model": 4}}) == [
        "agent.model: must be a string, got 4"]


def test_null_means_not_set_and_a_section_must_be_an_object() -> None:
    assert structure(Settings, {"maxFileSize": None, "agent": None}) == (Settings(), [])
    assert messages(Settings, {"memory": []}) == ["memory: must be an object, got []"]
    assert messages(Settings, []) == ["settings: must be an object, got []"]
    assert messages(Settings, {"memory": {"embeddings": {"url": 3, "apiKey": 1}}}) == [
        "memory.embeddings.url: must be a string, got 3",
        "memory.embeddings.apiKey: must be a string, got 1",
    ]


def test_internal_knobs_are_not_settings() -> None:
    """Thresholds from the design documents are not reachable from any file or editor."""
    assert messages(Settings, {"parallelMinFiles": 1}) == [
        "parallelMinFiles: is not a setting; ignored"]
    assert messages(Settings, {"memory": {"capacityPerScope": 5}})[0].startswith(
        "memory.capacityPerScope: is not a setting")


def test_wire_names_are_camel_case_of_the_field() -> None:
    assert camel("task_idle_timeout_s") == "taskIdleTimeoutS"
    keys = {".".join(key) for key, _ in leaves(Settings)}
    assert {"exclude", "maxFileSize", "ledger.taskIdleTimeoutS", "agent.baseUrl",
            "memory.embeddings.apiKey", "tools.commandAllowExtra"} <= keys
    assert not any("_" in key for key in keys)


def test_secrets_are_never_echoed() -> None:
    settings, _ = structure(Settings, {"agent": {"apiKey": "sk-secret"}})
    assert settings.agent.api_key == "sk-secret"
    assert unstructure(settings)["agent"]["apiKey"] == "<set>"
    assert unstructure(settings, reveal=True)["agent"]["apiKey"] == "sk-secret"
    assert unstructure(Settings())["agent"]["apiKey"] is None


def test_round_trip_through_the_wire() -> None:
    raw = {"exclude": ["gen/"], "languages": ["python"], "ledger": {"warnRatios": [0.5]},
           "agent": {"model": "m", "contextWindow": 8192}}
    settings, problems = structure(Settings, raw)
    assert problems == []
    again, problems = structure(Settings, unstructure(settings, reveal=True))
    assert problems == [] and again == settings


def test_python_construction_checks_the_same_bounds() -> None:
    with pytest.raises(SettingsError, match="retentionDays must be at least 1"):
        LedgerSettings(retention_days=0)
    with pytest.raises(SettingsError, match="maxFileSize must be at least 1"):
        IndexSettings(max_file_bytes=0)
    assert ModelSettings(timeout=1).timeout == 1


def test_json_schema_of_a_leaf() -> None:
    schema = {".".join(key): json_schema(entry) for key, entry in leaves(Settings)}
    assert schema["exclude"] == {"type": "array", "items": {"type": "string"},
                                 "default": [], "description": schema["exclude"]["description"]}
    assert schema["ledger.warnRatios"]["items"] == {"type": "number", "exclusiveMinimum": 0}
    assert schema["ledger.warnRatios"]["minItems"] == 1
    assert schema["agent.model"]["type"] == ["string", "null"]
    assert schema["maxFileSize"]["minimum"] == 1
