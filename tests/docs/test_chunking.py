"""Golden chunking: Markdown and reST cut by structure — heading paths, 1-based line
spans, code blocks whole, long sections split on paragraphs with a small overlap — and
broken markup (unterminated fences, bad reST titles) read without losing the text."""

from __future__ import annotations

import itertools

from codekeep.docs.chunking import ChunkSizes, parse_document
from codekeep.docs.formats import candidate_format, sniff_format

MARKDOWN = """\
---
title: Deployment
---
Intro before any heading.

# Deploying

How we ship.

## Static files

Collect them with `collect_static()`.

```python
def serve(path):

    return open(path)
```

### Serving in production
Use a CDN.

Setext heading
--------------

Under setext.

```bash
echo "never closed"

# not a heading
"""

RST = """\
.. _deploy:

==========
Deployment
==========

.. contents:: On this page
   :local:

Intro paragraph with :setting:`STATIC_ROOT` and ``collectstatic``.

Static files
============

Run it like this::

    $ python manage.py collectstatic

    $ ls static/

After the literal block.

.. note::

    Notes are prose.

.. code-block:: python
   :caption: settings.py

   STATIC_URL = "/static/"
   STORAGES = {}

Serving in production
---------------------

Broken
----

Short underline still a title (docutils warns).

=====
Orphan overline without underline

.. toctree::

   one
   two

.. a comment
   continued

Back to prose in :func:`~django.contrib.staticfiles.views.serve`.
"""


def chunks(rel: str, text: str, fmt: str, sizes: ChunkSizes | None = None) -> list[tuple]:
    parsed = parse_document(rel, text, fmt, sizes or ChunkSizes())  # type: ignore[arg-type]
    return [(c.heading, c.start_line, c.end_line, c.text, c.mentions) for c in parsed.chunks]


def test_markdown_golden() -> None:
    assert parse_document("docs/deploy.md", MARKDOWN, "markdown", ChunkSizes()).title == (
        "Deployment"  # front matter names the page
    )
    assert chunks("docs/deploy.md", MARKDOWN, "markdown") == [
        ("Deployment", 4, 4, "Intro before any heading.", ()),
        ("Deployment › Deploying", 8, 8, "How we ship.", ()),
        (
            "Deployment › Deploying › Static files", 12, 18,
            "Collect them with `collect_static()`.\n\n"
            "```python\ndef serve(path):\n\n    return open(path)\n```",  # blank line kept
            (("collect_static", None), ("serve", None)),
        ),
        ("Deployment › Deploying › Static files › Serving in production", 21, 21,
         "Use a CDN.", ()),
        # An unterminated fence runs to the end (as renderers show it): "# not a heading"
        # stays code, and nothing is lost.
        ("Deployment › Deploying › Setext heading", 26, 31,
         'Under setext.\n\n```bash\necho "never closed"\n\n# not a heading', ()),
    ]  # fmt: skip


def test_rst_golden() -> None:
    assert chunks("docs/deploy.txt", RST, "rst") == [
        ("Deployment", 10, 10,
         "Intro paragraph with :setting:`STATIC_ROOT` and ``collectstatic``.",
         (("STATIC_ROOT", None), ("collectstatic", None))),
        (
            "Deployment › Static files", 15, 31,
            "Run it like this::\n\n    $ python manage.py collectstatic\n\n    $ ls static/\n\n"
            "After the literal block.\n\n.. note::\n\n    Notes are prose.\n\n"
            '.. code-block:: python\n   :caption: settings.py\n\n   STATIC_URL = "/static/"\n'
            "   STORAGES = {}",
            (),
        ),
        # "Serving in production" has no body; "Broken" (underline too short) is still a
        # title at the same level; the orphan overline is dropped, its line kept as text;
        # the toctree and the comment are not prose.
        (
            "Deployment › Static files › Broken", 39, 52,
            "Short underline still a title (docutils warns).\n\n"
            "Orphan overline without underline\n\n"
            "Back to prose in :func:`~django.contrib.staticfiles.views.serve`.",
            (("serve", "views"), ("views", "staticfiles")),  # Container.name: both
        ),
    ]  # fmt: skip


def test_long_sections_split_on_paragraphs_with_overlap_and_code_whole() -> None:
    paragraph = lambda n: " ".join(f"w{n}x{i}" for i in range(6))  # noqa: E731 (8 tokens)
    text = ("# Long\n\n" + "\n\n".join(paragraph(n) for n in range(8))
            + "\n\n```\n" + "code line\n" * 30 + "```\n\nTail paragraph.\n")
    found = chunks("long.md", text, "markdown", ChunkSizes(chunk_tokens=40, overlap_tokens=15))
    assert [(heading, start, end) for heading, start, end, _t, _m in found] == [
        ("Long", 3, 11),  # paragraphs 0-4: 40 tokens
        ("Long", 11, 17),  # starts with paragraph 4 again: the overlap (8 <= 15 tokens)
        ("Long", 19, 50),  # the 30-line code block, longer than a chunk, whole
        ("Long", 52, 52),  # no overlap out of a code block
    ]
    assert found[1][3].startswith(paragraph(4)) and found[0][3].endswith(paragraph(4))


def test_a_paragraph_longer_than_a_chunk_is_cut_between_lines() -> None:
    text = "Title\n=====\n\n" + "\n".join(f"line {n} of one long paragraph" for n in range(40))
    found = chunks("t.rst", text, "rst", ChunkSizes(chunk_tokens=64, overlap_tokens=8))
    spans = [(start, end) for _h, start, end, _t, _m in found]
    assert spans[0][0] == 4 and spans[-1][1] == 43
    assert all(b[0] == a[1] + 1 for a, b in itertools.pairwise(spans))  # no gaps
    assert len(found) > 1


def test_headings_read_as_text_and_levels_may_skip() -> None:
    text = "# The `codekeep` **guide**\n\n### Deep [link](https://x.y) `send_mail()`\n\nBody.\n"
    assert chunks("g.md", text, "markdown")[0][0] == "The codekeep guide › Deep link send_mail()"


def test_plain_text_and_asciidoc() -> None:
    assert chunks("NOTES.txt", "one\ntwo\n\nthree\n", "text") == [
        ("NOTES.txt", 1, 4, "one\ntwo\n\nthree", ())
    ]
    adoc = "= Guide\n:toc:\n\n== Install\n\nRun it.\n\n----\nmake install\n\n----\n"
    assert chunks("g.adoc", adoc, "asciidoc") == [
        ("Guide › Install", 6, 11, "Run it.\n\n----\nmake install\n\n----", ())
    ]


def test_which_files_are_docs() -> None:
    assert candidate_format("docs/a.md") == "markdown"
    assert candidate_format("docs/a.mdx") == "markdown"
    assert candidate_format("docs/a.rst") == "rst"
    assert candidate_format("docs/a.adoc") == "asciidoc"
    assert candidate_format("docs/topics/cache.txt") == "sniff"
    assert candidate_format("README") == "sniff"
    for skipped in ("requirements-dev.txt", "LICENSE.txt", "docs/_build/html/a.md",
                    "docs/generated/api.rst", "src/app.py", "Makefile"):
        assert candidate_format(skipped) is None, skipped
    assert sniff_format(b"Caching\n=======\n\nText.\n") == "rst"
    assert sniff_format(b"See :ref:`x` for more.\n") == "rst"
    assert sniff_format(b"just words\nmore words\n") == "text"
