"""The voice form of an answer: plain words, no markdown or links, a sentence or two.

One implementation for the router's ``spoken`` field and the model's fallback,
so a voice answer never depends on which of them wrote it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from .sentences import SENTENCE_BREAK

MAX_SPOKEN_CHARS = 300

_MD_LINK = re.compile(r"!?\[([^\]]*)\]\((?:[^()\s]|\([^()]*\))*\)")
URL_BODY = r"(?:https?://|www\.)\S*[^\s.,;:!?)\]>]"
_URL = re.compile(r"<?" + URL_BODY + r">?", re.IGNORECASE)
# "See https://… for more." says nothing aloud; the figures around it stay.
_SEE_URL = re.compile(
    r"[,;]?\s*\(?\b(?:see|visit|at|via|on|from)\s+<?"
    + URL_BODY
    + r">?(?:\s+for\s+(?:more|(?:more\s+)?(?:details|information|info)))?\)?",
    re.IGNORECASE,
)
_MD_MARK = re.compile(r"(\*\*|__|~~|`+|^#{1,6}\s*|^\s*>\s?|^\s*(?:[-*+•]|\d+[.)])\s+)", re.M)
# Both the model's "[1]" and the router's extractive "[1, web]" markers.
_CITE = re.compile(r"\s*\[\d{1,3}(?:,[^\]]*)?\]")
# "(since today at 08:07)": when a state began is for reading, not for a voice
# (a question asking when gets the time in the sentence itself, not in brackets).
_TIME_ASIDE = re.compile(
    r"\s*\((?:since|as of|last (?:changed|updated)|updated)\b[^()]*\)", re.IGNORECASE
)
SENTENCE = SENTENCE_BREAK  # never after "Dr.", "approx." or an initial


_CELL_BREAK = re.compile(r"(?<=\S)\s+\|\s+(?=\S)")
_CITED_END = re.compile(r"\[\d{1,3}(?:,[^\]]*)?\]\s*$")
_BLOCK_START = re.compile(r"^\s*(?:[-*+•]|\d+[.)]|#{1,6}|>)\s+")


def _join_lines(text: str) -> str:
    """Hard-wrapped lines join with a space; paragraphs, items and headings end a sentence."""
    segments: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        if not line.strip() or _BLOCK_START.match(line):
            if current:
                segments.append(" ".join(current))
            current = [line.strip()] if line.strip() else []
        else:
            current.append(line.strip())
        if _CITED_END.search(line):  # a cited line of a composed answer is a sentence
            segments.append(" ".join(current))
            current = []
        if line.lstrip().startswith("#"):  # a heading is a sentence of its own
            segments.append(" ".join(current))
            current = []
    if current:
        segments.append(" ".join(current))
    return "\n".join(segments)


# "HOST:8888/mcp", and a placeholder host as the docs write it ("http://<host>:8888/").
_HOST_PORT = re.compile(
    r"<?(?:https?://)?((?:<[\w-]+>|[\w.-]+):\d{2,5}(?:/[^\s>]*)?)>?", re.IGNORECASE
)


def _said_url(m: re.Match[str]) -> str:
    """A URL is not read out, except an address with a port (a server on the home's own
    network, "HOST:8888/mcp"), said without its scheme: where to connect is the answer."""
    local = _HOST_PORT.fullmatch(m.group(0).rstrip("`"))  # "`http://box:8888`" too
    return re.sub(r"[<>`]", "", local.group(1)).rstrip("/") if local else ""


_FENCED = re.compile(r"^\s*(```|~~~)[^\n]*\n.*?(?:^\s*\1[^\n]*$|\Z)", re.M | re.S)
# Words that lead into a fence ("Claude Code:") and the block's first line.
_LED_CODE = re.compile(
    r":[ \t]*\n\s*(```|~~~)[^\n]*\n[ \t]*([^\n]*)\n.*?(?:^\s*\1[^\n]*$|\Z)", re.M | re.S
)
# A shell command: a program's name, then its arguments; not "forecast:" (YAML), "{"
# (JSON) or "- action: …" (a YAML list).
_COMMAND = re.compile(r"[a-z.][\w.+/-]*(?:\s+[^\s#][^#]*)?(?:\s#.*)?")


def _command_said(m: re.Match[str]) -> str:
    """A command the words lead into is said after them ("Claude Code: claude mcp add
    …"): the lead alone says nothing, and reading the command is the answer. Its
    continuation lines and comment are for reading."""
    line = m.group(2).strip()
    if not _COMMAND.fullmatch(line) or re.match(r"[\w.-]+:(?:\s|$)", line):
        return ":\n"
    command = line.split(" #", 1)[0].rstrip(" \\")
    return f": {command}.\n"


# reStructuredText's role before a literal (":meth:`send_task`") is markup, not a word.
_RST_ROLE = re.compile(r"(?<![\w:]):[a-z][\w-]*:(?=`)")
# A thing named with its link ("info-nano - https://… help-nano - https://…", list lines
# an HTML page's <br> joined): the names are said as a list, the links are not.
_NAMED_LINK = re.compile(r"(?<=\S)[ \t]+[-\u2013\u2014][ \t]+(<?" + URL_BODY + r">?)", re.I)
_LEFT_COMMA = re.compile(r"[,;]+(?=\s*(?:[.!?]\s|[.!?]?$))")


def _named_link(m: re.Match[str]) -> str:
    """The name alone, a comma after it; a local address (with a port) is said too."""
    link = _URL.match(m.group(1))
    return m.group(0) if link is not None and _said_url(link) else ","


def plain_text(text: str) -> str:
    """Markdown, URLs and citation markers removed; paragraphs and items become sentences.

    Fenced code (a config file, a command) is not read aloud when words come with it:
    "add Mnemolis to claude_desktop_config.json:" is said, its JSON is for reading.
    """
    text = _RST_ROLE.sub("", _LED_CODE.sub(_command_said, text))
    without_code = _FENCED.sub("\n", text)
    if _CITE.sub("", without_code).strip(" \n:"):  # a citation mark is no words
        # "add it to claude_desktop_config.json:" led into the code: now it ends a sentence.
        text = re.sub(r":[ \t]*(?=\n|$)", ".", without_code.rstrip())
    text = _join_lines(_NAMED_LINK.sub(_named_link, text))
    text = _MD_LINK.sub(lambda m: m.group(1), text)
    text = _SEE_URL.sub("", text)
    text = _URL.sub(_said_url, text)
    text = _LEFT_COMMA.sub("", _CITE.sub("", text))
    text = _MD_MARK.sub("", text)
    text = _CELL_BREAK.sub("; ", text)  # "Code: F28 | Meaning: …": cells read as clauses
    # Markup left over (a literal "[car, parking]" list too) is not said.
    text = re.sub(r"[*#|~`\[\]]+|(?<!\w)_+|_+(?!\w)", " ", text)
    text = re.sub(r"\s*\n\s*", ". ", text.strip())
    text = re.sub(r"\s+([,.;:!?])(?![\w/])", r"\1", text)
    text = re.sub(r"([.!?:])\.+", r"\1", text)
    text = re.sub(r"\(\s*\)", "", text)
    text = " ".join(text.split()).strip(" .")
    return text + "." if text and text[-1] not in "!?" else text


def _sentences(text: str) -> list[str]:
    """The plain text's sentences, a time aside left out."""
    plain = plain_text(_TIME_ASIDE.sub("", text))
    return [s for s in SENTENCE.split(plain) if s.strip(" .")] if plain else []


@functools.lru_cache(maxsize=512)  # voice assistants ask the same few things over and over
def spoken_form(text: str, max_sentences: int = 2, max_chars: int = MAX_SPOKEN_CHARS) -> str:
    """Plain text, its first sentences, cut at a word boundary when too long."""
    sentences = _sentences(text)
    if not sentences:
        return ""
    out = " ".join(sentences[:max_sentences])
    if len(out) > max_chars:
        out = out[: max_chars - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return out


def spoken_choosing(text: str, max_sentences: int, gives: Callable[[str], bool]) -> str:
    """The spoken form, but when none of its first sentences ``gives`` what was asked and
    a later one does, that one in place of the last ("is it still under guarantee?" is
    said the end date, though the quote opens with the length of the cover)."""
    said = spoken_form(text, max_sentences)
    sentences = _sentences(text)
    kept = sentences[:max_sentences]
    if not kept or any(gives(s) for s in kept):
        return said
    later = next((s for s in sentences[max_sentences:] if gives(s)), None)
    if later is None:
        return said
    return spoken_form(" ".join([*kept[:-1], later]), max_sentences)


def spoken_from_named(
    text: str, max_sentences: int, names: Callable[[str], frozenset[str]], steps: bool = False
) -> str:
    """The spoken form, but when the first sentence ``names`` nothing asked about and the
    second does, from the second: "Ben is allergic to bee stings." is the note's preamble
    to "where do you jab the EpiPen?", and would crowd out "push it into the thigh". When
    the last sentence kept names nothing asked that those before it do not, and a later
    one does, that one in its place: "For curry: Spice Garden, … They deliver until 11pm …
    Their korma is mild enough for Noah." is said with the korma, asked "is there a curry
    Noah can eat?".
    A procedure's ``steps`` are said in their order, none skipped."""
    sentences = _sentences(text)
    if len(sentences) <= max_sentences:
        return spoken_form(text, max_sentences)
    if not names(sentences[0]) and names(sentences[1]):
        sentences = sentences[1:]
    kept = sentences[:max_sentences]
    if steps or len(kept) < 2 or len(sentences) <= max_sentences:
        return spoken_form(" ".join(sentences), max_sentences)
    said = frozenset().union(*(names(s) for s in kept[:-1]))
    if names(kept[-1]) - said:
        return spoken_form(" ".join(sentences), max_sentences)
    later = next((s for s in sentences[max_sentences:] if names(s) - said), None)
    if later is None:
        return spoken_form(" ".join(sentences), max_sentences)
    return spoken_form(" ".join([*kept[:-1], later]), max_sentences)
