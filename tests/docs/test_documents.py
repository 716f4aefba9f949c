"""Every document a project keeps: Jupyter notebooks' Markdown cells, and PDF, Word,
PowerPoint, Excel and HTML pages through markitdown (the ``documents`` extra), each
built here as the real format and found by a question — plus what is passed over and
why: templates, damaged files, and documents met before markitdown was installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

if not os.environ.get("CI"):  # scripts/test installs the extra; CI fails without it
    pytest.importorskip("markitdown", reason="pip install -e '.[documents]'")
import openpyxl  # the documents extra, as is pptx
from pptx import Presentation

import codekeep.docs.pages as docs_pages
import codekeep.docs.service as docs_service
from codekeep.docs import DocsIndex
from codekeep.docs.conversion import NEEDS_EXTRA


def pdf_with_text(text: str) -> bytes:
    """A one-page PDF whose page draws ``text`` in Helvetica (a real file pdfminer reads)."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


def docx_with(heading: str, paragraph: str) -> bytes:
    """A minimal Word document (the three parts Word itself needs), heading styled."""
    from io import BytesIO

    ns = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    document = (
        f'<?xml version="1.0" encoding="UTF-8"?><w:document {ns}><w:body>'
        f'<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>{heading}</w:t></w:r></w:p>'
        f"<w:p><w:r><w:t>{paragraph}</w:t></w:r></w:p></w:body></w:document>")
    buffer = BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", (
            '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.'
            'org/package/2006/content-types"><Default Extension="rels" ContentType="application/'
            'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" '
            'ContentType="application/xml"/><Override PartName="/word/document.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.'
            'document.main+xml"/></Types>'))
        archive.writestr("_rels/.rels", (
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
            'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http:'
            '//schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
            'Target="word/document.xml"/></Relationships>'))
        archive.writestr("word/document.xml", document)
    return buffer.getvalue()


def notebook(*cells: tuple[str, list[str]]) -> str:
    """A notebook as Jupyter writes it (indent 1, each source line its own list entry)."""
    return json.dumps({
        "cells": [{"cell_type": kind, "metadata": {}, "source": source,
                   **({"outputs": [], "execution_count": None} if kind == "code" else {})}
                  for kind, source in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


@pytest.fixture
def documents(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "runbook.pdf").write_bytes(pdf_with_text("Rotate the quokka certificates monthly"))
    (docs / "onboarding.docx").write_bytes(docx_with("Onboarding", "Ask for wombat access"))
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Release train"
    slide.placeholders[1].text = "Numbat freezes start on Thursdays"
    deck.save(str(docs / "decisions.pptx"))
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Budgets"
    sheet.append(["team", "platypus tokens"])
    sheet.append(["core", 50000])
    book.save(str(docs / "budgets.xlsx"))
    (docs / "wiki.html").write_text(
        "<html><body><h1>Caching</h1><p>The echidna cache lives for an hour.</p></body></html>")
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "base.html").write_text(
        "<h1>{% block title %}echidna{% endblock %}</h1>{{ user.name }}")
    (tmp_path / "analysis.ipynb").write_text(notebook(
        ("markdown", ["# Churn analysis\n", "\n", "Kiwi customers leave after a year.\n"]),
        ("code", ["import pandas  # kiwi in code is not prose\n"]),
        ("markdown", ["## Method\n", "A kaka survival curve per cohort."]),
    ))
    return tmp_path


def test_every_kind_of_document_is_found_by_a_question(documents: Path) -> None:
    with DocsIndex.open(documents) as index:
        stats = index.index()
        assert stats.formats == {"pdf": 1, "docx": 1, "pptx": 1, "xlsx": 1, "html": 1,
                                 "notebook": 1}
        assert stats.skipped == {"template": 1}
        for question, page in [("quokka certificates", "docs/runbook.pdf"),
                               ("wombat access", "docs/onboarding.docx"),
                               ("numbat freezes", "docs/decisions.pptx"),
                               ("platypus tokens", "docs/budgets.xlsx"),
                               ("echidna cache", "docs/wiki.html")]:
            assert index.search(question).hits[0].path == page, question
        assert not [h for h in index.search("echidna").hits if h.path.startswith("templates")]
        deck = index.search("numbat freezes").hits[0]
        assert deck.heading.endswith("Release train")


def test_a_notebooks_markdown_cells_point_at_the_notebooks_own_lines(documents: Path) -> None:
    lines = (documents / "analysis.ipynb").read_text().splitlines()
    with DocsIndex.open(documents) as index:
        index.index()
        assert not index.search("pandas").hits  # code cells are not documentation
        kiwi = index.search("kiwi customers").hits[0]
        assert kiwi.path == "analysis.ipynb" and kiwi.heading == "Churn analysis"
        assert "Kiwi customers" in "\n".join(lines[kiwi.start_line - 1:kiwi.end_line])
        method = index.search("kaka survival").hits[0]
        assert method.heading == "Churn analysis › Method"
        assert "kaka survival" in lines[method.end_line - 1]


def test_a_damaged_document_is_passed_over_with_its_reason(tmp_path: Path) -> None:
    (tmp_path / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
    (tmp_path / "broken.ipynb").write_text('{"cells": [')
    (tmp_path / "guide.md").write_text("# Guide\n\nThe dingo setting.\n")
    with DocsIndex.open(tmp_path) as index:
        stats = index.index()
        assert stats.formats == {"markdown": 1}
        assert sum(stats.skipped.values()) == 2
        assert all(reason.startswith("unreadable: ") for reason in stats.skipped)
        assert index.search("dingo").hits[0].path == "guide.md"


def test_documents_met_before_the_extra_was_installed_are_read_once_it_is(
        documents: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as without_markitdown:
        without_markitdown.setattr(docs_service, "converter_available", lambda: False)
        without_markitdown.setattr(docs_pages, "converter_available", lambda: False)
        with DocsIndex.open(documents) as index:
            stats = index.index()
            assert stats.skipped == {NEEDS_EXTRA: 5, "template": 1}
            assert stats.formats == {"notebook": 1}
            assert not index.search("wombat access").hits
    with DocsIndex.open(documents) as index:  # the extra is there now: no file changed
        stats = index.index()
        assert stats.parsed == 5 and stats.skipped == {"template": 1}
        assert index.search("wombat access").hits[0].path == "docs/onboarding.docx"


def test_converting_a_document_keeps_numpys_blas_on_one_thread(tmp_path: Path) -> None:
    """markitdown imports numpy; loaded by it, numpy's BLAS took every core, and the
    local model's products spun threads on a loaded machine. A fresh process converts
    a page, then says under which thread setting numpy was loaded."""
    page = tmp_path / "page.html"
    page.write_text("<html><body><h1>Deploy</h1><p>Copy the files.</p></body></html>")
    script = (
        "import os, sys\n"
        "from codekeep.docs.conversion import to_markdown\n"
        f"text = to_markdown('page.html', open({str(page)!r}, 'rb').read())\n"
        "print('numpy' in sys.modules, os.environ.get('OPENBLAS_NUM_THREADS'), 'Deploy' in text)\n"
    )
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=120, check=True)
    assert done.stdout.split() == ["True", "1", "True"]
