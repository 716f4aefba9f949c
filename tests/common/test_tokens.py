"""Token counting is offline: the shipped encodings are OpenAI's, nothing is downloaded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken_ext.openai_public as openai_public

from codekeep.common import tokens

# Run with every socket connection refused and an empty tiktoken cache: what a machine
# without a network sees. tiktoken would try to download (or cache) here if it could.
_OFFLINE = """
import json, socket, sys

def _refuse(*args, **kwargs):
    raise OSError("network disabled for this test")

socket.socket.connect = _refuse
socket.create_connection = _refuse

from codekeep.common.tokens import count_tokens, get_encoding
from codekeep.ledger.prices import model_info

result = {}
for model in sys.argv[1:]:
    encoding = model_info(model).encoding
    counted = count_tokens("hello world", encoding)
    result[model] = [encoding, counted.source, counted.encoding,
                     get_encoding(encoding).encode("hello world")]
print(json.dumps(result))
"""


def test_counting_needs_no_network_and_writes_no_cache(tmp_path: Path) -> None:
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", _OFFLINE, "gpt-4o", "gpt-5-mini", "gpt-4-0613", "claude-sonnet-4"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"TIKTOKEN_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    counted = json.loads(done.stdout)
    o200k = ["o200k_base", "tiktoken", "o200k_base", [24912, 2375]]
    cl100k = ["cl100k_base", "tiktoken", "cl100k_base", [15339, 1917]]
    assert counted == {
        "gpt-4o": o200k,
        "gpt-5-mini": o200k,
        "gpt-4-0613": cl100k,
        "claude-sonnet-4": cl100k,
    }
    assert list(cache.iterdir()) == []


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_shipped_encodings_are_the_ones_tiktoken_defines(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tiktoken's own constructor, handed our verified ranks, builds the same encoding."""
    ranks = tokens.mergeable_ranks(name)  # raises unless the SHA-256 is OpenAI's
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *_a, **_k: ranks)
    official = getattr(openai_public, name)()
    ours = tokens.get_encoding(name)
    assert ours is not None
    assert ours._pat_str == official["pat_str"]
    assert ours._special_tokens == official["special_tokens"]
    assert ours.n_vocab == max([*ranks.values(), *official["special_tokens"].values()]) + 1


def test_damaged_data_degrades_to_an_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = tokens._SHIPPED["o200k_base"]
    broken = tokens._Shipped("0" * 64, shipped.pat_str, shipped.special_tokens)
    monkeypatch.setitem(tokens._SHIPPED, "o200k_base", broken)
    tokens.get_encoding.cache_clear()
    try:
        with pytest.raises(tokens.EncodingDataError, match="damaged"):
            tokens.mergeable_ranks("o200k_base")
        counted = tokens.count_tokens("hello world", "o200k_base")
        assert (counted.source, counted.encoding, counted.tokens) == ("estimate", None, 3)
    finally:
        tokens.get_encoding.cache_clear()


def test_an_encoding_we_do_not_ship_counts_with_cl100k() -> None:
    counted = tokens.count_tokens("hello world", "p50k_base")
    assert (counted.source, counted.encoding, counted.tokens) == ("tiktoken", "cl100k_base", 2)


def test_a_shipped_encoding_pickles_by_name() -> None:
    """The encoding lets go of tiktoken's Python copy of its ranks (memory), so it must
    pickle by name and be rebuilt from the shipped data, never from an empty table."""
    import pickle

    encoding = tokens.get_encoding("o200k_base")
    assert encoding is not None
    again = pickle.loads(pickle.dumps(encoding))
    assert again.name == "o200k_base"
    assert again.encode("def parse(text): ...") == encoding.encode("def parse(text): ...")


def test_a_short_lived_process_can_estimate_without_loading_tiktoken() -> None:
    """A hook process asks for estimates: it never imports tiktoken or builds a table."""
    probe = ("import sys\nfrom codekeep.common import tokens\ntokens.estimate_only()\n"
             "print(tokens.count_tokens('hello world, twelve chars').source,"
             " 'tiktoken' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, timeout=60)
    assert done.stdout.split() == ["estimate", "False"]
