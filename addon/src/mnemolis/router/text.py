"""Routing's words: stopwords and content words over the shared normal form (textmatch)."""

from __future__ import annotations

import re
from re import _constants as _const  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

from ..textmatch import normalize, tokens

__all__ = [
    "STOPWORDS",
    "Matcher",
    "all_needles",
    "cache_key_text",
    "content_words",
    "needles_in",
    "normalize",
    "stem",
    "tokens",
]

# Words that carry no subject on their own; a question part needs at least one other word.
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "then",
        "so",
        "also",
        "too",
        "as",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "about",
        "into",
        "over",
        "under",
        "up",
        "down",
        "out",
        "off",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "done",
        "doing",
        "have",
        "has",
        "had",
        "having",
        "will",
        "would",
        "shall",
        "should",
        "can",
        "could",
        "may",
        "might",
        "must",
        "i",
        "me",
        "my",
        "mine",
        "we",
        "us",
        "our",
        "ours",
        "you",
        "your",
        "yours",
        "he",
        "him",
        "his",
        "she",
        "her",
        "hers",
        "it",
        "its",
        "they",
        "them",
        "their",
        "theirs",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "whether",
        "not",
        "no",
        "yes",
        "any",
        "some",
        "all",
        "each",
        "every",
        "just",
        "only",
        "very",
        "really",
        "please",
        "tell",
        "show",
        "give",
        "let",
        "know",
        "get",
        "got",
        "going",
        "go",
        "s",
        "t",
        "now",
        "ok",
        "okay",
        "hey",
        "hi",
        "hello",
        "thanks",
        "thank",
        "well",
        "again",
        "still",
        "yet",
        "than",
        "such",
    ]
)


def cache_key_text(text: str) -> str:
    """The form two questions must share to be treated as the same question."""
    return " ".join(tokens(normalize(text)))


def content_words(toks: list[str]) -> list[str]:
    """Tokens that say something: not stopwords, not lone letters."""
    return [t for t in toks if t not in STOPWORDS and (len(t) > 1 or t.isdigit())]


def stem(word: str) -> str:
    """A crude English stem: enough for "batteries"/"battery", "opened"/"open"."""
    for suffix, repl in (
        ("ies", "y"),
        ("ing", ""),
        ("ed", ""),
        ("es", ""),
        ("s", ""),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + repl
    return word


class Matcher:
    """A regular expression over normalised questions, searched cheaply.

    The router tries some hundred patterns per question part. Alternatives anchored
    at the start ("^why …") are matched at the start only; the others are searched
    only when one of the literals they start with is in the text (one loose
    alternative would otherwise make every alternative be tried at every position).
    """

    __slots__ = ("anchored", "loose", "needles", "pattern")

    def __init__(self, rx: str) -> None:
        self.pattern = rx
        alternatives = _top_level(rx)
        anchored = [a[1:] for a in alternatives if a.startswith("^")]
        loose = "|".join(a for a in alternatives if not a.startswith("^"))
        self.anchored = re.compile("|".join(f"(?:{a})" for a in anchored)) if anchored else None
        self.loose = re.compile(loose) if loose else None
        self.needles = _needles(loose) if loose else None

    def search(self, text: str, present: frozenset[str] | None = None) -> bool:
        """Whether the pattern matches somewhere in the (normalised) text.

        ``present``: the needles found in the text (``needles_in``), when the caller
        tries many matchers on one text.
        """
        if self.anchored is not None and (
            self.anchored.match(text) or (": " in text and self.anchored.match(_after_colon(text)))
        ):
            return True  # ("apples, pears and plums: which has most vitamin c")
        if self.loose is None:
            return False
        if self.needles is not None:
            if present is None:
                if not any(n in text for n in self.needles):
                    return False
            elif present.isdisjoint(self.needles):
                return False
        return self.loose.search(text) is not None


def _after_colon(text: str) -> str:
    return text.rsplit(": ", 1)[1]


def needles_in(text: str, needles: frozenset[str]) -> frozenset[str]:
    """Which of many matchers' needles are in a text (one pass for all of them)."""
    return frozenset(n for n in needles if n in text)


def all_needles(matchers: list[Matcher]) -> frozenset[str]:
    """Every needle of these matchers."""
    return frozenset(n for m in matchers for n in (m.needles or ()))


MIN_NEEDLE = 3  # shorter literal prefixes filter nothing: search the pattern
NEEDLE_LEN = 6  # longer ones are cut (fewer needles, each still a necessary substring)


def _needles(pattern: str) -> tuple[str, ...] | None:
    """Literal prefixes every match of ``pattern`` starts with, or None when there are none."""
    prefixes = _prefixes(list(_parser.parse(pattern)))
    found = {p for p, _ in prefixes}
    if not found or any(len(p) < MIN_NEEDLE for p in found):
        return None
    minimal = [p for p in found if not any(q != p and q in p for q in found)]
    return tuple(sorted(minimal))


def _prefixes(seq: list[tuple[Any, Any]]) -> list[tuple[str, bool]]:
    """(literal prefix, still open) pairs of a parsed sequence."""
    outs = [("", True)]
    for op, av in seq:
        new: list[tuple[str, bool]] = []
        for text, open_ in outs:
            if not open_:
                new.append((text, False))
            elif op is _const.LITERAL:
                new.append((text + chr(av), len(text) + 1 < NEEDLE_LEN))
            elif op is _const.AT:
                new.append((text, True))
            elif op is _const.SUBPATTERN:
                new.extend((text + t, o) for t, o in _prefixes(list(av[3])))
            elif op is _const.BRANCH:
                for alt in av[1]:
                    new.extend((text + t, o) for t, o in _prefixes(list(alt)))
            else:
                new.append((text, False))
        outs = list(dict.fromkeys(new))
    return outs


def _top_level(rx: str) -> list[str]:
    """A pattern's top-level alternatives (``a|b`` outside groups and classes)."""
    out, depth, start, i, klass = [], 0, 0, 0, False
    while i < len(rx):
        c = rx[i]
        if c == "\\":
            i += 2
            continue
        if klass:
            klass = c != "]"
        elif c == "[":
            klass = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            out.append(rx[start:i])
            start = i + 1
        i += 1
    out.append(rx[start:])
    return out
