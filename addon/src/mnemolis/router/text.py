"""Text helpers shared by routing, decomposition and caching: one normal form."""

from __future__ import annotations

import re

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u00b4": "'", "`": "'"})
_CONTRACTIONS = (
    (re.compile(r"\b(can)'t\b"), r"\1 not"),
    (re.compile(r"\bwon't\b"), "will not"),
    (re.compile(r"\b(\w+)n't\b"), r"\1 not"),
    (re.compile(r"\b(it|what|that|there|who|where|how|when|he|she|here)'s\b"), r"\1 is"),
    (re.compile(r"\b(\w+)'re\b"), r"\1 are"),
    (re.compile(r"\b(\w+)'ll\b"), r"\1 will"),
    (re.compile(r"\b(\w+)'ve\b"), r"\1 have"),
    (re.compile(r"\b(\w+)'d\b"), r"\1 would"),
    (re.compile(r"\bi'm\b"), "i am"),
)
_TOKEN = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)?|[a-z0-9]+")
_SPACES = re.compile(r"\s+")

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


def normalize(text: str) -> str:
    """Lower case, straight apostrophes, contractions expanded, single spaces."""
    text = text.translate(_APOSTROPHES).lower()
    if "'" in text:
        for pattern, repl in _CONTRACTIONS:
            text = pattern.sub(repl, text)
    return _SPACES.sub(" ", text).strip()


def tokens(text: str) -> list[str]:
    """Word tokens of already-normalised text (numbers keep their decimals)."""
    return _TOKEN.findall(text)


def cache_key_text(text: str) -> str:
    """The form two questions must share to be treated as the same question."""
    return " ".join(tokens(normalize(text)))


def content_words(toks: list[str]) -> list[str]:
    """Tokens that say something: not stopwords, not lone letters."""
    return [t for t in toks if t not in STOPWORDS and (len(t) > 1 or t.isdigit())]
