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

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..sentences import SENTENCE_BREAK
from .parsing import CONTINUES, Section, line_indent, title_line

MAX_CHARS = 1200
LEAD_CHARS = 100  # a line this short without a sentence end leads into the next block
INTRO_CHARS = 300  # a paragraph ending in ":" this short introduces the next block

_BULLET = re.compile(r"\s*(?:[-*+\u2022\u2013]|\d{1,3}[.)]|[a-zA-Z][.)])\s+\S")
_RECORD = re.compile(r"[^\s:|][^:\n|]{0,40}:\s+\S")
_STEP = re.compile(r"\s*\d{1,3}[.)]\s+\S")
_FENCE = re.compile(r"\s*(?:```|~~~)")
_TABLE_ROW = re.compile(r"\|(.*\|.*)\|")
_TABLE_RULE = re.compile(r"\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?")
ENDS_SENTENCE = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]]*$")
# What may open a question that heads its answer: "Q:", "Question 3.", "(22)", "3.4:", "6.2".
QUESTION_LABEL = re.compile(
    r"(?:Q(?:uestion)?\s*\d{0,3}\s*[:.)]\s*|\(?\d{1,3}(?:\.\d{1,3})*[.:)]?\)?\s+)"
)
_ANSWER_LABEL = re.compile(
    r"[*_]{0,2}A(?:nswer)?\s*\d{0,3}[*_]{0,2}\s*[:.)\-][*_]{0,2}\s+(?=\S)"  # "**Answer:** …"
)
# The words a question opens with ("How do I …?", "Can't it …?", "Is there …?").
QUESTION_WORDS = frozenset(
    [
        "how",
        "what",
        "why",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "whose",
        "can",
        "cant",
        "could",
        "couldnt",
        "do",
        "does",
        "doesnt",
        "did",
        "didnt",
        "dont",
        "is",
        "isnt",
        "are",
        "arent",
        "was",
        "wasnt",
        "were",
        "will",
        "wont",
        "would",
        "wouldnt",
        "should",
        "shouldnt",
        "shall",
        "may",
        "might",
        "must",
        "has",
        "hasnt",
        "have",
        "havent",
        "had",
        "am",
    ]
)
_FIRST_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?")
# A question word after its preposition: "In which file …?", "On what machines …?",
# "For how long …?", "To whom …?".
_PREPOSED = re.compile(
    r"(?:about|after|at|before|by|for|from|in|into|of|on|since|through|to|under|until|"
    r"with|within|without)\s+(?:what|which|whom|whose|where|when|how)\b",
    re.I,
)
_ASKS = re.compile(r"\?[*_]*$")  # ends in "?" (not in a quotation: '… “How many?”')
QUESTION_CHARS = 300  # a question heading longer than this is a paragraph that asks
# A line of a list written without bullets: "Plumber - Joe Smith - 555-0100", a phone number,
# or columns set apart by two spaces or a tab.
_ROW_LINE = re.compile(
    r"\S\s+[\u2013\u2014]\s+\S|\S\s-\s\S|\S(?: {2,}|\t)\S|\(?\d{3}\)?[-. ]\d{3}[-. ]\d{4}\b"
)
# A table row read under its header: "Date: 2025-02-11 | Car: Outback | …".
_LABELLED_ROW = re.compile(r"[^|:\n]{1,40}: [^|\n]* \| [^|:\n]{1,40}: ")
_COLUMN_GAP = re.compile(r"(?: {2,}|\t)")
_COLUMN_RULE = re.compile(r"[-=\s]+")


@dataclass(slots=True)
class Chunk:
    """One searchable passage and the heading it sits under."""

    heading: str
    content: str


@dataclass(slots=True)
class _Block:
    """A structural unit before size limits: its text, kind and the lead over it."""

    text: str
    kind: str  # "prose" | "item" | "steps" | "record" | "code" | "question"
    lead: str = ""
    entry: str = ""  # the numbered paragraph it is part of, when that may be a FAQ entry
    labelled: bool = False  # a question with its number or "Q:" before it
    listed: bool = False  # an entry of a FAQ's contents list


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


def _columns(line: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of each cell of a line whose cells are set apart by 2+ spaces."""
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+(?: \S+)*", line)]


def _column_of(cell: tuple[int, int, str], head: list[tuple[int, int, str]]) -> int:
    """The header column a cell sits under: most overlap, else the nearest."""

    def fit(k: int) -> tuple[int, int]:
        start, end = head[k][0], head[k][1]
        overlap = min(end, cell[1]) - max(start, cell[0])
        return (overlap, 0) if overlap > 0 else (0, -abs(start - cell[0]))

    return max(range(len(head)), key=fit)


def names_columns(cells: list[str]) -> bool:
    """Whether a line's cells are a header naming columns ("Date", "Cost ($)"), not
    sentences set two spaces apart ("… to see if the answer it?  If you have …")."""
    return len(cells) >= 2 and not any(
        len(text) > 30 or text[0].islower() or text[-1] in ".,;!?" or any(c.isdigit() for c in text)
        for text in cells
    )


def _spaced_table(raw: list[str]) -> list[str] | None:
    """A space-aligned text table's rows under its header ("Date: … | Cost: $612"), or None.

    The header is the first line: two or more short cells without digits; every
    other line has two or more cells. A rule line ("----  ----") under the header
    is dropped and the header row itself is no row.
    """
    lines = [line.expandtabs(8) for line in raw]
    if len(lines) < 2 or any("|" in line for line in lines):
        return None
    head = _columns(lines[0])
    if len(head) < 2 or len(_COLUMN_GAP.findall(lines[0].strip())) != len(head) - 1:
        return None
    if not names_columns([text for _, _, text in head]):
        return None
    body = lines[1:]
    if body and _COLUMN_RULE.fullmatch(body[0]):
        body = body[1:]
    if not body or any(
        len(_columns(line)) < 2 or not _COLUMN_GAP.search(line.strip()) for line in body
    ):
        return None
    starts = {start for start, _, _ in head}
    ends = {end for _, end, _ in head}
    for line in body:  # each cell lines up with a column: its start (or a number's end)
        for start, end, _ in _columns(line):
            if not any(abs(start - s) <= 2 for s in starts) and not any(
                abs(end - e) <= 2 for e in ends
            ):
                return None
    rows = []
    for line in body:
        named = [""] * len(head)
        for cell in _columns(line):
            k = _column_of(cell, head)
            named[k] = f"{named[k]} {cell[2]}".strip()
        rows.append(
            " | ".join(
                f"{name.rstrip(':')}: {v}" for (_, _, name), v in zip(head, named, strict=True) if v
            )
        )
    return rows


def _tabled(lines: list[str], raw: list[str]) -> list[str]:
    """The paragraph with a space-aligned table's rows labelled (after a lead line, if any)."""
    if len(raw) < 2 or len(raw) != len(lines):
        return lines
    for skip in (0, 1):
        rows = _spaced_table(raw[skip:])
        if rows is not None:
            return [*lines[:skip], *rows]
    return lines


def _paragraphs(text: str) -> Iterator[tuple[list[str], str]]:
    """(lines, kind) of each blank-line separated paragraph: "code" for fenced code
    (kept whole), "term" for a question a definition list's term asks, else "".

    Table rows under a header row (the row above a ``---|---`` rule, or the first
    line of a space-aligned text table) are labelled with its column names; the
    header row itself is no passage.
    """
    lines: list[str] = []
    raw_lines: list[str] = []
    code = False
    header: list[str] = []
    for raw in text.split("\n"):
        line = raw.rstrip()
        if _FENCE.match(line):
            if lines:
                yield (lines, "code") if code else (_tabled(lines, raw_lines), "")
                lines, raw_lines = [], []
            code = not code
            header = []
            continue
        if code:
            lines.append(line)
            continue
        if not line.strip():
            if lines:
                yield _tabled(lines, raw_lines), ""
                lines, raw_lines = [], []
            header = []
            continue
        if len(raw_lines) == 1 and _term_asks(raw_lines[0], line):
            # "I try to run a query but it fails. Why?" over its definition set in (a
            # reStructuredText definition list, psycopg2's FAQ): the term is the question.
            yield lines, "term"
            lines, raw_lines = [], []
        if _TABLE_RULE.fullmatch(line.strip()):
            if lines and " | " in lines[-1]:
                header = _cells(lines.pop())
                raw_lines = []
            continue
        row = _TABLE_ROW.fullmatch(line.strip())
        if row:  # a Markdown table row reads as an HTML one: "a | b"
            line = " | ".join(cell.strip() for cell in row.group(1).split("|"))
        entry = _asked_row(header, line) if header else None
        if entry is not None:
            # "What voltage does it use? | It runs on 12 V": a question and its answer,
            # each a paragraph, so the question heads the answer as in any FAQ.
            if lines:
                yield _tabled(lines, raw_lines), ""
                lines, raw_lines = [], []
            yield [entry[0]], ""
            yield [entry[1]], ""
            continue
        if header and (" | " in line or line.strip().startswith("|")):
            line = _labelled(header, line)
        lines.append(line.strip())
        raw_lines.append(line)
    if lines:
        yield (lines, "code") if code else (_tabled(lines, raw_lines), "")


def _term_asks(term: str, following: str) -> bool:
    """Whether a line, first of its paragraph, is a definition list's term that asks: it
    ends in "?", is no list item, and the next line is set in deeper (its definition)."""
    return (
        _ASKS.search(term) is not None
        and len(term.strip()) <= QUESTION_CHARS
        and _BULLET.match(term) is None
        and line_indent(following) > line_indent(term)
    )


ASKED_ROW_WORDS = 3  # a first cell asking in fewer words is no FAQ's question


def _asked_row(header: list[str], row: str) -> tuple[str, str] | None:
    """(question, answer) of a table row whose first cell asks and the rest answers (a
    "Question | Answer" table), the answer's cells under their columns' names when there
    are several; None for any other row."""
    cells = _cells(row)
    if len(cells) < 2 or len(cells) != len(header) or not _ASKS.search(cells[0]):
        return None
    if len(cells[0].split()) < ASKED_ROW_WORDS:
        return None  # "? | matches any single character": a pattern, no question
    rest = [c for c in cells[1:] if c]
    if not rest:
        return None
    if len(rest) == 1:
        return cells[0], rest[0]
    return cells[0], _labelled(header[1:], " | ".join(cells[1:]))


def _question(lines: list[str], i: int) -> int:
    """How many lines from ``i`` ask a question that heads its answer (0: none).

    "(22) Does it support foreign keys?", "3.4: How do I reset the\nrouter?", "Why
    is it slow?": a question standing on its own lines, opening with a question
    word after its label. A quoted question ("read Section 6.1, “How many …?”"),
    a paragraph that asks after it tells ("It leaks. Why?") or a sentence that
    only ends in a question mark ("For example, … see how easy it is?") is no
    heading. After an explicit "Q:" everything up to the answer is the question.
    """
    line = lines[i]
    label = QUESTION_LABEL.match(line)
    opening = label.end() if label else 0
    if opening >= len(line) or not line[opening].isupper():
        return 0
    if label and line[0] in "Qq":
        return _labelled_question(lines, i)
    word = _FIRST_WORD.match(line, opening)
    if word is None or (
        re.sub("['\u2019]", "", word.group().lower()) not in QUESTION_WORDS
        and _PREPOSED.match(line, opening) is None
    ):
        return 0
    size = 0
    for n in range(i, min(i + 3, len(lines))):
        size += len(lines[n]) + 1
        if size > QUESTION_CHARS:
            return 0
        if _ASKS.search(lines[n]):
            asked = " ".join(lines[i : n + 1])[opening:]
            return n - i + 1 if SENTENCE_BREAK.search(asked) is None else 0
        if ENDS_SENTENCE.search(lines[n]) or lines[n].endswith(":"):
            return 0
    return 0


def _labelled_question(lines: list[str], i: int) -> int:
    """The lines of a "Q:" question: to its "?", to the line before "A:", or one sentence."""
    size = 0
    for n in range(i, min(i + 8, len(lines))):
        size += len(lines[n]) + 1
        if size > 2 * QUESTION_CHARS:
            return 0
        if _ASKS.search(lines[n]) or ENDS_SENTENCE.search(lines[n]):
            return n - i + 1
        if n + 1 < len(lines) and _ANSWER_LABEL.match(lines[n + 1]):
            return n - i + 1
    return 0


_NUMBER = re.compile(r"\(?(\d{1,3}(?:\.\d{1,3})*)[.:)]?\)?\s")
ENTRY_CHARS = 400  # a numbered paragraph this short (and ENTRY_LINES) may be a FAQ entry
ENTRY_LINES = 6


def _entry(lines: list[str]) -> bool:
    """A numbered paragraph short enough to be a FAQ entry's title ("13. The From_ line …")."""
    return (
        len(lines) <= ENTRY_LINES
        and _NUMBER.match(lines[0]) is not None
        and sum(len(line) + 1 for line in lines) <= ENTRY_CHARS
    )


def _contents(lines: list[str]) -> list[list[str]]:
    """The entries of a list of numbered FAQ entries ("1.1:  What is it?" a line, wrapped
    lines after), when the paragraph is one and some entry asks; else []."""
    entries: list[list[str]] = []
    for line in lines:
        if _NUMBER.match(line):
            entries.append([line])
        elif entries and (
            not ENDS_SENTENCE.search(entries[-1][-1])
            # "14.13. I see ^M symbols. I tried 'dos'.\n None helped. How can I hide them?"
            or (
                not _ASKS.search(entries[-1][-1])
                and sum(len(part) + 1 for part in entries[-1]) < 2 * QUESTION_CHARS
            )
        ):
            entries[-1].append(line)  # "2.1:  Why does `$var' not split into\n two words?"
        else:
            return []
    asking = sum(1 for e in entries if _ASKS.search(e[-1]))
    levels = all(len(_numbers(e[0])) > 1 for e in entries)  # "1.1", not steps "1."
    if len(entries) < 2 or not asking or not (levels or 2 * asking > len(entries)):
        return []
    return entries


def _numbers(text: str) -> tuple[int, ...]:
    """The numbers of an entry's label ("3.4:" -> (3, 4)), or ()."""
    match = _NUMBER.match(text)
    return tuple(int(n) for n in match.group(1).split(".")) if match else ()


def _follows(entry: str, question: str) -> bool:
    """Whether a numbered entry comes right after the numbered question (12 -> 13, 3.4 -> 3.5)."""
    now, before = _numbers(entry), _numbers(question)
    if not now or len(now) != len(before):
        return False
    return (now[:-1] == before[:-1] and now[-1] == before[-1] + 1) or (
        now[0] == before[0] + 1 and all(n == 1 for n in now[1:])
    )


def _asked(lines: list[str]) -> _Block:
    """A question's lines as one heading, without its "Q:" label."""
    text = " ".join(line.strip() for line in lines)
    label = QUESTION_LABEL.match(text)
    asked = text[label.end() :] if label and text[:1] in "Qq" else text
    return _Block(asked, "question", labelled=label is not None)


def _unlabelled(line: str) -> str:
    """The first line after a question without the answer's "A:" label."""
    label = _ANSWER_LABEL.match(line)
    return line[label.end() :] if label else line


SHORT_LIST_LINE = 40  # three or more lines this short, none a sentence: a list's items


def _runs(lines: list[str], keeps: Callable[[str], bool]) -> set[int]:
    """Indexes of lines in a run of three or more flush-left lines that ``keeps``."""
    out: set[int] = set()
    run: list[int] = []
    for n, raw in enumerate([*lines, ""]):
        line = raw.strip()
        if line and not raw[:1].isspace() and keeps(line):
            run.append(n)
            continue
        if len(run) >= 3:
            out.update(run)
        run = []
    return out


def unmarked_list(lines: list[str]) -> set[int]:
    """Indexes of lines in a run of three or more short lines, flush left, that end no
    sentence nor open what follows (an ingredient or shopping list written without
    marks): items, never one sentence nor headings. Indented lines are code."""
    return _runs(
        lines,
        lambda line: (
            len(line) <= SHORT_LIST_LINE
            and not ENDS_SENTENCE.search(line)
            and not line.endswith(":")
        ),
    )


def fact_per_line(lines: list[str]) -> set[int]:
    """Indexes of lines in a run of three or more flush-left lines that each open with a
    capital or a figure and hold no sentence end (a note written one fact per line,
    without full stops: "Nel freezer c'è il minestrone: 6 minuti nel microonde").
    Wrapped prose breaks mid-sentence, so its next line seldom opens with a capital,
    and three of its lines hold a full stop somewhere."""
    return _runs(
        lines,
        lambda line: (
            (line[:1].isupper() or line[:1].isdigit())
            and not ENDS_SENTENCE.search(line)
            and _ends_no_clause(line)
            and len(SENTENCE_BREAK.split(line)) == 1
            and not _BULLET.match(line)
        ),
    )


def _prose(lines: list[str]) -> Iterator[_Block]:
    """A paragraph without items: split where a heading line or a question opens a group."""
    if len(lines) >= 3 and len(unmarked_list(lines)) == len(lines):
        yield _Block("\n".join(lines), "prose")  # "125 g butter" in a list is no heading
        return
    title = ""
    body: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        after = lines[i + 1] if i + 1 < len(lines) else ""
        starts = (
            i == 0
            or ENDS_SENTENCE.search(lines[i - 1]) is not None
            or title_line(lines[i - 1], line)
        )
        asks = _question(lines, i) if starts or _ends_no_clause(lines[i - 1]) else 0
        if asks:
            if body or title:
                yield _Block("\n".join(body) or title, "prose", title if body else "")
            title, body = "", []
            yield _asked(lines[i : i + asks])
            i += asks
            if i < len(lines):
                lines[i] = _unlabelled(lines[i])
            continue
        if after and starts and title_line(line, after):
            if body or title:
                yield _Block("\n".join(body) or title, "prose", title if body else "")
            title, body = line, []
            i += 1
            continue
        body.append(line)
        i += 1
    if body or title:
        yield _Block("\n".join(body) or title, "prose", title if body else "")


def _ends_no_clause(line: str) -> bool:
    """A line ending neither a sentence nor a clause that goes on ("Pond pump: frequently
    asked questions"): in a PDF's text, where paragraphs lose their blank lines, what
    opens on the next line with a capitalised question is a question of its own."""
    words = line.split()
    return (
        bool(words)
        and not line.endswith(tuple(",;:-\u2013\u2014("))
        and (words[-1].lower() not in CONTINUES)
    )


def _listed(line: str) -> bool:
    """A record, item or table row line ("Password: …", "- milk", "a | b")."""
    return bool(_RECORD.match(line) or _BULLET.match(line) or " | " in line)


def _rows(lines: list[str]) -> bool:
    """Lines that are a list written without bullets: one entry per line (contacts, rows)."""
    return (
        len(lines) > 1
        and all(_listed(line) or _ROW_LINE.search(line) for line in lines)
        and not any(line[:1].islower() for line in lines[1:])
    )


def _statements(lines: list[str]) -> bool:
    """Lines of a note written one statement per line, without full stops ("Mia has
    swimming Thurs 4.15\nLachie's library bag goes back on Wednesdays"): every line opens
    with a capital or a digit, and a line ending no sentence stops short of where its
    paragraph wraps (the next line's first word would have fitted on it). Joined, they
    would read as one sentence of unrelated facts; prose wrapped at a width (its next
    line opening with a name) stays prose."""
    if len(lines) < 2 or not all(line[:1].isupper() or line[:1].isdigit() for line in lines):
        return False
    if any(_question(lines, n) for n in range(len(lines) - 1)):
        return False  # "Can it run dry?\nNo. …": questions heading their answers (prose)
    if any(_listed(line) or _ROW_LINE.search(line) for line in lines[1:]):
        return False  # records, items or contacts under a title line are read as such
    if any(line.endswith((",", ";", "-", "\u2013", "\u2192")) for line in lines[:-1]):
        return False  # a line ending mid-clause goes on below
    if any(title_line(line, following) for line, following in itertools.pairwise(lines)):
        return False  # "Testing" over its text (a PDF's page): a heading, read as prose
    width = max(len(line) for line in lines)
    return any(
        not ENDS_SENTENCE.search(line) and len(line) + 1 + len(following.split()[0]) < width
        for line, following in itertools.pairwise(lines)
    )


# "* **1.1 What is this?**": an item wholly in bold, standing alone as its paragraph.
_BOLD_ITEM = re.compile(r"\s*[-*+]\s+(\*\*|__)(?P<text>[^*_\s].*?)\1\s*$")


def _bold_entry(lines: list[str]) -> list[str]:
    """A Markdown FAQ's question set as a bold item of its own ("* **1.1 What is
    this?**", "* **1.2 WARNINGS**") as the line it bolds, so that it heads the answer
    below it as a question or a numbered entry would; any other paragraph as it is."""
    bold = _BOLD_ITEM.match(lines[0]) if len(lines) == 1 else None
    if bold is None:
        return lines
    text = bold.group("text").strip()
    return [text] if _ASKS.search(text) or _NUMBER.match(text) else lines


def _blocks(text: str) -> Iterator[_Block]:
    """Paragraphs, list items (numbered steps together) and record lines, in order."""
    for lines, kind in _paragraphs(text):
        if kind == "term":
            yield _asked(lines)
            continue
        if kind == "code":
            body = "\n".join(lines).strip("\n")
            if body.strip():
                yield _Block(f"```\n{body}\n```", "code")  # fenced: readers (and answers) see code
            continue
        lines = _bold_entry(lines)
        first = 0
        while first < len(lines) and (asks := _question(lines, first)):
            yield _asked(lines[first : first + asks])
            first += asks
            if first < len(lines):
                lines[first] = _unlabelled(lines[first])
        if first:
            lines = lines[first:]
        if not lines:
            continue
        entries = _contents(lines)
        if entries:
            # "1.1:  Sources of information\n1.2:  What is it?": a list of numbered
            # entries (a FAQ's contents), one heading each, never one entry's answer.
            for listed in entries:
                text = _asked(listed).text if _ASKS.search(listed[-1]) else " ".join(listed)
                yield _Block(text, "question", labelled=True, listed=True)
            continue
        if not first and _entry(lines):
            # "2. I installed it, but how …?\n   use it?  It does nothing.": a numbered
            # FAQ entry standing as its own paragraph; a question when it asks, else one
            # when it follows the question numbered just before it (chunk_sections).
            if _ASKS.search(lines[-1]):
                yield _Block(" ".join(lines), "question", labelled=True)
                continue
            entry = " ".join(lines)
            for block in _structure(lines):
                block.entry = entry
                yield block
            continue
        yield from _structure(lines)


def _structure(lines: list[str]) -> Iterator[_Block]:
    """One paragraph's blocks: its list items, records, steps or prose."""
    lead: list[str] = []
    items: list[list[str]] = []
    records = all(_listed(line) for line in lines) or _rows(lines)
    if (
        not records
        and len(lines) > 2
        and _rows(lines[1:])
        and (title_line(lines[0], lines[1]) or lines[0].endswith(":"))
    ):  # "Guest wifi" or "Contacts:" over its entries: the line heads each of them
        lead, lines, records = [lines[0]], lines[1:], True
    records = records or _statements(lines)
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
        return
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
        for match in SENTENCE_BREAK.finditer(text, start + max_chars // 3, end):
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


def _key(question: str) -> str:
    """A question's words without its label, to know a listed question from its answer's."""
    label = QUESTION_LABEL.match(question)
    return " ".join(re.findall(r"\w+", question[label.end() if label else 0 :].lower()))


def _section_chunks(
    section: Section,
    base: str,
    max_chars: int,
    chunks: list[Chunk],
    answered: set[str],
    unanswered: list[Chunk],
    listed: set[str],
) -> None:
    """Append one section's chunks (headed by ``base``), questions heading their answers."""
    pending = ""  # a lead-in line waiting for the block it introduces
    question = ""  # the question whose answer the blocks are
    waiting = False  # the question has no chunk under it yet
    labelled = _ASKS.search(base) is not None  # under a question heading: "A:" may open it

    def outer() -> str:
        """The heading of what stands under the current question (or the section)."""
        return f"{base} > {question}" if base and question else base or question

    def settle() -> None:
        """A lead with nothing after it joins the chunk before it, or stands alone; under
        a question nothing else answers, it is the answer ("Yes", "The main site is …")."""
        nonlocal pending, waiting
        if not pending:
            return
        head = outer()
        if question and waiting:
            answered.add(_key(question))
            waiting = False
            chunks.append(Chunk(head, pending))
        elif (
            chunks
            and chunks[-1].heading == head
            and (len(chunks[-1].content) + len(pending) < max_chars)
        ):
            chunks[-1].content = f"{chunks[-1].content}\n{pending}"
        else:
            chunks.append(Chunk(head, pending))
        pending = ""

    def unasked() -> None:
        """A question with no answer under it is a passage of its own."""
        if question and waiting:
            chunks.append(Chunk(base, question))
            unanswered.append(chunks[-1])

    for block in _blocks(section.text):
        if block.entry and question and block.entry == question:
            continue  # the rest of a numbered entry read as the question below
        if block.entry and (_follows(block.entry, question) or _key(block.entry) in listed):
            # The entry after the numbered question, or one the contents list names.
            block = _Block(block.entry, "question", labelled=True)
        if block.listed:
            listed.add(_key(block.text))
        if block.kind == "question" and not waiting and _numbers(question) and not block.labelled:
            # In an FAQ whose questions are numbered, a question with no number or "Q:"
            # inside an answer is part of it (a reader's question quoted, "Is it broken?"):
            # it leads into what follows, under the numbered question.
            pending = f"{pending}\n{block.text}" if pending else block.text
            continue
        if block.kind == "question":
            settle()
            unasked()
            question, waiting = block.text, True
            continue
        heading = outer()
        if block.lead:
            heading = f"{heading} > {block.lead}" if heading else block.lead
        if (
            pending
            and not pending.endswith(":")
            and block.kind == "record"
            and _LABELLED_ROW.match(block.text)
        ):
            # A title over a table is said of every row, not the first: a passage alone
            # (an introduction ending in ":" still leads into the rows).
            chunks.append(Chunk(heading, pending))
            pending = ""
        if pending and block.lead and not pending.endswith(":"):
            # A title over headed parts ("SafeHome SA-10 smoke alarm" over "Testing") names
            # the whole, not the first part: a passage of its own.
            chunks.append(Chunk(outer(), pending))
            pending = ""
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
        if (question and waiting) or labelled:
            if question:
                answered.add(_key(question))
            label = _ANSWER_LABEL.match(text)
            text = text[label.end() :] if label else text
            waiting = labelled = False
        if block.kind == "code":
            lead = text[: len(text) - len(block.text)]  # "Run this:\n" before the fence
            room = max(max_chars - len(lead), max_chars // 2)
            pieces = _split_code(block.text, room) or [block.text]
            pieces[0] = lead + pieces[0]
            chunks.extend(Chunk(heading, piece) for piece in pieces)
            continue
        for piece in _split_long(text, max_chars):
            chunks.append(Chunk(heading, piece))
    settle()  # a lead with nothing after it ("See also" over a dropped list)
    unasked()


def chunk_sections(
    sections: list[Section], max_chars: int = MAX_CHARS, *, name: str = ""
) -> list[Chunk]:
    """Chunks of every section, following its paragraphs, items and records.

    ``name`` is the file's name: its words head every chunk whose heading does not
    already say them, so "page 2 > Battery" of smoke-alarm-guide.pdf is found by
    "smoke alarm" (and read in its citation). A question standing on its own
    ("(22) Does it support foreign keys?", a ``<dt>``) is no chunk: it heads the
    chunks of its answer. A question that nothing answers stays a chunk, unless the
    file answers it elsewhere (a list of the questions at the top of a FAQ).
    """
    title = file_title(name)
    chunks: list[Chunk] = []
    answered: set[str] = set()
    unanswered: list[Chunk] = []
    listed: set[str] = set()  # the entries a contents list names
    for section in sections:
        base = _titled(section.heading, title)
        _section_chunks(section, base, max_chars, chunks, answered, unanswered, listed)
    # The FAQ's list of its questions (lines, or a contents list's items): each is
    # answered under its own, and spelling the question out it would outrank the answer.
    dropped = {id(c) for c in unanswered if _key(c.content) in answered}
    dropped |= {id(c) for c in chunks if _listed_question(c.content, answered)}
    return [c for c in chunks if id(c) not in dropped]


def _listed_question(text: str, answered: set[str]) -> bool:
    """Whether a passage is one list item asking a question the file answers elsewhere
    ("+ 1.1 What is Midnight Commander?" in the contents)."""
    item = _BULLET.match(text)
    if item is None:
        return False
    rest = text[item.end() - 1 :].strip()
    return bool(_ASKS.search(rest)) and _key(rest) in answered


def embedding_text(heading: str, content: str) -> str:
    """What the embedding model reads for a chunk: its document's and its own heading.

    The middle of a long heading path adds tokens (the model's time) more than meaning.
    """
    parts = [p.strip() for p in heading.split(" > ") if p.strip()]
    head = " > ".join(dict.fromkeys([parts[0], parts[-1]])) if parts else ""
    return f"{head}\n{content}" if head else content
