"""One tokenizer and one Reciprocal Rank Fusion for routing, knowledge search and HA matching.

* ``normalize`` + ``tokens``: the normal form questions are compared in (lower case,
  straight apostrophes, English contractions expanded; Unicode word tokens, numbers
  keep their decimals).
* ``words``: tokens of raw text with possessive 's dropped (for names: "Anna's phone").
* ``rrf``: the sum over rankings of 1 / (k + rank), ranks from 1; a key met again in
  the same ranking keeps its best (first) rank.

The router uses these today; knowledge/text.py (``query_tokens``, ``rrf``) and
hass/matching.py (``words``) are the places that would switch to them.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Sequence

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u00b4": "'", "`": "'"})
_TOKEN = re.compile(r"[^\W_]+(?:[.,][0-9]+)?", re.UNICODE)
_POSSESSIVE = re.compile(r"['\u2019]s\b")
_SPACES = re.compile(r"\s+")


# The contractions as one pass: "what's the weather", "isn't", "can't" (same results as
# applying them in order, at a fraction of the cost on a router's hot path).
_CONTRACTION = re.compile(
    r"\b(?:(?P<cant>can)'t|(?P<wont>won)'t|(?P<nt>\w+)n't"
    r"|(?P<is>it|what|that|there|who|where|how|when|he|she|here)'s"
    r"|(?P<are>\w+)'re|(?P<will>\w+)'ll|(?P<have>\w+)'ve|(?P<would>\w+)'d|(?P<am>i)'m)\b"
)
_EXPANSION = {
    "cant": "{} not",
    "wont": "will not",
    "nt": "{} not",
    "is": "{} is",
    "are": "{} are",
    "will": "{} will",
    "have": "{} have",
    "would": "{} would",
    "am": "i am",
}


def _expand(m: re.Match[str]) -> str:
    kind = m.lastgroup or ""
    return _EXPANSION[kind].format(m.group(kind))


# What a phone keyboard writes for a word: "how do u reset it", "wen is bin day pls".
_SHORTHAND = {"u": "you", "ur": "your", "pls": "please", "plz": "please", "wen": "when"}
_SHORTHAND |= {"wat": "what", "wot": "what", "whr": "where", "thx": "thanks"}
_SHORTHAND |= {"hw": "how", "wats": "what's", "r": "are", "ppl": "people", "abt": "about"}
_SHORTHAND |= {"tmrw": "tomorrow", "tmr": "tomorrow", "b4": "before", "thru": "through"}
_SHORTHAND |= {"shud": "should", "cud": "could", "wud": "would", "cuz": "because"}
_SHORTHAND |= dict.fromkeys(("lol", "rn", "tbh", "btw", "omg", "idk", "ngl"), "")
# Never part of a longer word: "u-bend", "R-32", "b4's".
_SHORT = re.compile(rf"(?<![-'])\b(?:{'|'.join(_SHORTHAND)})\b(?![-'])", re.IGNORECASE)


# "No." for number: before its figures ("no. 12"), or closing what is asked ("policy
# no.?"), never a sentence's "No." (that opens one).
_NUMBER_NO = re.compile(r"\bno\.?\s*(?=\d)", re.IGNORECASE)
_NUMBER_NO_ASKED = re.compile(r"(?<=\w )no\.(?=\s*[?!]*\s*$)", re.IGNORECASE)


# "some thing", "any thing": one word written as two.
_THING = re.compile(r"\b(some|any|every)\s+(thing)\b", re.IGNORECASE)


# Shorthand that is a word of another language with another meaning: German's "wen" is
# "whom" ("Wen rufe ich an?"), Spanish's "u" is "or" ("siete u ocho"). Where it means
# the same ("wat" in Dutch), writing it out changes nothing the question asks.
_FALSE_FRIENDS: dict[str, frozenset[str]] = {
    "German": frozenset({"wen"}),
    "Spanish": frozenset({"u"}),
}


def unshortened(text: str, language: str | None = None) -> str:
    """The text with chat shorthand written out ("how do u …" → "how do you …", "no. 12"
    → "number 12", "the policy no.?" → "the policy number?", "some thing" → "something"),
    but for the words that mean another thing in the ``language`` it is in."""
    kept = _FALSE_FRIENDS.get(language or "", frozenset())
    text = _SHORT.sub(
        lambda m: m.group() if m.group().lower() in kept else _SHORTHAND[m.group().lower()],
        text,
    )
    text = _THING.sub(r"\1\2", text)
    return number_written(_NUMBER_NO.sub("number ", text))


def number_written(text: str) -> str:
    """ "the policy no.?" → "the policy number?": before its full stop goes with the "?"."""
    return _NUMBER_NO_ASKED.sub("number", text)


# What speech puts between words ("… flashing um how do I reset it"): never a word asked.
_FILLER = re.compile(r"\s*\b(?:u+m+|u+h+|e+r+m+|u+h+m+|h+m+|er)\b[,.]?", re.IGNORECASE)


def without_fillers(text: str) -> str:
    """The text without the "um"s and "erm"s a voice transcript keeps."""
    return _FILLER.sub("", text).strip()


def normalize(text: str) -> str:
    """Lower case, straight apostrophes, contractions and shorthand expanded, single spaces."""
    text = unshortened(text.translate(_APOSTROPHES).lower())
    while "'" in text:  # twice for stacked ones ("couldn't've")
        expanded = _CONTRACTION.sub(_expand, text)
        if expanded == text:
            break
        text = expanded
    return _SPACES.sub(" ", text).strip()


def tokens(text: str) -> list[str]:
    """Word tokens of already-normalised text (numbers keep their decimals)."""
    return _TOKEN.findall(text)


def words(text: str) -> list[str]:
    """Lower-cased word tokens of raw text, possessive 's dropped (names, aliases)."""
    return _TOKEN.findall(_POSSESSIVE.sub("", text.lower()))


def rrf_score(ranks: Iterable[int], k: int = 60) -> float:
    """One item's fused score from its rank (from 1) in each ranking that has it."""
    return sum(1.0 / (k + r) for r in ranks)


def rrf[K: Hashable](rankings: Iterable[Sequence[K]], k: int = 60) -> list[tuple[K, float]]:
    """Reciprocal Rank Fusion: keys by Σ 1/(k + rank), best first (ties keep first-seen order)."""
    ranks: dict[K, list[int]] = {}
    for ranking in rankings:
        seen: set[K] = set()
        for rank, key in enumerate(ranking, start=1):
            if key not in seen:
                seen.add(key)
                ranks.setdefault(key, []).append(rank)
    scores = {key: rrf_score(r, k) for key, r in ranks.items()}
    return sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
