"""Read documents (txt, md, html, pdf) into text with their heading structure."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

_LOGGER = logging.getLogger(__name__)
# pypdf warns per malformed object; the indexer reports one reason per file instead.
logging.getLogger("pypdf").setLevel(logging.ERROR)

TEXT_SUFFIXES = frozenset({".txt", ".text", ".md", ".markdown", ".rst", ".log"})
HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
PDF_SUFFIXES = frozenset({".pdf"})
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | HTML_SUFFIXES | PDF_SUFFIXES
MAX_FILE_BYTES = 64 * 1024 * 1024
_MAX_TREE_DEPTH = 64


class ParseError(Exception):
    """A file could not be turned into text; the reason is shown in the db status."""


class Interrupted(Exception):
    """Indexing was asked to stop in the middle of a file (shutdown, database removed)."""


@dataclass(frozen=True, slots=True)
class FileLimits:
    """Per-file caps, so one huge file cannot hold the only indexing worker for minutes.

    A file over a cap is indexed up to it and listed in the database status as cut,
    with the reason (the settings ``rag.max_pdf_pages``, ``rag.max_file_chars``,
    ``rag.max_file_chunks``).
    """

    max_pdf_pages: int = 2000
    max_chars: int = 10_000_000
    max_chunks: int = 20_000


@dataclass(slots=True)
class Parsed:
    """A file's sections, and why it was cut short when a limit was reached."""

    sections: list[Section]
    cut: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Section:
    """A run of text under one heading path (e.g. "Setup > Claude Desktop")."""

    heading: str
    text: str


def supported(name: str) -> bool:
    """Whether the indexer reads files with this name."""
    dot = name.rfind(".")
    return dot > 0 and name[dot:].lower() in SUPPORTED_SUFFIXES


def decode_text(raw: bytes) -> str:
    """UTF-8 (with BOM) or Latin-1 text; binary content is refused."""
    if b"\x00" in raw[:8192]:
        raise ParseError("binary content (NUL bytes) in a text file")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def markdown_sections(text: str) -> list[Section]:
    """Split Markdown by ATX headings, keeping the heading path for each section."""
    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    lines: list[str] = []
    in_fence = False

    def flush() -> None:
        body = "\n".join(lines).strip()
        if body:
            sections.append(Section(" > ".join(t for _, t in path), body))
        lines.clear()

    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        match = None if in_fence else _MD_HEADING.match(line)
        if match:
            flush()
            level = len(match.group(1))
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, match.group(2).strip()))
            continue
        lines.append(line)
    flush()
    if not sections and path:
        sections.append(Section(" > ".join(t for _, t in path), " > ".join(t for _, t in path)))
    return sections


class _HTMLText(HTMLParser):
    """Visible text of an HTML page as Markdown-ish lines (headings, items, code kept).

    Navigation, search boxes and footers are left out, and when the page marks
    its main content (``<main>`` or ``role="main"``) only that is kept, as a
    browser's reader view does: the sidebar of every page would otherwise match
    the names of every other page. Whitespace inside text is HTML's (a line
    break in the source is a space); each block element starts a line, list
    items start with ``- ``, table cells are joined with `` | `` and ``<pre>``
    becomes a fenced block (so a ``# comment`` in code is not a heading). A line
    that is nothing but a link (a table of contents, "see also" lists) is
    navigation too and is left out.
    """

    _BLOCK = frozenset(
        {"p", "div", "li", "br", "tr", "section", "article", "table", "ul", "ol", "hr"}
        | {"blockquote", "dd", "dt", "header", "main", "aside", "caption", "figcaption"}
    )
    _PARAGRAPH = frozenset({"p", "div", "section", "article", "table", "ul", "ol", "blockquote"})
    _SKIP = frozenset({"script", "style", "noscript", "template", "svg", "head"})
    _AROUND = frozenset({"nav", "footer"})
    _AROUND_ROLES = frozenset({"navigation", "search", "banner", "contentinfo"})
    _AROUND_CLASSES = frozenset({"nav", "navheader", "navfooter"})  # Prev/Up/Next bars

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.main: list[str] = []
        self.skip = 0
        self.pre = 0
        self.heading: int | None = None
        self._level = 0  # the last heading's level, and its text ("" before any)
        self._heading_text = ""
        self._term: tuple[int, int] | None = None  # where an open <dt> starts (parts, main)
        self._terms = 0  # <dt> sentences of the open <dl> made headings
        self.title = ""
        self._in_title = False
        self._around: tuple[str, int] | None = None  # (tag, nesting) of a nav/footer region
        self._main: tuple[str, int] | None = None  # (tag, nesting) of the main region
        self._lists: list[list[int]] = []  # per open list: [items so far] (-1: bulleted)
        self._links = 0  # open <a href> elements: their text is marked
        self._cells = 0  # open <td>/<th>: blocks inside a cell stay on the row's line
        self._row: list[str] = []  # the current row's cell tags ("th" rows are a header)
        self._qanda = ""  # the class of an open DocBook question/answer row, if any
        self._inner = 0  # tables open inside that row: their rows and cells are a table's

    def _emit(self, text: str) -> None:
        self.parts.append(text)
        if self._main is not None:
            self.main.append(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        if self._around is not None:
            if tag == self._around[0]:
                self._around = (tag, self._around[1] + 1)
            return
        role = next((v for k, v in attrs if k == "role"), None)
        classes = set((next((v for k, v in attrs if k == "class"), None) or "").split())
        if tag in self._AROUND or role in self._AROUND_ROLES or classes & self._AROUND_CLASSES:
            self._around = (tag, 1)
            return
        if self._main is not None and tag == self._main[0]:
            self._main = (tag, self._main[1] + 1)
        elif self._main is None and not self.main and (tag == "main" or role == "main"):
            self._main = (tag, 1)
        if tag == "table" and self._qanda:
            self._inner += 1
        if tag in self._SKIP:
            self.skip += 1
        elif re.fullmatch(r"h[1-6]", tag):
            self.heading = self._level = int(tag[1])
            self._heading_text = ""
            self._emit("\n\n" + "#" * self.heading + " ")
        elif tag == "pre":
            self.pre += 1
            self._emit("\n\n```\n")
        elif tag in ("td", "th") and self._qanda and not self._inner:
            self._emit(" ")
        elif tag in ("td", "th"):
            self._cells += 1
            self._emit(" | " if self._row else " ")  # an empty first cell leaves "| b"
            self._row.append(tag)
        elif tag == "tr" and not self._inner and self._qanda_row(attrs):
            pass
        elif tag == "tr":
            self._row = []
            self._emit("\n")
        elif self._cells and tag in self._BLOCK:
            self._emit(" ")  # "<td><p>%a</p></td>": the cell stays one cell of its row
        elif tag in ("ol", "ul"):
            self._lists.append([0 if tag == "ol" else -1])
            self._emit("\n\n")
        elif tag == "li":
            counter = self._lists[-1] if self._lists else [-1]
            if counter[0] >= 0:
                counter[0] += 1
                self._emit(f"\n{counter[0]}. ")
            else:
                self._emit("\n- ")
        elif tag == "a" and any(k == "href" for k, _ in attrs):
            self._links += 1
        elif tag == "dt":
            self._emit("\n\n")  # a term (a FAQ's question) opens a paragraph with its <dd>
            self._term = (len(self.parts), len(self.main))
        elif tag == "dl":
            self._terms = 0
            self._emit("\n\n")
        elif tag in self._BLOCK:
            self._emit("\n\n" if tag in self._PARAGRAPH else "\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if self._around is not None:
            if tag == self._around[0]:
                depth = self._around[1] - 1
                self._around = (tag, depth) if depth else None
            return
        if tag == "table" and self._inner:
            self._inner -= 1
        if tag in self._SKIP:
            self.skip = max(0, self.skip - 1)
        elif re.fullmatch(r"h[1-6]", tag):
            self.heading = None
            self._emit("\n\n")
        elif tag == "dt":
            self._term_heading()
            self._emit("\n")
        elif tag == "dl":
            if self._terms and self._heading_text.strip():
                # What follows the list is under the page's heading again, not its last term.
                self._emit(f"\n\n{'#' * self._level} {self._heading_text.strip()}\n\n")
            self._terms = 0
            self._emit("\n\n")
        elif tag == "pre":
            self.pre = max(0, self.pre - 1)
            self._emit("\n```\n\n")
        elif tag in ("td", "th") and self._qanda and not self._inner:
            pass
        elif tag == "tr" and self._qanda and not self._inner:
            if self._qanda == "toc":
                self.skip = max(0, self.skip - 1)
            self._qanda = ""
            self._emit("\n\n")
        elif tag in ("td", "th"):
            self._cells = max(0, self._cells - 1)
        elif tag == "tr":
            if len(self._row) >= 2 and all(cell == "th" for cell in self._row):
                # A header row: a Markdown rule under it, so the chunker labels the rows.
                self._emit("\n" + " | ".join(["---"] * len(self._row)))
            self._row = []
        elif self._cells and tag in self._BLOCK:
            self._emit(" ")
        elif tag in ("ol", "ul"):
            if self._lists:
                self._lists.pop()
            self._emit("\n\n")
        elif tag == "a" and self._links:
            self._links -= 1
        elif tag in self._BLOCK:
            self._emit("\n\n" if tag in self._PARAGRAPH else "\n")
        if self._main is not None and tag == self._main[0]:
            depth = self._main[1] - 1
            self._main = (tag, depth) if depth else None

    def _qanda_row(self, attrs: list[tuple[str, str | None]]) -> bool:
        """DocBook's qandaset is a table of rows classed question and answer: a question
        row is a heading one below the section's, an answer row is text (no table row),
        and the contents row repeating the section's questions is left out."""
        kind = next((v for k, v in attrs if k == "class"), None) or ""
        if kind not in ("question", "answer", "qandadiv", "toc"):
            return False
        self._qanda = kind
        if kind == "toc":
            self.skip += 1
        self._emit("\n\n" + ("#" * min(6, self._level + 1) + " " if kind == "question" else ""))
        return True

    def _term_heading(self) -> None:
        """A <dt> that is a sentence ("There is a musty smell when the unit starts.", "Why
        is it slow?") heads its <dd> as a heading one below the page's: an FAQ's entry,
        put as a question or not. A term that is no sentence ("0x0001:") stays text."""
        if self._term is None:
            return
        start, main_start = self._term
        self._term = None
        text = " ".join("".join(self.parts[start:]).split())
        if not self._level or not ENDS_TERM.search(text) or len(text) > TERM_CHARS:
            return
        mark = "\n\n" + "#" * min(6, self._level + 1) + " "
        self.parts.insert(start, mark)
        if self._main is not None or len(self.main) > main_start:
            self.main.insert(main_start, mark)
        self._terms += 1

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if self.heading is not None and not self.skip:
            self._heading_text += data.replace("\u00b6", "")
        if self.skip or self._around is not None:
            return
        data = data.replace("\u00b6", "")  # Sphinx's permalink pilcrows
        if not self.pre:
            data = re.sub(r"\s+", " ", data)
        if self._links and data.strip() and not self.pre:
            data = f"{_LINK_OPEN}{data}{_LINK_CLOSE}"
        self._emit(data)


ENDS_TERM = re.compile(r"[.!?][\"'\u201d\u2019)]*$")  # a <dt> that is a sentence
TERM_CHARS = 300  # a longer <dt> is a paragraph, no heading


_LINK_OPEN, _LINK_CLOSE = "\x02", "\x03"  # around link text until the links-only lines go
# Between links: spaces, punctuation, and the words of a Prev/Up/Next bar ("Next: …,
# Up: … [Contents][Index]", as texinfo heads each node of its HTML).
_BETWEEN_LINKS = (
    r"(?:[ \t\xa0]|\x02[^\x03\n]*\x03|[-\u2013\u2014|,.()\[\]]|(?:Next|Prev|Previous|Up|Top):)*"
)
_LINK_ONLY = re.compile(
    r"^(?:- |\d+(?:\.\d+)*\.? )?"  # a bullet or a section number ("1.1. ")
    + _BETWEEN_LINKS
    + r"\x02[^\x03\n]*\x03"
    + _BETWEEN_LINKS
    + "$",
    re.M,
)
_ITEM_ALONE = re.compile(r"^(- |\d+\. ) *\n+(?=\S)", re.M)  # "<li><p>text": one line


def html_to_markdown(text: str) -> str:
    """Visible text with headings as ``#`` lines, so Markdown sectioning applies."""
    parser = _HTMLText()
    parser.feed(text)
    parser.close()
    body = "".join(parser.main or parser.parts)
    body = re.sub(r"[ \t\r\f\v]+", " ", body)
    body = re.sub(r" *\n *", "\n", body)
    body = _ITEM_ALONE.sub(r"\1", body)
    body = _LINK_ONLY.sub("", body).replace(_LINK_OPEN, "").replace(_LINK_CLOSE, "")
    body = re.sub(r" *\n *", "\n", body)
    body = _ITEM_ALONE.sub(r"\1", body)
    body = re.sub(r"^(?:-|\d+\.) *$", "", body, flags=re.M)
    body = re.sub(r"\n\n+(?=(?:- |\d+\. )\S)", "\n", body)  # a list's items stay together
    body = re.sub(r"\n{3,}", "\n\n", body).strip()
    title = " ".join(parser.title.split())
    if title and not body.startswith("#"):
        body = f"# {title}\n\n{body}"
    return body


def _trim_page_tree(reader: Any, limit: int) -> tuple[int, bool]:
    """Cut the page tree to its first ``limit`` pages before pypdf lists them.

    pypdf builds every page object when the page list is first used (38 s and
    ~480 MB for 100,000 pages); trimming the ``/Kids`` arrays first means only
    the pages that will be read are ever built. Returns the page count the
    document declares and whether anything was cut.
    """
    from pypdf.generic import ArrayObject, DictionaryObject

    root = reader.trailer["/Root"].get_object()["/Pages"].get_object()
    count = root.get("/Count")
    try:
        declared = int(count.get_object()) if count is not None else 0
    except (TypeError, ValueError):
        declared = 0
    budget = limit
    cut = False
    seen: set[int] = set()

    def walk(node: Any, depth: int) -> None:
        nonlocal budget, cut
        if depth > _MAX_TREE_DEPTH or id(node) in seen:
            return
        seen.add(id(node))
        kids = node.get("/Kids")
        kids = kids.get_object() if kids is not None else None
        if not isinstance(kids, ArrayObject):
            return
        for i in range(len(kids)):
            if budget <= 0:
                del kids[i:]
                cut = True
                return
            kid = kids[i].get_object()
            if isinstance(kid, DictionaryObject) and "/Kids" in kid and kid.get("/Type") != "/Page":
                walk(kid, depth + 1)
            else:
                budget -= 1

    walk(root, 0)
    return declared, cut


# A PDF page's own heading ("page 3"): where the text is, not what it is about.
PAGE_HEADING = re.compile(r"page \d+")


def pdf_sections(
    raw: bytes, limits: FileLimits | None = None, stop: Callable[[], bool] | None = None
) -> Parsed:
    """One section per PDF page that has extractable text, within the limits."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    limits = limits or FileLimits()
    out: list[Section] = []
    notes: list[str] = []
    try:
        reader = PdfReader(io.BytesIO(raw))
        if reader.is_encrypted:
            try:
                reader.decrypt("")
            except Exception as err:
                raise ParseError("PDF is encrypted") from err
        declared, trimmed = _trim_page_tree(reader, limits.max_pdf_pages)
        if trimmed:
            notes.append(
                f"PDF has {declared or 'more than ' + str(limits.max_pdf_pages)} pages; only the "
                f"first {limits.max_pdf_pages} are indexed (rag.max_pdf_pages)"
            )
        chars = 0
        for number, page in enumerate(reader.pages, start=1):
            if stop is not None and stop():
                raise Interrupted(f"stopped at page {number}")
            text = (page.extract_text() or "").strip()
            if not text:
                continue
            if chars + len(text) > limits.max_chars:
                text = text[: max(limits.max_chars - chars, 0)]
                notes.append(
                    f"text stops at page {number}: only the first {limits.max_chars} characters "
                    "are indexed (rag.max_file_chars)"
                )
                if text:
                    out.append(Section(f"page {number}", text))
                break
            chars += len(text)
            out.append(Section(f"page {number}", text))
    except (ParseError, Interrupted):
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as err:
        raise ParseError(f"unreadable PDF: {err}") from err
    except Exception as err:
        raise ParseError(f"unreadable PDF: {type(err).__name__}: {err}") from err
    if not out:
        raise ParseError("PDF has no extractable text (scanned images?)")
    return Parsed(out, notes)


def _capped(text: str, limits: FileLimits, notes: list[str]) -> str:
    if len(text) <= limits.max_chars:
        return text
    notes.append(
        f"text is {len(text)} characters; only the first {limits.max_chars} are indexed "
        "(rag.max_file_chars)"
    )
    return text[: limits.max_chars]


def read_document(
    name: str,
    raw: bytes,
    limits: FileLimits | None = None,
    stop: Callable[[], bool] | None = None,
) -> Parsed:
    """Sections of one file by its type, within the per-file limits; ParseError with a reason."""
    limits = limits or FileLimits()
    suffix = name[name.rfind(".") :].lower() if "." in name else ""
    if suffix in PDF_SUFFIXES:
        return pdf_sections(raw, limits, stop)
    notes: list[str] = []
    text = decode_text(raw)
    if suffix in HTML_SUFFIXES:
        return Parsed(markdown_sections(_capped(html_to_markdown(text), limits, notes)), notes)
    text = _capped(text, limits, notes)
    if suffix in (".md", ".markdown"):
        return Parsed(markdown_sections(text), notes)
    return Parsed(text_sections(text), notes)


def parse_document(name: str, raw: bytes) -> list[Section]:
    """Sections of one file by its type (default limits); raises ParseError with a reason."""
    return read_document(name, raw).sections


# Under a title: reStructuredText's marks (any punctuation mark repeated: "=====",
# "....." under coverage.py's questions, "+++++" under mdadm's), Markdown's, and the
# box-drawing rules that text rendered from HTML (w3m, lynx, DocBook's text output)
# draws ("──────").
_UNDERLINE = re.compile(r"([!-/:-@\[-`{-~])\1*|\u2500+|\u2501+|\u2550+")
# Only the usual marks underline a title shorter than it; the rarer ones only as long
# as it is (a line of quotes in a code sample under "def add(x, y):" is none).
_USUAL_RULE = re.compile(r"=+|-+|~+|\*+|\^+|#+|\u2500+|\u2501+|\u2550+")


def _underlined(line: str, after: str) -> bool:
    """Whether ``after`` underlines ``line`` as a title."""
    if len(after) < 3 or not _UNDERLINE.fullmatch(after):
        return False
    return len(after) >= len(line) or _USUAL_RULE.fullmatch(after) is not None


# A title framed by the same rule marks on both sides, as plain-text notes set one off:
# "--- Pancakes ---", "=== Useful numbers ===", "*** Winter ***". The frame is no word of it.
_FRAMED = re.compile(r"([-=*~#+_])\1{1,}\s+(?P<title>[^\W_].{0,58}?)\s+\1{2,}")


def framed_title(line: str) -> str:
    """The title a line of rule marks frames ("--- Pancakes ---" → "Pancakes"), or ""."""
    match = _FRAMED.fullmatch(line.strip())
    return match["title"] if match else ""


_TITLE_END = re.compile(r"[.,;:!?)\]]$")
# A line ending in one of these continues on the next line (hard-wrapped prose).
CONTINUES = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "by",
        "for",
        "from",
        "in",
        "into",
        "of",
        "on",
        "or",
        "the",
        "to",
        "with",
    ]
)


# A numbered part of a document, named: "Chapter 3: Getting things to work", "Part II.
# Options", "Appendix A - Licence".
_NUMBERED_PART = re.compile(
    r"(?:chapter|part|section|appendix)\s+(?:\d{1,3}|[IVXLC]{1,6}|[A-Z])\b[.:)]?\s+[-\u2013\u2014]?\s*\w",
    re.I,
)


def title_line(line: str, after: str) -> bool:
    """A heading line in text without markup: short, no sentence or record in it.

    "Wifi", "BINS" or "Chirping" over the lines they head. A line ending in "the",
    "in", "and" … continues a wrapped sentence, and a lower-case next line
    continues it too, so neither is a heading.
    """
    words = line.split()
    if _NUMBERED_PART.match(line) and len(line) <= 80 and not line.endswith((".", ",", ";")):
        # "Chapter 3: How to get various things to work", "Chapter 2: Why?"; not "Part 2
        # of the guide explains it." nor a line whose sentence runs on below.
        return not after or not after[:1].islower()
    if not words or len(line) > 40 or len(words) > 5 or not line[0].isalnum():
        return False
    if _TITLE_END.search(line) or ": " in line or " | " in line:
        return False
    if words[-1].lower() in CONTINUES:
        return False
    return not after or not after[:1].islower()


def _next_line(source: list[str], start: int) -> str:
    """The next non-blank line from ``start`` (a few lines on at most), or ""."""
    for line in source[start : start + 4]:
        if line.strip():
            return line.strip()
    return ""


def text_sections(text: str) -> list[Section]:
    """Plain text split at its heading lines (short lines opening a paragraph)."""
    sections: list[Section] = []
    heading = ""
    lines: list[str] = []
    source = text.replace("\r\n", "\n").split("\n")

    def flush() -> None:
        body = "\n".join(lines).strip()
        if body:
            sections.append(Section(heading, body))
        lines.clear()

    previous_blank = True
    # How far the last line of text was set in. Under text set in (an FAQ's answers), a
    # short line set in deeper ("     export TERM=vt100") is an example in it, no title;
    # after text at the margin a line set in may be a centred title.
    indent = 0
    lead_in = False  # the last line of text leads into what follows ("…, then:")
    # Set in under a reStructuredText directive or a paragraph ending "::", lines are a
    # literal block (code, a config line as "Defaults requiretty"): never a title.
    literal: int | None = None  # how far the line opening the literal block is set in
    # Underlined titles nest by their marks, as reStructuredText's do: each new mark is a
    # level below the ones seen, a mark seen before closes the titles under it.
    titled: list[tuple[str, str]] = []  # (mark, title) from the outermost
    overlined = False
    i = 0
    while i < len(source):
        line = source[i].strip()
        if line and literal is not None and line_indent(source[i]) <= literal:
            literal = None
        skip = _comment_end(source, i)
        if skip:
            i = skip  # a reStructuredText comment is never shown: no text of the page
            previous_blank = True
            continue
        if _RST_MARKUP.match(line):
            # ".. _faq-question:", ".. cssclass:: faq", ".. code-block:: python": markup
            # the page never shows (what a directive holds, set in below it, stays).
            base = line_indent(source[i])
            target = line.startswith(".. _")
            if literal is None and not target:
                literal = base  # a directive: what it holds is set in below it
            i += 1
            # The lines set in right under it: a target's address run on, a directive's
            # options (":local:", ":maxdepth: 2").
            while (
                i < len(source)
                and line_indent(source[i]) > base
                and (target or _DIRECTIVE_OPTION.match(source[i].strip()))
            ):
                i += 1
            continue
        deeper = bool(line) and 0 < indent < line_indent(source[i])
        after = source[i + 1].strip() if i + 1 < len(source) else ""
        if (
            previous_blank
            and len(line) >= 3
            and _UNDERLINE.fullmatch(line)
            and i + 2 < len(source)
            and source[i + 2].strip() == line
        ):
            i += 1  # a reStructuredText overline: the title and its underline follow
            overlined = True
            continue
        if line and previous_blank and literal is None and _underlined(line, after):
            flush()
            mark = after[0] + ("/" if overlined else "")
            marks = [m for m, _ in titled]
            titled = titled[: marks.index(mark)] if mark in marks else titled
            titled.append((mark, line))
            heading = " > ".join(t for _, t in titled)
            overlined = False
            i += 2
            previous_blank = True
            continue
        framed = framed_title(line) if literal is None and not deeper else ""
        if framed:
            flush()
            heading = framed
            i += 1
            previous_blank = False
            continue
        # "Contacts" alone over the paragraph after it (not the last line of the file).
        alone = "" if after else _next_line(source, i + 1)
        capitals = line.isupper() and not after  # "WARRANTY RECORD" over what follows
        if (
            line
            and previous_blank
            and not deeper
            and not lead_in
            and literal is None
            and (after or capitals or alone)
            and title_line(line, after or alone)
        ):
            flush()
            heading = line
            i += 1
            previous_blank = False
            continue
        lines.append(source[i])
        previous_blank = not line
        if line:
            indent = line_indent(source[i])
            lead_in = line.endswith(":") and len(line.split()) >= LEAD_IN_WORDS
            if literal is None and line.endswith("::"):
                literal = indent  # "… like this::" opens a literal block
        i += 1
    flush()
    return sections


def _comment_end(source: list[str], i: int) -> int:
    """Past the reStructuredText comment opening at line ``i`` (0 when none opens there):
    a bare ".." and the block set in right under it (lxml's hidden contents list, a
    doctest's setup), blank lines inside it included."""
    if source[i].strip() != "..":
        return 0
    base = line_indent(source[i])
    if i + 1 >= len(source) or not source[i + 1].strip() or line_indent(source[i + 1]) <= base:
        return i + 1  # an empty comment ends what came before; the text after it is shown
    end = i + 1
    while end < len(source) and (not source[end].strip() or line_indent(source[end]) > base):
        end += 1
    return end


# "After the above, then:" leads into the line below it ("make install"): no title. A
# shorter line ending in a colon ("Contacts:") may be a title over titles itself.
LEAD_IN_WORDS = 3
# reStructuredText's explicit markup: a hyperlink target, a substitution's definition,
# a directive's own line (never a footnote, ".. [1] …", which is shown).
_RST_MARKUP = re.compile(
    r"\.\.\s+(?:_[^:]*:(?:\s|$)|\|[^|]+\|\s+[\w-]+::|[\w-]+(?::[\w-]+)?::(?:\s|$))"
)
_DIRECTIVE_OPTION = re.compile(r":[\w-]+:(?:\s|$)")


def line_indent(line: str) -> int:
    """How far a line is set in (a tab as eight)."""
    spaced = line.expandtabs(8)
    return len(spaced) - len(spaced.lstrip())


def document_text(name: str, raw: bytes) -> str:
    """The whole readable text of a file (for source bundles)."""
    parts = []
    for section in parse_document(name, raw):
        parts.append(f"## {section.heading}\n\n{section.text}" if section.heading else section.text)
    return "\n\n".join(parts)
