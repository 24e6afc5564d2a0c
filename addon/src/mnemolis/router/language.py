"""The router's side of a question's language: what it says when nothing reads it, and
cutting a question in one breath at the language's "and"."""

from __future__ import annotations

import re

from ..assist.grammar import AND_WORDS
from ..language import ENGLISH, Language, code_of, detect

__all__ = ["ENGLISH", "ONLY_ENGLISH", "Language", "code_of", "detect", "split_and"]

ONLY_ENGLISH = "Sorry, I could not understand that."


def split_and(text: str, language: str | None) -> list[str]:
    """A question in one breath cut at commas and the language's "and" (the caller
    keeps the cut only when every piece reads as a question of its own)."""
    words = AND_WORDS.get(language or "", ())
    if not words:
        return [text]
    joined = "|".join(re.escape(w) for w in words)
    pieces = re.split(rf"\s*,\s*(?:(?:{joined})\s+)?|\s+(?:{joined})\s+", text, flags=re.I)
    return [p.strip(" ,") for p in pieces if p and p.strip(" ,")]
