"""Chunking by structure: one chunk per paragraph, list item or record line, under its heading.

A chunk is the unit a search returns and an answer quotes, so it follows the
document: a paragraph of a note, one item of a list, one ``Label: value`` line
of a record ("Password: …" and "Bins: …" never share a chunk), a code block.
Short lines that lead into what follows (a definition's signature, "Note",
"Generate a password:") are kept with the block they introduce; a lead line
over a list becomes part of the items' heading. Blocks longer than
``MAX_CHARS`` are split at sentences, and a sentence longer than that at word
boundaries. Every step walks the text once, so time grows linearly with its
size (a 16 MB paragraph of one word included).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .parsing import Section, title_line

MAX_CHARS = 1200
LEAD_CHARS = 100  # a line this short without a sentence end leads into the next block
INTRO_CHARS = 300  # a paragraph ending in ":" this short introduces the next block

_BULLET = re.compile(r"\s*(?:[-*+\u2022\u2013]|\d{1,3}[.)]|[a-zA-Z][.)])\s+\S")
_RECORD = re.compile(r"[^\s:|][^:\n|]{0,40}:\s+\S")
_STEP = re.compile(r"\s*\d{1,3}[.)]\s+\S")
_FENCE = re.compile(r"\s*(?:```|~~~)")
_TABLE_ROW = re.compile(r"\|(.*\|.*)\|")
_TABLE_RULE = re.compile(r"\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
ENDS_SENTENCE = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]]*$")


@dataclass(slots=True)
class Chunk:
    """One searchable passage and the heading it sits under."""

    heading: str
    content: str


@dataclass(slots=True)
class _Block:
    """A structural unit before size limits: its text, kind and the lead over it."""

    text: str
    kind: str  # "prose" | "item" | "steps" | "record" | "code"
    lead: str = ""


def _cells(row: str) -> list[str]:
    """The cells of an "a | b | c" row ("| b" has an empty first cell, "a |" a last)."""
    row = row.strip()
    first = row.startswith("|")
    last = row.endswith("|") and len(row) > 1
    inner = row[1 if first else 0 : len(row) - 1 if last else len(row)].strip()
    cells = [c.strip() for c in inner.split(" | ")] if inner else []
    return [""] * first + cells + [""] * last


def _labelled(header: list[str], row: str) -> str:
    """A table row with each cell under its column's name: "Code: F28 | Meaning: …".

    A row read alone (a chunk, an answer) then still says what each value is.
    """
    cells = _cells(row)
    if len(cells) != len(header):
        return row
    parts = []
    for name, cell in zip(header, cells, strict=True):
        name = name.rstrip(":").strip()
        if cell:
            parts.append(f"{name}: {cell}" if name and name != cell else cell)
    return " | ".join(parts) or row


def _paragraphs(text: str) -> Iterator[tuple[list[str], bool]]:
    """(lines, is_code) of each blank-line separated paragraph; fenced code kept whole.

    Table rows under a header row (the row above a ``---|---`` rule) are labelled
    with its column names; the header row itself is no passage.
    """
    lines: list[str] = []
    code = False
    header: list[str] = []
    for raw in text.split("\n"):
        line = raw.rstrip()
        if _FENCE.match(line):
            if lines:
                yield lines, code
                lines = []
            code = not code
            header = []
            continue
        if code:
            lines.append(line)
            continue
        if not line.strip():
            if lines:
                yield lines, False
                lines = []
            header = []
            continue
        if _TABLE_RULE.fullmatch(line.strip()):
            if lines and " | " in lines[-1]:
                header = _cells(lines.pop())
            continue
        row = _TABLE_ROW.fullmatch(line.strip())
        if row:  # a Markdown table row reads as an HTML one: "a | b"
            line = " | ".join(cell.strip() for cell in row.group(1).split("|"))
        if header and (" | " in line or line.strip().startswith("|")):
            line = _labelled(header, line)
        lines.append(line.strip())
    if lines:
        yield lines, code


def _prose(lines: list[str]) -> Iterator[_Block]:
    """A paragraph without items: split where a heading line opens a new group (PDF pages)."""
    title = ""
    body: list[str] = []
    for i, line in enumerate(lines):
        after = lines[i + 1] if i + 1 < len(lines) else ""
        starts = (
            i == 0
            or ENDS_SENTENCE.search(lines[i - 1]) is not None
            or title_line(lines[i - 1], line)
        )
        if after and starts and title_line(line, after):
            if body or title:
                yield _Block("\n".join(body) or title, "prose", title if body else "")
            title, body = line, []
            continue
        body.append(line)
    if body or title:
        yield _Block("\n".join(body) or title, "prose", title if body else "")


def _blocks(text: str) -> Iterator[_Block]:
    """Paragraphs, list items (numbered steps together) and record lines, in order."""
    for lines, code in _paragraphs(text):
        if code:
            body = "\n".join(lines).strip("\n")
            if body.strip():
                yield _Block(f"```\n{body}\n```", "code")  # fenced: readers (and answers) see code
            continue
        lead: list[str] = []
        items: list[list[str]] = []
        records = all(_RECORD.match(line) or _BULLET.match(line) or " | " in line for line in lines)
        for line in lines:
            if _BULLET.match(line) or (records and len(lines) > 1):
                items.append([line])
            elif items:
                items[-1].append(line)  # a wrapped item continues
            else:
                lead.append(line)
        if not items:
            if records:
                yield _Block("\n".join(lead), "record")
            else:
                yield from _prose(lead)
            continue
        title = " ".join(lead)
        if lead and (len(title) > LEAD_CHARS or ENDS_SENTENCE.search(title)):
            yield from _prose(lead)  # a sentence before the list, not a heading over it
            title = ""
        title = title.rstrip(":").strip()
        steps: list[str] = []
        for item in items:
            if _STEP.match(item[0]):
                steps.append("\n".join(item))  # numbered steps are one procedure
                continue
            if steps:
                yield _Block("\n".join(steps), "steps", title)
                steps = []
            kind = "record" if records and not _BULLET.match(item[0]) else "item"
            yield _Block("\n".join(item), kind, title)
        if steps:
            yield _Block("\n".join(steps), "steps", title)


def _split_long(text: str, max_chars: int) -> Iterator[str]:
    """Pieces of at most ``max_chars``: whole sentences where possible, else word cuts.

    Walks the text by index (no copy of the remainder per piece): linear time.
    """
    if len(text) <= max_chars:
        yield text
        return
    start = 0
    n = len(text)
    while start < n:
        while start < n and text[start].isspace():
            start += 1
        if start >= n:
            return
        end = start + max_chars
        if end >= n:
            yield text[start:]
            return
        # The last sentence end inside the window, else the last space, else a hard cut.
        cut = -1
        for match in _SENTENCE_END.finditer(text, start + max_chars // 3, end):
            cut = match.start()
        if cut <= start:
            space = text.rfind(" ", start + max_chars // 2, end)
            cut = space if space > start else end
        piece = text[start:cut].strip()
        if piece:
            yield piece
        start = cut


_NAME_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)


def file_title(name: str) -> str:
    """The words of a file name ("dishwasher-warranty.txt" -> "dishwasher warranty")."""
    stem = name.rsplit("/", 1)[-1]
    stem = stem[: stem.rfind(".")] if "." in stem else stem
    return " ".join(_NAME_WORD.findall(stem.replace("_", " ")))


def _titled(heading: str, title: str) -> str:
    """The heading under the file's name, unless the heading already says it."""
    if not title:
        return heading
    have = {w.lower() for w in _NAME_WORD.findall(heading)}
    if all(w.lower() in have for w in title.split()):
        return heading
    return f"{title} > {heading}" if heading else title


def _split_code(text: str, max_chars: int) -> list[str] | None:
    """A long code block in fenced pieces cut between lines (None: it fits as it is)."""
    if len(text) <= max_chars:
        return None
    body = text.removeprefix("```\n").removesuffix("\n```")
    room = max_chars - 8
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for line in body.split("\n"):
        while len(line) > room:  # a single line longer than a chunk: cut it
            if current:
                pieces.append("\n".join(current))
                current, size = [], 0
            pieces.append(line[:room])
            line = line[room:]
        if current and size + 1 + len(line) > room:
            pieces.append("\n".join(current))
            current, size = [], 0
        current.append(line)
        size += len(line) + 1
    if current:
        pieces.append("\n".join(current))
    return [f"```\n{p}\n```" for p in pieces if p.strip()]


def chunk_sections(
    sections: list[Section], max_chars: int = MAX_CHARS, *, name: str = ""
) -> list[Chunk]:
    """Chunks of every section, following its paragraphs, items and records.

    ``name`` is the file's name: its words head every chunk whose heading does not
    already say them, so "page 2 > Battery" of smoke-alarm-guide.pdf is found by
    "smoke alarm" (and read in its citation).
    """
    title = file_title(name)
    chunks: list[Chunk] = []
    for section in sections:
        pending = ""  # a lead-in line waiting for the block it introduces
        for block in _blocks(section.text):
            heading = _titled(section.heading, title)
            if block.lead:
                heading = f"{heading} > {block.lead}" if heading else block.lead
            text = f"{pending}\n{block.text}" if pending else block.text
            pending = ""
            if (
                block.kind == "prose"
                and not block.lead
                and (
                    (len(text) <= LEAD_CHARS and not ENDS_SENTENCE.search(text))
                    or (len(text) <= INTRO_CHARS and text.endswith(":"))
                )
            ):
                pending = text
                continue
            if block.kind == "code":
                lead = text[: len(text) - len(block.text)]  # "Run this:\n" before the fence
                room = max(max_chars - len(lead), max_chars // 2)
                pieces = _split_code(block.text, room) or [block.text]
                pieces[0] = lead + pieces[0]
                chunks.extend(Chunk(heading, piece) for piece in pieces)
                continue
            for piece in _split_long(text, max_chars):
                chunks.append(Chunk(heading, piece))
        if pending:  # a lead with nothing after it ("See also" over a dropped list)
            if (
                chunks
                and chunks[-1].heading == _titled(section.heading, title)
                and (len(chunks[-1].content) + len(pending) < max_chars)
            ):
                chunks[-1].content = f"{chunks[-1].content}\n{pending}"
            else:
                chunks.append(Chunk(_titled(section.heading, title), pending))
    return chunks


def embedding_text(heading: str, content: str) -> str:
    """What the embedding model reads for a chunk: its document's and its own heading.

    The middle of a long heading path adds tokens (the model's time) more than meaning.
    """
    parts = [p.strip() for p in heading.split(" > ") if p.strip()]
    head = " > ".join(dict.fromkeys([parts[0], parts[-1]])) if parts else ""
    return f"{head}\n{content}" if head else content
