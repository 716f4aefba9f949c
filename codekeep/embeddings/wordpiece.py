"""BERT's uncased WordPiece tokenizer in plain Python, for the local embedding model.

The model (all-MiniLM-L6-v2) was trained on ids from HF ``BertTokenizer`` with
``do_lower_case``: clean the text (drop control characters, every space becomes " "),
put spaces round CJK ideographs, lower-case and strip accents, split on whitespace and
punctuation, then cut each word into the longest vocabulary pieces left to right
(``##`` marks a piece inside a word; a word that cannot be cut is ``[UNK]``). The same
steps here give the same ids (tests hold a sample against the reference tokenizer's
output), with no Rust extension or hub download to install.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from pathlib import Path

MAX_WORD_CHARS = 100


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    # ASCII symbols count as punctuation for BERT ("$", "^", "`" ...), as do Unicode P*.
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0x20000 <= code <= 0x2A6DF
            or 0x2A700 <= code <= 0x2B73F or 0x2B740 <= code <= 0x2B81F
            or 0x2B820 <= code <= 0x2CEAF or 0xF900 <= code <= 0xFAFF
            or 0x2F800 <= code <= 0x2FA1F)


def _clean(text: str) -> str:
    out = []
    for char in text:
        code = ord(char)
        if code in (0, 0xFFFD):
            continue
        if char in "\t\n\r" or unicodedata.category(char) == "Zs":
            out.append(" ")
        elif unicodedata.category(char).startswith("C"):
            continue
        elif _is_cjk(code):
            out.append(f" {char} ")
        else:
            out.append(char)
    return "".join(out)


def _strip_accents(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word)
                   if unicodedata.category(c) != "Mn")


def basic_words(text: str) -> list[str]:
    """Lower-cased, accent-free words and single punctuation marks, in order."""
    words: list[str] = []
    for raw in _clean(text).lower().split():
        current: list[str] = []
        for char in _strip_accents(raw):
            if _is_punctuation(char):
                if current:
                    words.append("".join(current))
                    current = []
                words.append(char)
            else:
                current.append(char)
        if current:
            words.append("".join(current))
    return words


class WordPiece:
    """Text -> token ids with a BERT ``vocab.txt`` (one piece a line, line number = id)."""

    def __init__(self, vocab: dict[str, int]) -> None:
        self.vocab = vocab
        self.cls = vocab["[CLS]"]
        self.sep = vocab["[SEP]"]
        self.unk = vocab["[UNK]"]
        self.pad = vocab.get("[PAD]", 0)
        self._pieces = lru_cache(maxsize=65_536)(self._word_pieces)

    @classmethod
    def load(cls, path: Path) -> WordPiece:
        lines = path.read_text(encoding="utf-8").splitlines()
        return cls({piece: index for index, piece in enumerate(lines)})

    def encode(self, text: str, max_tokens: int) -> list[int]:
        """``[CLS] pieces… [SEP]``, at most ``max_tokens`` ids (the tail cut off)."""
        ids = [self.cls]
        room = max_tokens - 1
        for word in basic_words(text):
            ids.extend(self._pieces(word))
            if len(ids) >= room:
                del ids[room:]
                break
        ids.append(self.sep)
        return ids

    def _word_pieces(self, word: str) -> tuple[int, ...]:
        if len(word) > MAX_WORD_CHARS:
            return (self.unk,)
        pieces: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = self.vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return (self.unk,)
            pieces.append(found)
            start = end
        return tuple(pieces)
