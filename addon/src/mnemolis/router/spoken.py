"""A short voice-friendly form of an answer: no markdown, no URLs, one or two sentences."""

from __future__ import annotations

import re

MAX_SPOKEN_CHARS = 300

_CITATION = re.compile(r"\s*\[\d+(?:,[^\]]*)?\]")
_URL = re.compile(r"\(?<?\bhttps?://\S+>?\)?|\bwww\.\S+")
_MD_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_MARKUP = re.compile(r"[*_`#>|~]+")
_BULLET = re.compile(r"^\s*(?:[-•*]|\d+[.)])\s+", re.MULTILINE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def spoken_form(text: str, max_sentences: int = 2) -> str:
    """What a voice assistant should say: plain words, first sentences only."""
    s = _MD_LINK.sub(r"\1", text)
    s = _CITATION.sub("", s)
    parts = _SENTENCE.split(s)
    without_links = [p for p in parts if not _URL.search(p)]
    if without_links and len(without_links) < len(parts):
        s = " ".join(without_links)  # "See https://… for more." says nothing aloud
    s = _URL.sub("", s)
    s = _BULLET.sub("", s)
    s = _MARKUP.sub("", s)
    lines = [ln.strip() for ln in s.splitlines() if ln.strip()]
    s = " ".join(ln if ln.endswith((".", "!", "?", ":")) else ln + "." for ln in lines)
    s = re.sub(r"\s+", " ", s).strip()
    sentences = [x for x in _SENTENCE.split(s) if x]
    out = " ".join(sentences[:max_sentences])
    if len(out) > MAX_SPOKEN_CHARS:
        cut = out[: MAX_SPOKEN_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;:")
        out = cut + "…"
    return out
