"""A name's definitions read from the tree (codekeep.analysis.lookup) equal the full
extraction's, edit after edit, in every language: the answer a lookup gives while a
buffer's facts are still owed is the answer the extracted facts would give."""

from __future__ import annotations

import random

import pytest

from codekeep.analysis.extract import extract
from codekeep.analysis.lookup import MAX_OCCURRENCES, definitions_named
from tests.analysis.test_incremental import SOURCES, _golden_document, _random_edit

NAMES_PER_EDIT = 6


@pytest.mark.parametrize("copies", [1, 2], ids=["plain", "doubled"])
@pytest.mark.parametrize("source", SOURCES)
def test_lookup_equals_the_full_extraction(source: str, copies: int) -> None:
    """Doubled files have every name twice: the numbering (``#2``) must match too."""
    document = _golden_document(source, copies)
    rng = random.Random(f"lookup:{source}:{copies}")
    for step in range(60):
        _random_edit(document, rng)
        assert not document.settled
        full = extract(document.spec, document.data, document.tree).symbols
        names = sorted({s.name for s in full})
        for name in [*rng.sample(names, min(NAMES_PER_EDIT, len(names))), "no_such_name"]:
            found = definitions_named(document.spec, document.data, document.tree, name)
            if found is None:  # too frequent to look up: the caller extracts instead
                assert document.data.count(name.encode()) > MAX_OCCURRENCES
                continue
            assert found == [s for s in full if s.name == name], (
                f"{name!r} differs after edit {step}")
    document.settle()
    assert document.facts == extract(document.spec, document.data, document.tree)
