"""Chunking by structure: sections, then paragraphs, packed up to a size cap with overlap."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .parsing import Section

MAX_CHARS = 1200
OVERLAP_CHARS = 200

_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


@dataclass(slots=True)
class Chunk:
    """One searchable passage and the heading it sits under."""

    heading: str
    content: str


def _pieces(text: str, max_chars: int) -> list[str]:
    """Paragraphs, with oversized ones split at sentences (or hard-cut)."""
    out: list[str] = []
    for para in _PARAGRAPH.split(text):
        para = para.strip()
        if not para:
            continue
        if len(para) <= max_chars:
            out.append(para)
            continue
        buf = ""
        for sentence in _SENTENCE.split(para):
            while len(sentence) > max_chars:
                cut = sentence.rfind(" ", 0, max_chars)
                cut = cut if cut > max_chars // 2 else max_chars
                if buf:
                    out.append(buf)
                    buf = ""
                out.append(sentence[:cut].strip())
                sentence = sentence[cut:].strip()
            if buf and len(buf) + 1 + len(sentence) > max_chars:
                out.append(buf)
                buf = ""
            buf = f"{buf} {sentence}".strip()
        if buf:
            out.append(buf)
    return out


def _tail(text: str, overlap: int) -> str:
    """The last ``overlap`` characters, starting at a word boundary."""
    if overlap <= 0 or len(text) <= overlap:
        return text if overlap > 0 else ""
    tail = text[-overlap:]
    space = tail.find(" ")
    return tail[space + 1 :] if 0 <= space < overlap // 2 else tail


def chunk_sections(
    sections: list[Section], max_chars: int = MAX_CHARS, overlap: int = OVERLAP_CHARS
) -> list[Chunk]:
    """Pack each section's paragraphs into chunks of at most ``max_chars`` (plus overlap)."""
    chunks: list[Chunk] = []
    for section in sections:
        buf = ""
        started = False
        for piece in _pieces(section.text, max_chars):
            if buf and len(buf) + 2 + len(piece) > max_chars:
                chunks.append(Chunk(section.heading, buf))
                started = True
                buf = _tail(buf, overlap)
            if started and buf and len(buf) + 2 + len(piece) > max_chars + overlap:
                buf = ""
            buf = f"{buf}\n\n{piece}" if buf else piece
        if buf and (not started or buf.strip() not in chunks[-1].content):
            chunks.append(Chunk(section.heading, buf))
    return chunks
