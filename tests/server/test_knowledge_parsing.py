"""Parsing and chunking: structure is kept, size is capped, overlap joins neighbours."""

from __future__ import annotations

import io
import itertools
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from mnemolis.knowledge.chunking import MAX_CHARS, OVERLAP_CHARS, chunk_sections
from mnemolis.knowledge.parsing import (
    ParseError,
    html_to_markdown,
    markdown_sections,
    parse_document,
    supported,
)
from mnemolis.knowledge.text import fts_query


def make_pdf(pages: list[str]) -> bytes:
    """A real PDF with one text line per page (Helvetica)."""
    writer = PdfWriter()
    for text in pages:
        page = writer.add_blank_page(width=612, height=792)
        font = DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        stream = DecodedStreamObject()
        stream.set_data(f"BT /F1 12 Tf 72 700 Td ({text}) Tj ET".encode("latin-1"))
        page[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_markdown_headings_become_section_paths() -> None:
    text = "# Home\n\nIntro.\n\n## Heating\n\nBoiler.\n\n### Summer\n\nOff.\n\n## Garden\n\nRoses."
    sections = markdown_sections(text)
    assert [(s.heading, s.text) for s in sections] == [
        ("Home", "Intro."),
        ("Home > Heating", "Boiler."),
        ("Home > Heating > Summer", "Off."),
        ("Home > Garden", "Roses."),
    ]


def test_markdown_fenced_code_is_not_a_heading() -> None:
    sections = markdown_sections("# Real\n\n```sh\n# not a heading\nls\n```\n")
    assert len(sections) == 1
    assert "# not a heading" in sections[0].text


def test_html_keeps_headings_and_drops_scripts() -> None:
    md = html_to_markdown(
        "<html><head><title>T</title><style>p{}</style><script>evil()</script></head>"
        "<body><h1>Manual</h1><p>First &amp; second.</p><ul><li>one</li><li>two</li></ul></body>"
    )
    assert "# Manual" in md
    assert "First & second." in md
    assert "evil" not in md and "p{}" not in md
    sections = parse_document("x.html", md.encode())
    assert sections[0].heading == "Manual"


def test_pdf_pages_are_sections() -> None:
    raw = make_pdf(["Dishwasher filter cleaning", "Descale every month"])
    sections = parse_document("manual.pdf", raw)
    assert [s.heading for s in sections] == ["page 1", "page 2"]
    assert "Dishwasher" in sections[0].text
    assert "Descale" in sections[1].text


@pytest.mark.parametrize(
    ("name", "raw", "reason"),
    [
        ("broken.pdf", b"%PDF-1.4 this is not really a pdf", "PDF"),
        ("blob.txt", b"abc\x00\x01\x02binary", "binary"),
    ],
)
def test_unparseable_files_raise_with_a_reason(name: str, raw: bytes, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse_document(name, raw)


def test_latin1_text_is_read() -> None:
    sections = parse_document("old.txt", "Caf\xe9 au lait".encode("latin-1"))
    assert sections[0].text == "Café au lait"


def test_supported_suffixes() -> None:
    assert supported("a.md") and supported("B.PDF") and supported("c.htm") and supported("d.txt")
    assert not supported("photo.jpg") and not supported("archive.zip") and not supported("md")


def test_chunks_respect_the_cap_and_overlap() -> None:
    paragraphs = [f"Paragraph {i} " + ("word " * 60).strip() + "." for i in range(40)]
    sections = markdown_sections("# Big\n\n" + "\n\n".join(paragraphs))
    chunks = chunk_sections(sections)
    assert len(chunks) > 5
    assert all(len(c.content) <= MAX_CHARS + OVERLAP_CHARS + 2 for c in chunks)
    assert all(c.heading == "Big" for c in chunks)
    # Overlap: each chunk starts with text the previous one ended with.
    for prev, cur in itertools.pairwise(chunks):
        head = cur.content[:40]
        assert head in prev.content
    # Nothing is lost.
    joined = " ".join(c.content for c in chunks)
    for i in range(40):
        assert f"Paragraph {i} " in joined


def test_one_huge_paragraph_is_split() -> None:
    text = "# H\n\n" + ("Sentence number here. " * 400)
    chunks = chunk_sections(markdown_sections(text))
    assert len(chunks) >= 6
    assert max(len(c.content) for c in chunks) <= MAX_CHARS + OVERLAP_CHARS + 2


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_is_a_valid_fts_query(text: str) -> None:
    """No input can be an FTS5 syntax error: every word is a quoted literal."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(content, tokenize='unicode61')")
    conn.execute("INSERT INTO t(content) VALUES ('alpha beta gamma')")
    expr = fts_query(text)
    if expr is not None:
        conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (expr,)).fetchall()
    conn.close()


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=5000))
def test_chunking_never_loses_words(text: str) -> None:
    chunks = chunk_sections(markdown_sections(text))
    assert all(len(c.content) <= MAX_CHARS + OVERLAP_CHARS + 2 for c in chunks)
    kept = {w for c in chunks for w in c.content.split()} | {
        w for c in chunks for w in c.heading.split()
    }
    for word in text.split():
        if word.strip("#`~") and not word.startswith("#"):
            assert word in kept or any(word in c.content for c in chunks), word
