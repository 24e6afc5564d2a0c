"""Query text helpers shared by documents and memories: FTS5 quoting and RRF."""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence

from .. import textmatch
from ..language import stop_words_of, unaccented

_STOP = (
    "a an and are as at be but by can could did do does for from had has have how i if in is it "
    "its me my of on or our should so that the their them then there these they this to was we "
    "were what when where which who why will with would you your "
    "am been being us he she him her his hers "
    "im whats wheres whens hows whos thats"  # typed without apostrophes
)
# What a question says around its subject ("what is X called", "what does X mean").
_FILLER = "called mean means meaning please tell know need want ok okay much many get got"
STOPWORDS = frozenset(_STOP.split()) | frozenset(_FILLER.split())


#: What of a question is searched, embedded and judged: its end, where a question says
#: what it asks after what it tells ("… the pressure dropped. How do I top it up?"). The
#: model reads about 512 tokens at most, and a 4,000-character question cost a third of a
#: second of the model's only thread and seconds of judging on the event loop (issue 29).
MAX_QUERY_CHARS = 500


# A question longer than this is searched and judged on a worker thread: its full-text
# query and its judging grow with it. Shorter ones (nearly all) stay on the event loop,
# where a thread hop would cost more than the work (docs/benchmarks.md).
INLINE_QUERY_CHARS = 150


def query_text(text: str) -> str:
    """The end of a long question, up to MAX_QUERY_CHARS (cut at a word start)."""
    if len(text) <= MAX_QUERY_CHARS:
        return text
    cut = text[-MAX_QUERY_CHARS:]
    return cut.split(None, 1)[-1] if " " in cut.strip() else cut


# A word written with a hyphen between two short pieces is one word: "wi-fi", "hi-fi".
_COMPOUND = re.compile(r"\b([^\W\d_]{1,2})-([^\W\d_]{2,3})\b")


def joined(text: str) -> str:
    """The text with short hyphenated compounds written as one word ("wi-fi" → "wifi")."""
    return _COMPOUND.sub(r"\1\2", text)


def query_tokens(text: str) -> list[str]:
    """Lower-cased word tokens, stop words dropped unless nothing else is left (English's,
    and those of the language the question is in when it is not English).

    Contractions are expanded and possessives dropped first (textmatch), so
    "what's Dave's number?" asks for "dave" and "number", not for an "s"; "wi-fi"
    asks for "wifi".
    """
    words = textmatch.words(joined(textmatch.normalize(text)))
    foreign = stop_words_of(text)
    # Their lists hold some words only without accents ("cuanto", "cual"), as they are
    # often typed: "¿Cuánto …?" says the same function word.
    kept = [
        w
        for w in words
        if w not in STOPWORDS and not (foreign and (w in foreign or unaccented(w) in foreign))
    ]
    return list(dict.fromkeys(kept or words))


def fts_query(text: str, extra: Sequence[str] = ()) -> str | None:
    """An FTS5 MATCH expression that treats every word as a literal (no query language).

    Each token is double-quoted, so ``title:x``, ``a AND b``, ``auth*`` and stray
    quotes are plain words and never a syntax error. Words are OR-ed; BM25 ranks
    passages that contain more of them higher. ``extra`` words or phrases (synonyms,
    spellings the index holds) are OR-ed after the question's own; a phrase matches
    only its words in order.
    """
    tokens = query_tokens(text)
    if not tokens:
        return None
    tokens = list(dict.fromkeys([*tokens, *(w for w in extra if w not in STOPWORDS)]))
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in tokens[:64])


def rrf[K: Hashable](
    rankings: Sequence[Sequence[K]], k: int = 60, weights: Sequence[float] | None = None
) -> list[tuple[K, float]]:
    """Reciprocal Rank Fusion: sum of w/(k + rank); the score is a rank signal only."""
    scores: dict[K, float] = {}
    for i, ranking in enumerate(rankings):
        weight = weights[i] if weights is not None else 1.0
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
