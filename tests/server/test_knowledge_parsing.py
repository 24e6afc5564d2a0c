"""Parsing and chunking: structure is kept, size is capped, overlap joins neighbours."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mnemolis.knowledge.chunking import MAX_CHARS, chunk_sections
from mnemolis.knowledge.database import DocumentDatabase
from mnemolis.knowledge.parsing import (
    ParseError,
    Section,
    html_to_markdown,
    markdown_sections,
    parse_document,
    supported,
)
from mnemolis.knowledge.text import fts_query

from .knowledge_helpers import make_pdf_lines


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
    page = (
        "<html><head><title>T</title><style>p{}</style><script>evil()</script></head>"
        "<body><h1>Manual</h1><p>First &amp; second.</p><ul><li>one</li><li>two</li></ul></body>"
    )
    md = html_to_markdown(page)
    assert "# Manual" in md
    assert "First & second." in md and "- one\n- two" in md
    assert "evil" not in md and "p{}" not in md
    sections = parse_document("x.html", page.encode())
    assert sections[0].heading == "Manual"


def test_pdf_pages_are_sections() -> None:
    raw = make_pdf_lines([["Dishwasher filter cleaning"], ["Descale every month"]])
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


HOUSE_NOTES = """House notes

Wifi
Network: Meadowlark
Password: tulip-harbour-42

Bins
The black bin is collected every Tuesday morning.
Recycling goes out every other Friday.
"""


def test_small_notes_split_by_paragraph_and_record() -> None:
    """The bin days and the wifi password never share a passage."""
    raw = HOUSE_NOTES.encode()
    chunks = chunk_sections(parse_document("house-notes.txt", raw), name="house-notes.txt")
    found = {c.content: c.heading for c in chunks}
    assert found["Password: tulip-harbour-42"] == "house notes > Wifi"
    assert found["Network: Meadowlark"] == "house notes > Wifi"
    bins = next(c for c in chunks if "Tuesday" in c.content)
    assert bins.heading == "house notes > Bins"
    assert "Friday" in bins.content and "tulip" not in bins.content


def test_lists_bullets_apart_numbered_steps_together() -> None:
    text = (
        "# Washer\n\n## Programmes\n\n- Cottons: 3 h\n- Quick: 49 minutes\n\n"
        "## Filter\n\nTo clean it:\n\n1. Open the flap.\n2. Unscrew the filter.\n3. Rinse it.\n"
    )
    chunks = chunk_sections(parse_document("washer.md", text.encode()))
    contents = [c.content for c in chunks]
    assert "- Cottons: 3 h" in contents and "- Quick: 49 minutes" in contents
    steps = next(c for c in chunks if "Open the flap" in c.content)
    assert steps.content.startswith("To clean it:\n1. Open the flap.")
    assert "Unscrew" in steps.content and "Rinse" in steps.content
    assert steps.heading == "Washer > Filter"


def test_html_keeps_the_main_content_steps_and_table_rows() -> None:
    page = (
        "<html><head><title>Boiler</title></head><body><nav><a href='/'>Home</a> "
        "<a href='/f'>Fault codes of every model</a></nav><main><h1>Boiler</h1>"
        "<ul><li><a href='#reset'>Reset</a></li><li><a href='#codes'>Codes</a></li></ul>"
        "<h2 id='reset'>Reset</h2><ol><li>Hold the button.</li><li>Wait a minute.</li></ol>"
        "<h2 id='codes'>Codes</h2><table><tr><td>F22</td><td>Low pressure</td></tr>"
        "<tr><td>F28</td><td>No ignition</td></tr></table>"
        "<pre># not a heading\nreset()</pre></main><footer>Call 0800 123</footer></body></html>"
    )
    chunks = chunk_sections(parse_document("boiler.html", page.encode()))
    text = "\n".join(f"{c.heading}: {c.content}" for c in chunks)
    assert "Fault codes of every model" not in text and "0800" not in text  # nav, footer
    assert "Boiler: Reset" not in text  # a table of contents is navigation
    steps = next(c for c in chunks if "Hold the button" in c.content)
    assert "Wait a minute" in steps.content and steps.heading == "Boiler > Reset"
    rows = [c.content for c in chunks if c.heading == "Boiler > Codes"]
    assert "F22 | Low pressure" in rows and "F28 | No ignition" in rows
    assert any("# not a heading" in c.content for c in chunks)


def test_pdf_heading_lines_start_passages() -> None:
    raw = make_pdf_lines(
        [
            [
                "Smoke alarm",
                "Battery",
                "Replace it by 2033.",
                "Chirping",
                "A chirp means end of life.",
            ]
        ]
    )
    chunks = chunk_sections(parse_document("smoke-alarm.pdf", raw), name="smoke-alarm.pdf")
    by_heading = {c.heading: c.content for c in chunks}
    assert by_heading["smoke alarm > page 1 > Chirping"] == "A chirp means end of life."
    assert "2033" in by_heading["smoke alarm > page 1 > Battery"]


def test_a_title_over_headed_parts_is_no_lead_into_the_first() -> None:
    """A PDF page opening with the product's name over its first heading: the name is
    a passage of its own (what model is it?), not a line of the "Testing" section."""
    raw = make_pdf_lines(
        [["SafeHome SA-10 smoke alarm", "Testing", "Press the test button once a week."]]
    )
    chunks = chunk_sections(parse_document("smoke-alarm.pdf", raw), name="smoke-alarm.pdf")
    by_heading = {c.heading: c.content for c in chunks}
    assert by_heading["smoke alarm > page 1"] == "SafeHome SA-10 smoke alarm"
    assert by_heading["smoke alarm > page 1 > Testing"] == "Press the test button once a week."


def test_long_paragraph_is_split_at_sentences_within_the_cap() -> None:
    text = "# H\n\n" + ("Sentence number here. " * 400)
    chunks = chunk_sections(markdown_sections(text))
    assert len(chunks) >= 7
    assert max(len(c.content) for c in chunks) <= MAX_CHARS
    assert all(c.content.endswith("here.") for c in chunks)


def test_multi_megabyte_paragraph_is_chunked_in_one_pass() -> None:
    """8 MB of one word (no space, no sentence end): pieces of the cap, nothing lost.

    The chunker walks such a text once (issue 15 item 8: it used to copy the rest
    of the paragraph for every piece); bench/chunk_bench.py shows the time per MB
    staying flat from 1 to 32 MB.
    """
    size = 8 * 1024 * 1024
    chunks = chunk_sections([Section("", "a" * size)])
    assert len(chunks) == -(-size // MAX_CHARS)
    assert all(len(c.content) <= MAX_CHARS for c in chunks)
    assert sum(len(c.content) for c in chunks) == size


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
    assert all(len(c.content) <= MAX_CHARS for c in chunks)
    kept = {w for c in chunks for w in c.content.split()} | {
        w for c in chunks for w in c.heading.split()
    }
    fences = {
        line.strip() for line in text.splitlines() if line.lstrip().startswith(("```", "~~~"))
    }
    for word in text.split():
        if word.strip("#`~") and not word.startswith("#") and word not in " ".join(fences):
            assert word in kept or any(word in c.content for c in chunks), word


def test_an_index_of_an_older_format_is_rechunked_from_its_files(tmp_path: Path) -> None:
    """An index written before structural chunks and stemming is rebuilt, not left stale."""
    folder = tmp_path / "notes"
    folder.mkdir()
    note = folder / "house-notes.txt"
    note.write_text(HOUSE_NOTES, encoding="utf-8")
    data = tmp_path / "db"
    data.mkdir()
    st = note.stat()
    old = sqlite3.connect(data / "data.db")
    old.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, size INTEGER"
        " NOT NULL, mtime_ns INTEGER NOT NULL, hash TEXT NOT NULL, chunks INTEGER NOT NULL"
        " DEFAULT 0, error TEXT, indexed_at REAL NOT NULL);"
        "CREATE TABLE chunks (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, ord INTEGER"
        " NOT NULL, heading TEXT NOT NULL DEFAULT '', content TEXT NOT NULL);"
        "CREATE VIRTUAL TABLE chunks_fts USING fts5(content, heading, content='chunks',"
        " content_rowid='id', tokenize='unicode61 remove_diacritics 2');"
        "CREATE TABLE vectors (chunk_id INTEGER PRIMARY KEY, vec BLOB NOT NULL);"
    )
    old.execute(
        "INSERT INTO files VALUES (1, 'house-notes.txt', ?, ?, 'h', 1, NULL, 0)",
        (st.st_size, st.st_mtime_ns),
    )
    old.execute("INSERT INTO chunks VALUES (1, 1, 0, '', ?)", (HOUSE_NOTES,))  # the whole note
    old.execute("INSERT INTO chunks_fts(rowid, content, heading) VALUES (1, ?, '')", (HOUSE_NOTES,))
    old.commit()
    old.close()

    class Never:
        def is_set(self) -> bool:
            return False

    db = DocumentDatabase("notes", folder, data)
    db.open()
    try:
        report = db.scan(Never())
        assert report.indexed == 1  # unchanged on disk, re-read all the same
        hits = db.search_keyword("collecting bins", 5)  # stemmed: "collected"
        assert hits and "Tuesday" in hits[0].content
        assert all("tulip" not in h.content for h in hits)  # no longer the whole note
    finally:
        db.close()
