"""Where settings come from: defaults < user config < project config < environment <
editor < flags, per key; a bad value is reported and the previous value stays."""

from __future__ import annotations

from pathlib import Path

import pytest

from codekeep.settings import Settings, SettingsLayers, load_settings
from codekeep.settings.codemap import DEFAULT_MAX_FILE_BYTES, IndexSettings
from codekeep.settings.fields import flat_keys
from codekeep.settings.layers import NESTED_SECTIONS, load_index_settings


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg"
    (home / "codekeep").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home / "codekeep" / "config.toml"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".codekeep").mkdir(parents=True)
    return root


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_each_layer_overrides_the_ones_below_key_by_key(
    config_home: Path, project: Path
) -> None:
    write(config_home, 'maxFileSize = 1000\nexclude = ["user/"]\n'
                       '[agent]\nmodel = "user-model"\ntimeout = 11\n'
                       '[ledger]\nretentionDays = 5\nstoreContent = true\n')
    write(project / ".codekeep" / "config.toml",
          'exclude = ["project/"]\n[agent]\nmodel = "project-model"\n[ledger]\nretentionDays = 6\n')
    env = {"CODEKEEP_MODEL": "env-model", "CODEKEEP_BASE_URL": "http://127.0.0.1:1/v1",
           "XDG_CONFIG_HOME": str(config_home.parent.parent)}
    layers = SettingsLayers(project, env=env)
    layers.set_editor({"codekeep": {"exclude": ["editor/"], "agent": {"timeout": 22}}})
    layers.set_flags({"agent": {"model": "flag-model"}})
    settings = layers.settings
    assert layers.reports == []
    assert settings.index.max_file_bytes == 1000  # only the user file sets it
    assert settings.index.extra_exclude == ("editor/",)  # lists are replaced whole
    assert settings.agent.model == "flag-model"
    assert settings.agent.base_url == "http://127.0.0.1:1/v1"
    assert settings.agent.timeout == 22.0
    assert (settings.ledger.retention_days, settings.ledger.store_content) == (6, True)
    assert [layers.source_of(key) for key in (("maxFileSize",), ("exclude",), ("agent", "model"),
                                              ("agent", "baseUrl"), ("ledger", "retentionDays"),
                                              ("ledger", "flushIntervalS"))] == [
        "user", "editor", "flags", "environment", "project", "defaults"]


def test_pyproject_tool_section_is_the_project_config(project: Path) -> None:
    write(project / "pyproject.toml", '[project]\nname = "x"\n\n[tool.codekeep]\n'
                                      'exclude = ["generated/"]\n[tool.codekeep.ledger]\n'
                                      'retentionDays = 9\n')
    settings = load_settings(project).settings
    assert settings.index.extra_exclude == ("generated/",)
    assert settings.ledger.retention_days == 9


def test_own_config_file_wins_over_pyproject_and_says_so(project: Path) -> None:
    write(project / "pyproject.toml", '[tool.codekeep]\nexclude = ["from-pyproject/"]\n')
    write(project / ".codekeep" / "config.toml", 'exclude = ["from-config/"]\n')
    layers = load_settings(project)
    assert layers.settings.index.extra_exclude == ("from-config/",)
    assert [str(r) for r in layers.reports] == [
        f"{project}/.codekeep/config.toml: [tool.codekeep] in pyproject.toml is ignored: "
        ".codekeep/config.toml exists and wins"]


def test_a_bad_editor_value_keeps_the_previous_value_of_that_key_only(project: Path) -> None:
    layers = SettingsLayers(project, env={})
    assert layers.set_editor({"maxFileSize": 4096, "exclude": ["a/"]}) == []
    reports = layers.set_editor({"maxFileSize": "huge", "exclude": ["b/"],
                                 "ledger": {"retentionDays": 0}})
    assert [str(r) for r in reports] == [
        "editor settings: codekeep.maxFileSize must be a whole number, got 'huge'; ignored",
        "editor settings: codekeep.ledger.retentionDays must be at least 1, got 0; ignored",
    ]
    settings = layers.settings
    assert settings.index.max_file_bytes == 4096  # the previous editor value, not the default
    assert settings.index.extra_exclude == ("b/",)  # the good part of the change applies
    assert settings.ledger.retention_days == 30
    assert layers.set_editor({"maxFileSize": 8192}) == []  # fixed: reports clear
    assert layers.settings.index.max_file_bytes == 8192
    assert layers.settings.index.extra_exclude == ()  # an editor value removed is removed


def test_editor_payload_shapes(project: Path) -> None:
    layers = SettingsLayers(project, env={})
    # VS Code answers with its whole section: the extension's own keys are not ours.
    assert layers.set_editor({"serverCommand": "codekeep serve", "python": "", "taskBudget": 5,
                              "apiKeyEnvVar": "OPENAI_API_KEY", "nudges": {"display": "off"},
                              "trace": {"server": "off"}, "agent": {"model": None,
                                                                    "baseUrl": None}}) == []
    assert layers.settings.agent.model is None
    # initializationOptions, then the folder's workspace/configuration answer: later wins.
    assert layers.set_editor({"exclude": ["init/"], "maxFileSize": 10},
                             {"codekeep": {"exclude": ["pulled/"]}}, None) == []
    assert layers.settings.index.extra_exclude == ("pulled/",)
    assert layers.settings.index.max_file_bytes == 10
    reports = layers.set_editor(["not", "an", "object"])
    assert [str(r) for r in reports] == ["editor settings: settings must be an object, got list"]
    assert layers.settings.index.extra_exclude == ("pulled/",)  # kept as it was


def test_unreadable_file_is_reported_and_read_again_once_fixed(project: Path) -> None:
    config = write(project / ".codekeep" / "config.toml", "maxFileSize = \n")
    layers = SettingsLayers(project, env={})
    assert [r.problem.message.split(":")[0] for r in layers.reports] == ["cannot be read"]
    assert layers.settings.index.max_file_bytes == DEFAULT_MAX_FILE_BYTES
    write(config, "maxFileSize = 77\n")
    assert layers.reload_files() == []
    assert layers.settings.index.max_file_bytes == 77


def test_environment_values_are_typed(project: Path) -> None:
    env = {"CODEKEEP_FORGE_GENERATE": "yes", "CODEKEEP_EMBEDDINGS_URL": "http://127.0.0.1:9/v1/",
           "OPENAI_API_KEY": "sk-x", "CODEKEEP_MODEL": "  "}
    layers = SettingsLayers(project, env=env)
    settings = layers.settings
    assert settings.tools.forge_generate is True
    assert settings.memory.embeddings.endpoint == "http://127.0.0.1:9/v1/embeddings"
    assert settings.memory.embeddings.api_key == "sk-x" == settings.agent.api_key  # fallback
    assert settings.agent.model is None  # blank means unset
    bad = SettingsLayers(project, env={"CODEKEEP_FORGE_GENERATE": "perhaps"})
    assert [str(r) for r in bad.reports] == [
        "environment: codekeep.tools.forgeGenerate from $CODEKEEP_FORGE_GENERATE: must be one "
        "of 1/0, true/false, yes/no, on/off, got 'perhaps'; ignored"]
    assert bad.settings.tools.forge_generate is False


def test_loading_creates_nothing(tmp_path: Path) -> None:
    assert load_settings(tmp_path).settings.index.extra_exclude == ()
    assert list(tmp_path.iterdir()) == []


def test_values_that_clash_across_layers_are_reported(project: Path) -> None:
    write(project / ".codekeep" / "config.toml", "[docs]\nchunkTokens = 100\n")
    layers = SettingsLayers(project, env={})
    assert layers.set_editor({"docs": {"overlapTokens": 200}}) == []  # fine on its own
    assert layers.settings.docs.chunk_tokens == 350  # the section falls back whole
    assert [str(r) for r in layers.reports] == [
        "combined settings: codekeep.docs overlapTokens must be smaller than chunkTokens "
        "(set in different places); this section's defaults apply"]


def test_the_code_map_alone_resolves_as_the_whole_tree_does(
    config_home: Path, project: Path
) -> None:
    """What a code map query reads: its keys and the reports on them (and on unknown keys
    at the top) are the whole tree's, the other sections are left unchecked."""
    write(config_home, 'maxFileSize = 2000\nexclud = ["typo/"]\n[memory]\nnoSuchKey = 1\n')
    write(project / ".codekeep" / "config.toml",
          'maxFileSize = "big"\nexclude = ["project/"]\n[agent]\ntimeout = "slow"\n')
    env = {"XDG_CONFIG_HOME": str(config_home.parent.parent)}
    whole = load_settings(project, env=env, flags={"respectGitignore": False})
    alone = load_index_settings(project, env=env, flags={"respectGitignore": False})
    assert alone.settings == whole.settings.index
    assert (alone.settings.max_file_bytes, alone.settings.extra_exclude,
            alone.settings.respect_gitignore) == (2000, ("project/",), False)
    shown = [str(report) for report in alone.reports]
    assert shown == [str(report) for report in whole.reports
                     if not report.problem.dotted.startswith(("memory.", "agent."))]
    assert any("codekeep.exclud is not a setting (did you mean exclude?)" in line
               for line in shown)
    assert any("codekeep.maxFileSize must be a whole number" in line for line in shown)


def test_nested_sections_are_the_trees_own() -> None:
    """The code map's load knows the other sections' keys without importing them."""
    assert flat_keys(Settings) - flat_keys(IndexSettings) == NESTED_SECTIONS


def test_a_pyproject_naming_no_codekeep_is_not_ours_to_read(project: Path) -> None:
    """Most projects' pyproject.toml holds no settings of ours: it is not parsed (nor a
    broken one reported); one that names the section is read, and reported if broken."""
    write(project / "pyproject.toml", '[project\nname = "x"\n')
    layers = load_settings(project)
    assert layers.reports == [] and layers.settings == Settings()
    write(project / "pyproject.toml", '[tool.codekeep\nexclude = ["gen/"]\n')
    assert [str(r) for r in load_settings(project).reports] == [
        f"{project}/pyproject.toml: cannot be read: Expected ']' at the end of a table "
        "declaration (at line 1, column 15)"]
