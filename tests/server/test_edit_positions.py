"""LSP edit ranges land on the right bytes of the buffer: the code map's buffers convert
each range line by line (``LiveBuffers.apply_edits``)."""

from __future__ import annotations

from pathlib import Path

from codekeep.analysis.buffers import Edit
from codekeep.analysis.model import Encoding
from codekeep.services import WorkspaceServices


def _edited(tmp_path: Path, text: str, edit: Edit, encoding: Encoding = "utf-16") -> bytes:
    (tmp_path / "mod.py").write_text("")
    services = WorkspaceServices.open(tmp_path)
    try:
        services.codemap.open_document("mod.py", text)
        services.codemap.apply_edits("mod.py", [edit], encoding)
        return services.codemap.document_text("mod.py") or b""
    finally:
        services.close()


def test_utf16_column_after_a_non_ascii_character(tmp_path: Path) -> None:
    # "é" is one UTF-16 unit but two UTF-8 bytes: UTF-16 column 4 is just after "café".
    text = "x = 1\ncafé = 2\n"
    assert _edited(tmp_path, text, Edit((1, 4), (1, 4), "s")) == "x = 1\ncafés = 2\n".encode()
    assert _edited(tmp_path, text, Edit((1, 5), (1, 5), "s"), "utf-8") == (
        "x = 1\ncafés = 2\n".encode())


def test_crlf_line_end_is_not_part_of_the_line(tmp_path: Path) -> None:
    text = "def f():\r\n    pass\r\n"
    edited = _edited(tmp_path, text, Edit((0, 99), (0, 99), "  # end"))
    assert edited == b"def f():  # end\r\n    pass\r\n"


def test_a_range_past_the_last_line_appends_at_the_end(tmp_path: Path) -> None:
    text = "def f():\n    pass"
    edited = _edited(tmp_path, text, Edit((7, 0), (9, 3), "\ndef g():\n    pass\n"))
    assert edited == b"def f():\n    pass\ndef g():\n    pass\n"
