"""Read documents (txt, md, html, pdf) into text with their heading structure."""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass
from html.parser import HTMLParser

_LOGGER = logging.getLogger(__name__)
# pypdf warns per malformed object; the indexer reports one reason per file instead.
logging.getLogger("pypdf").setLevel(logging.ERROR)

TEXT_SUFFIXES = frozenset({".txt", ".text", ".md", ".markdown", ".rst", ".log"})
HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
PDF_SUFFIXES = frozenset({".pdf"})
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | HTML_SUFFIXES | PDF_SUFFIXES
MAX_FILE_BYTES = 64 * 1024 * 1024


class ParseError(Exception):
    """A file could not be turned into text; the reason is shown in the db status."""


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
    """Visible text of an HTML page as Markdown-ish lines (headings kept)."""

    _BLOCK = frozenset(
        {"p", "div", "li", "br", "tr", "section", "article", "table", "ul", "ol", "pre", "hr"}
        | {"blockquote", "dd", "dt", "header", "footer", "main", "nav", "aside", "td", "th"}
    )
    _SKIP = frozenset({"script", "style", "noscript", "template", "svg", "head"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0
        self.heading: int | None = None
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        if tag in self._SKIP:
            self.skip += 1
        elif re.fullmatch(r"h[1-6]", tag):
            self.heading = int(tag[1])
            self.parts.append("\n\n" + "#" * self.heading + " ")
        elif tag in self._BLOCK:
            self.parts.append("\n\n" if tag in ("p", "div", "section", "article") else "\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in self._SKIP:
            self.skip = max(0, self.skip - 1)
        elif re.fullmatch(r"h[1-6]", tag):
            self.heading = None
            self.parts.append("\n\n")
        elif tag in self._BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if self.skip:
            return
        if self.heading is not None:
            data = " ".join(data.split())
        self.parts.append(data)


def html_to_markdown(text: str) -> str:
    """Visible text with headings as ``#`` lines, so Markdown sectioning applies."""
    parser = _HTMLText()
    parser.feed(text)
    parser.close()
    body = "".join(parser.parts)
    body = re.sub(r"[ \t\r\f\v]+", " ", body)
    body = re.sub(r" *\n *", "\n", body)
    body = re.sub(r"\n{3,}", "\n\n", body).strip()
    title = " ".join(parser.title.split())
    if title and not body.startswith("#"):
        body = f"# {title}\n\n{body}"
    return body


def pdf_sections(raw: bytes) -> list[Section]:
    """One section per PDF page that has extractable text."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(raw))
        if reader.is_encrypted:
            try:
                reader.decrypt("")
            except Exception as err:
                raise ParseError("PDF is encrypted") from err
        out: list[Section] = []
        for number, page in enumerate(reader.pages, start=1):
            text = (page.extract_text() or "").strip()
            if text:
                out.append(Section(f"page {number}", text))
    except ParseError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as err:
        raise ParseError(f"unreadable PDF: {err}") from err
    except Exception as err:
        raise ParseError(f"unreadable PDF: {type(err).__name__}: {err}") from err
    if not out:
        raise ParseError("PDF has no extractable text (scanned images?)")
    return out


def parse_document(name: str, raw: bytes) -> list[Section]:
    """Sections of one file by its type; raises ParseError with a reason."""
    suffix = name[name.rfind(".") :].lower() if "." in name else ""
    if suffix in PDF_SUFFIXES:
        return pdf_sections(raw)
    text = decode_text(raw)
    if suffix in HTML_SUFFIXES:
        return markdown_sections(html_to_markdown(text))
    if suffix in (".md", ".markdown"):
        return markdown_sections(text)
    body = text.strip()
    return [Section("", body)] if body else []


def document_text(name: str, raw: bytes) -> str:
    """The whole readable text of a file (for source bundles)."""
    parts = []
    for section in parse_document(name, raw):
        parts.append(f"## {section.heading}\n\n{section.text}" if section.heading else section.text)
    return "\n\n".join(parts)
