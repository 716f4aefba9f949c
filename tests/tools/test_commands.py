"""The command policy in isolation, and run_command as a real subprocess."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from codekeep.settings import load_settings
from codekeep.settings.tools import DEFAULT_COMMAND_ALLOW, ToolSettings
from codekeep.tools import ToolContext, ToolKit
from codekeep.tools.safety.argv import effective_argv
from codekeep.tools.safety.commands import CommandPolicy, CommandRefusedError
from codekeep.tools.safety.paths import PathGuard
from codekeep.tools.safety.shell_lexer import ShellSyntaxError, parse_command


def test_lexer_respects_quotes() -> None:
    parsed = parse_command("echo 'a; b' \"c && d\" e\\|f | wc -l")
    assert [s.words for s in parsed.segments] == [["echo", "a; b", "c && d", "e|f"], ["wc", "-l"]]
    assert parsed.segments[0].operator == "|"
    redirected = parse_command("pytest -q > out.txt 2>&1")
    assert redirected.segments[0].redirects == [(">", "out.txt"), (">&", "1")]
    assert redirected.needs_shell
    assert parse_command("echo '$(not substituted)'").segments[0].words == [
        "echo",
        "$(not substituted)",
    ]


@pytest.mark.parametrize("text", ["echo 'open", "ls &&", "&& ls", "echo >"])
def test_lexer_rejects_malformed(text: str) -> None:
    with pytest.raises(ShellSyntaxError):
        parse_command(text)


def test_effective_argv_peels_wrappers() -> None:
    assert effective_argv(["A=1", "B=2", "env", "-u", "X", "C=3", "nice", "-n", "5", "ls"]) == [
        "ls"
    ]
    assert effective_argv(["timeout", "-s", "KILL", "10", "pytest", "-q"]) == ["pytest", "-q"]
    assert effective_argv(["xargs", "-I", "{}", "rm", "{}"]) == ["rm", "{}"]


def _policy(root: Path, **options: Any) -> CommandPolicy:
    return CommandPolicy(PathGuard(root), options.pop("allow", DEFAULT_COMMAND_ALLOW), **options)


def test_allow_list_prefixes(workspace: Path) -> None:
    policy = _policy(workspace)
    assert policy.check("git status").argv == ("git", "status")
    assert policy.check("python -m pytest -q").argv is not None
    with pytest.raises(CommandRefusedError, match="allow list"):
        policy.check("git push --force")
    with pytest.raises(CommandRefusedError, match="allow list"):
        policy.check("python script.py")


def test_deny_list_beats_the_allow_list(workspace: Path) -> None:
    policy = _policy(workspace, allow=("sudo", "rm", "dd", "bash"))
    for command in ("sudo ls", "rm -rf /", "dd of=/dev/sda", "bash -c ls"):
        with pytest.raises(CommandRefusedError):
            policy.check(command)


def test_shell_mode_runs_operators_but_checks_each_part(workspace: Path) -> None:
    policy = _policy(workspace, allow_shell=True)
    plan = policy.check("grep -n helper src/util.py | wc -l")
    assert plan.shell == "grep -n helper src/util.py | wc -l" and plan.argv is None
    assert plan.programs == ("grep", "wc")
    with pytest.raises(CommandRefusedError, match="secret-file rules"):
        policy.check("grep -rn helper src | wc -l")  # its exclusions cannot be added
    for command in ("ls && sudo id", "echo $HOME && ls", "cat ${IFS}/etc/passwd | wc", "ls | sh"):
        with pytest.raises(CommandRefusedError):
            policy.check(command)
    for hidden in ("cat $'\\x2eenv' | wc -l", "cat {.e,x}nv | wc -l", "ls $1 | wc"):
        with pytest.raises(CommandRefusedError, match="expansion"):
            policy.check(hidden)
    # A single command never goes through the shell, so $VAR and * stay literal text.
    assert policy.check("echo $HOME").argv == ("echo", "$HOME")
    inner = _policy(workspace, allow=("bash", "ls"), allow_shell=True)
    assert inner.check("bash -c 'ls src'").argv is not None
    with pytest.raises(CommandRefusedError, match="privileges"):
        inner.check("bash -c 'sudo ls'")


def test_globs_that_would_reach_secrets_are_refused_in_shell_mode(workspace: Path) -> None:
    policy = _policy(workspace, allow_shell=True)
    with pytest.raises(CommandRefusedError, match="secret"):
        policy.check("cat .e* | wc -l")
    with pytest.raises(CommandRefusedError, match="secret"):
        policy.check("cat keys/* && ls")
    assert policy.check("cat src/*.py | wc -l").programs == ("cat", "wc")


def test_project_config_configures_the_policy(workspace: Path) -> None:
    (workspace / ".codekeep").mkdir(exist_ok=True)
    (workspace / ".codekeep" / "config.toml").write_text(
        '[tools]\ncommandAllowExtra = ["node --version"]\ncommandTimeout = 5\n'
    )
    settings = load_settings(workspace).settings.tools
    assert "node --version" in settings.allowed_commands and settings.command_timeout == 5.0
    ctx = ToolContext.create(workspace, "t", "edit", settings=settings)
    assert ctx.command_policy().check("node --version").argv == ("node", "--version")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("commandTimeout = -1", "tools.commandTimeout must be more than 0"),
        ("allowShell = 'yes'", "tools.allowShell must be true or false"),
        ("commandAllow = 'ls'", "tools.commandAllow must be a list of strings"),
        ("nonsense = 1", "tools.nonsense is not a setting"),
        ("commandTimeout = ", "config.toml: cannot be read"),
    ],
)
def test_bad_settings_get_clear_errors_and_change_nothing(
    workspace: Path, text: str, message: str
) -> None:
    (workspace / ".codekeep").mkdir(exist_ok=True)
    (workspace / ".codekeep" / "config.toml").write_text("[tools]\n" + text + "\n")
    layers = load_settings(workspace)
    assert any(message in str(report) for report in layers.reports), layers.reports
    assert layers.settings.tools == ToolSettings()


def test_a_leftover_tools_toml_is_pointed_out(workspace: Path) -> None:
    (workspace / ".codekeep").mkdir(exist_ok=True)
    (workspace / ".codekeep" / "tools.toml").write_text('command_allow_extra = ["make"]\n')
    reports = [str(report) for report in load_settings(workspace).reports]
    assert any("tools.toml is no longer read" in report and "commandAllowExtra" in report
               for report in reports), reports


def test_forge_generate_switch_from_environment(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not load_settings(workspace).settings.tools.forge_generate
    monkeypatch.setenv("CODEKEEP_FORGE_GENERATE", "1")
    assert load_settings(workspace).settings.tools.forge_generate


async def test_run_command_reports_exit_code_and_runs_in_the_workspace(
    call: Any, workspace: Path
) -> None:
    result = await call("run_command", {"command": "pwd"})
    assert result.ok and result.data["exit_code"] == 0
    assert result.data["output"].strip() == str(workspace.resolve())
    failing = await call("run_command", {"command": "ls no-such-dir"})
    assert failing.ok and failing.data["exit_code"] != 0  # the call worked; the command failed
    assert "exit 2" in failing.content or "exit 1" in failing.content


async def test_run_command_times_out_and_kills(workspace: Path, kit: ToolKit) -> None:
    settings = ToolSettings(command_allow=("python3",), command_timeout=1)
    ctx = ToolContext.create(workspace, "t", "edit", settings=settings)
    result = await kit.pipeline.execute(
        "run_command", {"command": "python3 -c 'import time; time.sleep(30)'"}, ctx
    )
    assert result.ok and result.data["timed_out"]
    assert "timed out and was killed" in result.content


async def test_run_command_caps_output_keeping_head_and_tail(workspace: Path, kit: ToolKit) -> None:
    settings = ToolSettings(command_allow=("python3",), output_cap=200)
    ctx = ToolContext.create(workspace, "t", "edit", settings=settings)
    script = 'python3 -c \'print("FIRST"); [print(i) for i in range(5000)]; print("LAST")\''
    result = await kit.pipeline.execute("run_command", {"command": script}, ctx)
    assert result.data["truncated"]
    assert "FIRST" in result.content and "LAST" in result.content
    assert "characters of output omitted" in result.content
    assert len(result.data["output"]) < 400


async def test_run_command_hides_credentials_from_the_environment(
    workspace: Path, kit: ToolKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    monkeypatch.setenv("CODEKEEP_VISIBLE", "yes")
    settings = ToolSettings(command_allow=("python3",))
    ctx = ToolContext.create(workspace, "t", "edit", settings=settings)
    script = "python3 -c 'import os; print(sorted(os.environ))'"
    result = await kit.pipeline.execute("run_command", {"command": script}, ctx)
    assert "CODEKEEP_VISIBLE" in result.content and "OPENAI_API_KEY" not in result.content
    assert os.environ["OPENAI_API_KEY"] == "sk-should-not-leak"


async def test_shell_mode_end_to_end(workspace: Path, kit: ToolKit) -> None:
    ctx = ToolContext.create(workspace, "t", "edit", settings=ToolSettings(allow_shell=True))
    result = await kit.pipeline.execute(
        "run_command", {"command": "grep -c helper src/util.py && echo done"}, ctx
    )
    assert result.ok and result.data["output"].split() == ["1", "done"]
