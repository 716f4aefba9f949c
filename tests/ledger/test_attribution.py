from __future__ import annotations

from pathlib import Path

import pytest

from codekeep.ledger import Ledger
from codekeep.ledger.attribution import characters_in_files, normalise_path, split_tokens


def test_split_is_weighted_by_characters_read_not_equal_shares() -> None:
    parts = split_tokens(1000, {"big.py": 9000, "small.py": 1000})
    assert parts == {"big.py": 900, "small.py": 100}


@pytest.mark.parametrize("total", [0, 1, 7, 100, 9_999, 123_457])
def test_parts_always_sum_exactly_to_the_input_tokens(total: int) -> None:
    weights = {"a": 1, "b": 1, "c": 1, "d": 5, "e": 13}
    parts = split_tokens(total, weights)
    assert sum(parts.values()) == total
    # largest remainder: no part is more than one token away from its exact share
    for path, weight in weights.items():
        assert abs(parts[path] - total * weight / 21) < 1


def test_remainder_goes_to_largest_fraction_then_to_earlier_file() -> None:
    assert split_tokens(10, {"a": 1, "b": 1, "c": 1}) == {"a": 4, "b": 3, "c": 3}
    assert split_tokens(2, {"a": 1, "b": 2, "c": 2}) == {"a": 0, "b": 1, "c": 1}


def test_files_with_nothing_read_share_equally() -> None:
    assert split_tokens(9, {"a": 0, "b": 0, "c": 0}) == {"a": 3, "b": 3, "c": 3}


def test_negative_weight_is_rejected() -> None:
    with pytest.raises(ValueError, match="negative"):
        split_tokens(10, {"a": -1})


def test_absolute_paths_inside_the_workspace_become_relative(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    assert normalise_path(str(root / "src" / "app.py"), root) == "src/app.py"
    assert normalise_path("src\\app.py", root) == "src/app.py"
    assert normalise_path("/elsewhere/x.py", root) == "/elsewhere/x.py"


def test_record_attributes_input_tokens_to_files(ledger: Ledger) -> None:
    record = ledger.record(task_id="t", call_type="read_code", model="gpt-4o",
                           input_tokens=301, output_tokens=10,
                           files={"a.py": 200, str(ledger.root / "b.py"): 100})
    assert record.file_tokens == {"a.py": 201, "b.py": 100}
    assert record.call_type == "read_code.files"
    assert ledger.tokens_for_file("a.py") == 201
    assert ledger.tokens_for_file(str(ledger.root / "b.py")) == 100


def test_single_file_and_directory_reads_are_separate_call_types(ledger: Ledger) -> None:
    one = ledger.record(task_id="t", call_type="read_code", model="m", input_tokens=5,
                        files={"a.py": 3})
    tree = ledger.record(task_id="t", call_type="read_code.directory", model="m",
                         input_tokens=5, files={"a.py": 3, "b.py": 3})
    assert (one.call_type, tree.call_type) == ("read_code.file", "read_code.directory")
    with pytest.raises(ValueError, match="unknown call type"):
        ledger.record(task_id="t", call_type="browse", model="m", input_tokens=5)


def test_bad_file_weights_are_rejected_and_nothing_is_stored(ledger: Ledger) -> None:
    with pytest.raises(ValueError, match="non-negative"):
        ledger.record(task_id="t", call_type="tool", model="m", input_tokens=5,
                      files={"a.py": -3})
    assert ledger.report()["total"]["calls"] == 0


def test_characters_in_files_measures_text_and_reports_missing_files(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("héllo\n", encoding="utf-8")
    assert characters_in_files(["a.py"], tmp_path) == {"a.py": 6}
    with pytest.raises(ValueError, match=r"cannot read missing\.py"):
        characters_in_files(["missing.py"], tmp_path)
