"""``codekeep index`` and ``codekeep doctor`` say which rule kept the source files out."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from codekeep.analysis.exclusions import survey
from codekeep.analysis.registry import default_registry
from codekeep.settings.codemap import IndexSettings
from tests.analysis.cli_calls import call

# The top of the kernel's .gitignore, and the lines Debian's linux-source package appends.
DEBIAN_GITIGNORE = """\
# SPDX-License-Identifier: GPL-2.0-only
.*
*.o
/*.spec

#
# Debian packaging: ignore everything at the top level, since it isn't
# included in our repository
#
/*
!/debian/
"""
KERNEL = {
    ".gitignore": DEBIAN_GITIGNORE,
    "kernel/fork.c": "int copy_process(void) { return 0; }\n",
    "kernel/exit.c": "void do_exit(long code) { }\n",
    "include/linux/sched.h": "struct task_struct { int pid; };\n",
    "fs/open.c": "long do_sys_open(int dfd) { return dfd; }\n",
    "fs/open.o": b"\x7fELF",
    "Makefile": "all:\n",
}


def test_debian_top_level_rule_is_named_by_index_and_doctor(
        workspace: Callable[..., Path], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    root = workspace(KERNEL)
    monkeypatch.setenv("HOME", str(root.parent))  # no agent host's files of this machine
    monkeypatch.setenv("CODEKEEP_PARSE_CACHE", "off")
    code, out, err = call(capsys, root, "index")
    assert code == 0, err
    assert "indexed 0 files" in out
    assert ("warning: no source file was indexed; kept out by .gitignore:10 `/*` (4 files)"
            in err)

    code, out, _ = call(capsys, root, "doctor", "--json")
    assert code == 1  # nothing indexable is a problem to fix
    [found] = [f for f in json.loads(out)["findings"] if f["area"] == "index"]
    assert found["status"] == "problem"
    assert ".gitignore:10 `/*` (4 files)" in found["detail"]

    # the line taken out (what the packaging notes say to do): everything is indexed
    (root / ".gitignore").write_text(DEBIAN_GITIGNORE.replace("/*\n!/debian/\n", ""))
    code, out, err = call(capsys, root, "index", "--json")
    assert json.loads(out)["files"] == 4
    assert "warning" not in err


def test_a_nested_rule_a_file_rule_and_the_size_cap_are_each_counted(
        workspace: Callable[..., Path]) -> None:
    root = workspace({
        "src/.gitignore": "# generated\n\ngen/\n*.pb.py\n",
        "src/app.py": "def main(): pass\n",
        **{f"src/gen/m{i}.py": f"X{i} = {i}\n" for i in range(12)},
        **{f"src/api{i}.pb.py": "Y = 1\n" for i in range(6)},
        "big.py": "Z = 1\n" * 400,
        "node_modules/pkg/index.js": "module.exports = 1;\n",
    })
    settings = IndexSettings(max_file_bytes=1000)
    found = survey(root, settings, default_registry())
    assert {e.rule: e.files for e in found.exclusions} == {
        "src/.gitignore:3 `gen/`": 12,
        "src/.gitignore:4 `*.pb.py`": 6,
        "the maxFileSize setting (1000 bytes)": 1,
        "the built-in exclude list `node_modules`": 1,
    }
    assert found.indexed == 1 and found.worth_saying()  # 20 of 21 kept out
    assert found.summary().startswith("only 1 of 21 source files were indexed; kept out by "
                                      "src/.gitignore:3 `gen/` (12 files), ")


def test_the_languages_setting_and_exclude_setting_are_named(
        workspace: Callable[..., Path]) -> None:
    root = workspace({"a.py": "A = 1\n", **{f"w/t{i}.ts": "export const t = 1;\n"
                                            for i in range(10)}, "docs/x.py": "B = 2\n"})
    settings = IndexSettings(languages=("python",), extra_exclude=("docs/",))
    found = survey(root, settings, default_registry(settings.languages))
    assert {e.rule: e.files for e in found.exclusions} == {
        "the languages setting (python)": 10, "the exclude setting `docs/`": 1}
    assert found.indexed == 1


def test_a_tree_mostly_indexed_says_nothing(workspace: Callable[..., Path]) -> None:
    root = workspace({**{f"m{i}.py": "A = 1\n" for i in range(5)}, "build/out.py": "B = 1\n"})
    found = survey(root, IndexSettings(), default_registry())
    assert (found.indexed, found.excluded, found.worth_saying()) == (5, 1, False)


def test_counting_below_a_huge_ignored_folder_stops_and_says_at_least(
        workspace: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    import codekeep.analysis.exclusions as exclusions

    root = workspace({".gitignore": "vendor_copy/\n",
                      **{f"vendor_copy/d{i}/m{j}.py": "" for i in range(4) for j in range(5)}})
    monkeypatch.setattr(exclusions, "COUNT_BUDGET", 8)
    found = survey(root, IndexSettings(), default_registry())
    assert found.at_least and 0 < found.excluded < 20
    assert "at least" in found.summary()
