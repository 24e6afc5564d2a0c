"""Deterministic routing signals: vocabulary hits plus fuzzy hits on live names."""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz, process

from .shapes import Context, shapes
from .text import STOPWORDS, all_needles, needles_in, normalize, stem, tokens
from .vocabulary import (
    HA_DEVICE_WORDS,
    INDOOR_AMBIGUOUS,
    MATCH,
    NAMING,
    PATTERNS,
    PHRASES,
    STRONG_SHARE,
    TIME_WORDS,
    WORDS,
)

_LOGGER = logging.getLogger(__name__)

FUZZY_CUTOFF = 88.0  # rapidfuzz ratio (0..100) a multi-letter n-gram needs to match a name
# Words of a question matched fuzzily against the live names (exact matches read it all):
# each word is compared with every name, so a 4,000-character question would cost the
# event loop a second in a large home (issue 29).
MAX_FUZZY_TOKENS = 64
FUZZY_MIN_CHARS = 5  # shorter names and n-grams only match exactly
MAX_NGRAM = 4


HitKind = str  # "word" | "phrase" | "naming" | "pattern" | "name" | "shape"


@dataclass(slots=True)
class Hit:
    """One reason a source scored: what matched and how much it counted."""

    source: str
    weight: float
    label: str
    naming: bool = False
    term: str = ""
    kind: HitKind = "word"
    beats: frozenset[str] = frozenset()  # (shapes) kinds of other sources' hits outranked
    hint: bool = False  # (names) a look-alike or part of another noun, not the name said


@dataclass(slots=True)
class Scores:
    """Every source's total and the hits behind it, for one question."""

    totals: dict[str, float] = field(default_factory=dict)
    hits: dict[str, list[Hit]] = field(default_factory=dict)
    names: dict[str, list[str]] = field(default_factory=dict)

    def add(self, hit: Hit) -> None:
        """Count one hit."""
        self.totals[hit.source] = self.totals.get(hit.source, 0.0) + hit.weight
        self.hits.setdefault(hit.source, []).append(hit)

    def ranked(self) -> list[tuple[str, float]]:
        """Sources by score, best first (ties keep vocabulary order)."""
        return sorted(self.totals.items(), key=lambda kv: -kv[1])

    def outranked(self) -> dict[str, str]:
        """Sources whose every hit is only a topic for another source's question shape.

        "How long is the guarantee on the fridge?": HA's “fridge” is what the
        question is about, the shape (a document) says who answers. Maps each
        outranked source to the shape that outranked it.
        """
        shaped = [h for hits in self.hits.values() for h in hits if h.kind == "shape"]
        out: dict[str, str] = {}
        if not shaped:
            return out
        for source, hits in self.hits.items():
            for shape in shaped:
                if shape.source != source and all(h.kind in shape.beats for h in hits):
                    out[source] = shape.label
                    break
        return out

    def strong(self) -> list[str]:
        """Sources that matched and sit within ``STRONG_SHARE`` of the best.

        When the question names sources outright ("the news", "the web"), the
        named ones are strong, and an unnamed one only if it scores as high as
        them: "what did the news say about the storm?" is a news question.
        A source outranked by another's question shape is never strong.
        """
        out = self.outranked()
        ranked = [(s, v) for s, v in self.ranked() if s not in out]
        if not ranked or ranked[0][1] < MATCH:
            return []
        best = ranked[0][1]
        named = [s for s, v in ranked if v >= MATCH and self.named(s)]
        if named:
            floor = min(self.totals[s] for s in named)
            return [s for s, v in ranked if v >= MATCH and (s in named or v >= floor)]
        return [s for s, v in ranked if v >= MATCH and v >= best * STRONG_SHARE]

    def named(self, source: str) -> bool:
        """Whether the question names this source outright ("the web", "Wikipedia")."""
        return any(h.naming for h in self.hits.get(source, []))

    def drop(self, source: str, terms: frozenset[str]) -> None:
        """Remove hits on these terms (an indoor "temperature" is not the forecast's)."""
        kept = [h for h in self.hits.get(source, []) if h.term not in terms]
        removed = sum(h.weight for h in self.hits.get(source, []) if h.term in terms)
        if not removed:
            return
        self.hits[source] = kept
        self.totals[source] -= removed
        if not kept:
            del self.hits[source]
            del self.totals[source]

    def said_name(self, source: str) -> bool:
        """Whether the question says one of this source's live names outright: not a
        look-alike ("garbage" ≈ "Garage") nor part of another noun ("wifi password")."""
        return any(h.kind == "name" and not h.hint for h in self.hits.get(source, []))

    def explain(self, source: str) -> str:
        """Short human reason: the labels that made ``source`` score."""
        labels = list(dict.fromkeys(h.label for h in self.hits.get(source, [])))
        return ", ".join(labels[:6])


# --- static index ---------------------------------------------------------------

_WORD_INDEX: dict[str, list[tuple[str, float]]] = {}
for _src, _words in WORDS.items():
    for _w, _weight in _words.items():
        _WORD_INDEX.setdefault(_w, []).append((_src, float(_weight)))

_PHRASE_INDEX: dict[str, list[tuple[tuple[str, ...], str, float]]] = {}
for _src, _phrases in PHRASES.items():
    for _p, _weight in _phrases.items():
        _toks = tuple(tokens(normalize(_p)))
        _PHRASE_INDEX.setdefault(_toks[0], []).append((_toks, _src, float(_weight)))

_PATTERN_NEEDLES = all_needles([p.regex for p in PATTERNS])

# One-word names too common to say anything about a source ("Home" is HA's zone).
GENERIC_NAMES = frozenset(
    {
        "home",
        "house",
        "sun",
        "moon",
        "weather",
        "forecast",
        "backup",
        "zone",
        "person",
        "everyone",
        "all",
        "default",
        "main",
        "test",
        "other",
        "misc",
        "general",
        "new",
        "old",
    }
)

# Words another source already owns strongly: a live name that is just this word adds nothing.
_OWNED_WORDS = frozenset(w for w, hits in _WORD_INDEX.items() if any(v >= 2 for _, v in hits))


# --- dynamic vocabularies ---------------------------------------------------------


@dataclass(slots=True)
class NameIndex:
    """Live names (entities, areas, monitors, feeds, databases, tags) of one source."""

    source: str
    exact: dict[tuple[str, ...], str] = field(default_factory=dict)
    long_names: list[str] = field(default_factory=list)
    long_display: list[str] = field(default_factory=list)
    signature: frozenset[str] = frozenset()

    @classmethod
    def build(cls, source: str, names: Iterable[object]) -> NameIndex:
        """Index names for exact token lookup and fuzzy comparison."""
        idx = cls(source)
        seen: set[str] = set()
        for raw in names:
            if not isinstance(raw, str):
                continue
            toks = tuple(tokens(normalize(raw.replace("_", " "))))
            toks = _trim_stopwords(toks)
            if not toks or len(toks) > MAX_NGRAM:
                continue
            if len(toks) == 1 and (
                toks[0] in STOPWORDS or toks[0] in _OWNED_WORDS or toks[0] in GENERIC_NAMES
            ):
                continue
            joined = " ".join(toks)
            if joined in seen:
                continue
            seen.add(joined)
            idx.exact[toks] = raw
            if len(joined) >= FUZZY_MIN_CHARS:
                idx.long_names.append(joined)
                idx.long_display.append(raw)
        idx.signature = frozenset(seen)
        return idx


@dataclass(slots=True)
class CombinedIndex:
    """Every source's names in one table, so a question is scanned once."""

    exact: dict[tuple[str, ...], list[tuple[str, str]]] = field(default_factory=dict)
    long_names: list[str] = field(default_factory=list)
    long_meta: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def build(cls, indexes: list[NameIndex]) -> CombinedIndex:
        """Merge per-source indexes."""
        out = cls()
        for idx in indexes:
            for gram, display in idx.exact.items():
                out.exact.setdefault(gram, []).append((idx.source, display))
            out.long_names.extend(idx.long_names)
            out.long_meta.extend((idx.source, d) for d in idx.long_display)
        return out


def _trim_stopwords(toks: tuple[str, ...]) -> tuple[str, ...]:
    start, end = 0, len(toks)
    while start < end and toks[start] in STOPWORDS:
        start += 1
    while end > start and toks[end - 1] in STOPWORDS:
        end -= 1
    return toks[start:end]


NameProvider = Callable[[], Iterable[str]]


class DynamicVocabulary:
    """Names fetched from live services, refreshed at most every ``ttl`` seconds."""

    def __init__(self, ttl: float = 10.0) -> None:
        self.ttl = ttl
        self.providers: dict[str, list[NameProvider]] = {}
        self.indexes: dict[str, NameIndex] = {}
        self._fetched: dict[str, float] = {}
        self._async_names: dict[str, list[str]] = {}
        self._combined: CombinedIndex | None = None
        self._combined_key: tuple[int, ...] = ()
        #: Moves whenever the combined index is rebuilt (plans memoised on it go stale).
        self.generation = 0

    def set_async_names(self, source: str, names: list[str]) -> None:
        """Names fetched by an async refresh (e.g. Uptime Kuma monitors)."""
        self._async_names[source] = names
        self._fetched.pop(source, None)

    def set_providers(self, providers: dict[str, list[NameProvider]]) -> None:
        """Replace the callables that yield each source's names."""
        self.providers = providers

    def index(self, source: str) -> NameIndex | None:
        """The (possibly refreshed) name index of one source."""
        now = time.monotonic()
        fetched = self._fetched.get(source)
        if fetched is not None and now - fetched < self.ttl:
            return self.indexes.get(source)
        names: list[str] = list(self._async_names.get(source, []))
        for provider in self.providers.get(source, []):
            try:
                names.extend(str(n) for n in provider() if n)
            except Exception as err:  # a broken provider must never break routing
                _LOGGER.debug("names for %s unavailable: %s", source, err)
        self._fetched[source] = now
        old = self.indexes.get(source)
        if old is not None and old.signature == frozenset(
            " ".join(_trim_stopwords(tuple(tokens(normalize(n.replace("_", " ")))))) for n in names
        ):
            return old
        idx = NameIndex.build(source, names)
        self.indexes[source] = idx
        return idx

    def combined(self) -> CombinedIndex | None:
        """One index over every source's names (rebuilt when any of them changes)."""
        indexes = self.all()
        if not indexes:
            return None
        key = tuple(id(i) for i in indexes)
        if self._combined is None or self._combined_key != key:
            self._combined = CombinedIndex.build(indexes)
            self._combined_key = key
            self.generation += 1
        return self._combined

    def all(self) -> list[NameIndex]:
        """Every source's index that has at least one name."""
        sources = set(self.providers) | set(self._async_names)
        out = []
        for source in sorted(sources):
            idx = self.index(source)
            if idx is not None and idx.exact:
                out.append(idx)
        return out


# --- scoring ----------------------------------------------------------------------

# A one-word memory tag ("work", "car") is a hint, not a match on its own.
DYNAMIC_WEIGHTS = {"ha": 2.0, "uptime": 2.5, "news": 3.0, "rag": 3.0, "memory": 1.5}


def score(question: str, dynamic: DynamicVocabulary | None = None) -> Scores:
    """Score every source for a question from words, phrases, patterns and live names."""
    text = normalize(question)
    toks = tokens(text)
    out = Scores()
    token_set = set(toks)
    for i, tok in enumerate(toks):
        for src, weight in _WORD_INDEX.get(tok, ()):
            naming = tok in NAMING.get(src, ())
            out.add(Hit(src, weight, f"“{tok}”", naming, tok, "naming" if naming else "word"))
        for phrase, src, weight in _PHRASE_INDEX.get(tok, ()):
            if tuple(toks[i : i + len(phrase)]) == phrase:
                term = " ".join(phrase)
                naming = term in NAMING.get(src, ())
                kind = "naming" if naming else _phrase_kind(src, phrase)
                out.add(Hit(src, weight, f"“{term}”", naming, term, kind))
    present = needles_in(text, _PATTERN_NEEDLES)
    for pat in PATTERNS:
        if pat.regex.search(text, present):
            out.add(Hit(pat.source, pat.weight, pat.label, kind="pattern"))
    if "forecast" in out.totals and out.totals["forecast"] >= 1.5:
        times = sorted(token_set & TIME_WORDS)
        if times:
            out.add(Hit("forecast", 0.5, f"“{times[0]}”"))
    if dynamic is not None:
        _score_names(toks, dynamic, out)
    for shape in shapes(Context(text, toks, out.names)):
        out.add(Hit(shape.source, shape.weight, shape.label, kind="shape", beats=shape.beats))
    if "forecast" in out.totals and not out.named("forecast") and _indoors(out, token_set):
        out.drop("forecast", INDOOR_AMBIGUOUS)  # "how warm is it in the hallway"
    return out


# An HA phrase that says a state ("lights on", "who is home", "power usage") asks about
# the home now, like a pattern; one that only names a thing ("garage door") is a topic.
_STATE_TOKENS = frozenset(
    [
        "on",
        "off",
        "open",
        "closed",
        "opened",
        "home",
        "away",
        "locked",
        "unlocked",
        "usage",
        "consumption",
        "energy",
        "power",
        "electricity",
        "playing",
        "running",
        "turned",
        "switched",
        "level",
        "still",
        "left",
        "quality",
        "detected",
    ]
)


def _phrase_kind(source: str, phrase: tuple[str, ...]) -> HitKind:
    return "pattern" if source == "ha" and _STATE_TOKENS.intersection(phrase) else "phrase"


def _indoors(out: Scores, token_set: set[str]) -> bool:
    """A live HA name, or a device of the home ("how cold is the fridge"), was said."""
    return "ha" in out.names or bool(HA_DEVICE_WORDS.intersection(token_set) - _OUTDOOR_DEVICES)


# Things of the home that are outdoors: "how cold is it in the garden" may be the weather.
_OUTDOOR_DEVICES = frozenset(["garage", "gate", "sprinkler", "irrigation", "mower", "door"])


def _ngrams(toks: list[str]) -> list[tuple[int, int, tuple[str, ...]]]:
    grams = []
    for n in range(MAX_NGRAM, 0, -1):
        for i in range(len(toks) - n + 1):
            gram = tuple(toks[i : i + n])
            if gram[0] in STOPWORDS or gram[-1] in STOPWORDS:
                continue
            grams.append((i, i + n, gram))
    return grams


def _score_names(toks: list[str], dynamic: DynamicVocabulary, out: Scores) -> None:
    combined = dynamic.combined()
    if combined is None:
        return
    grams = _ngrams(toks)
    used: dict[str, list[bool]] = {}
    found: dict[str, list[tuple[str, int, bool, int]]] = {}
    fuzzy: list[tuple[int, int, str]] = []
    for start, end, gram in grams:
        hits = combined.exact.get(gram)
        if hits:
            for source, display in hits:
                mask = used.setdefault(source, [False] * len(toks))
                if not any(mask[start:end]):
                    found.setdefault(source, []).append((display, end - start, True, start))
                    mask[start:end] = [True] * (end - start)
        joined = " ".join(gram)
        if len(joined) >= FUZZY_MIN_CHARS and end <= MAX_FUZZY_TOKENS:
            fuzzy.append((start, end, joined))
    if fuzzy and combined.long_names:
        matrix = process.cdist(
            [c[2] for c in fuzzy],
            combined.long_names,
            scorer=fuzz.ratio,
            score_cutoff=FUZZY_CUTOFF,
            workers=1,
        )
        rows, cols = matrix.nonzero()
        best: dict[tuple[int, str], tuple[float, str]] = {}
        for row, col in zip(rows.tolist(), cols.tolist(), strict=True):
            source, display = combined.long_meta[col]
            value = float(matrix[row, col])
            if value > best.get((row, source), (0.0, ""))[0]:
                best[(row, source)] = (value, display)
        for (row, source), (_value, display) in sorted(best.items()):
            start, end, joined = fuzzy[row]
            mask = used.setdefault(source, [False] * len(toks))
            if not any(mask[start:end]):
                # "recipe" for the "recipes" database is the name, not a typo of it.
                same = _stems(joined) == _name_stems(display)
                found.setdefault(source, []).append((display, end - start, same, start))
                mask[start:end] = [True] * (end - start)
    device_near = bool(HA_DEVICE_WORDS.intersection(toks))
    for source, names in found.items():
        base = DYNAMIC_WEIGHTS.get(source, 2.0)
        for name, length, exact, start in names[:3]:
            weight = base + (1.0 if length > 1 or (source == "ha" and device_near) else 0.0)
            # "garbage" ≈ "Garage"; "the town hall", "the guest wifi password": a hint at
            # the Garage, the Hall or the Password helper, not a match.
            hint = (not exact and length == 1 and not device_near) or (
                source == "ha" and length == 1 and _compound(toks, start)
            )
            if hint:
                weight = min(weight, 1.5)
            out.add(Hit(source, weight, f"name “{name}”", kind="name", hint=hint))
            out.names.setdefault(source, []).append(name)


def _compound(toks: list[str], start: int) -> bool:
    """A one-word name after a word the home does not know: part of another noun."""
    if start == 0:
        return False
    prev = toks[start - 1]
    if prev in STOPWORDS or prev.isdigit() or prev in _HA_WORDS:
        return False
    return prev not in _HOME_TOKENS


_HA_WORDS = frozenset(WORDS["ha"])
# Words a name of the home may be preceded by without being part of another noun.
_HOME_TOKENS = frozenset(
    [
        "upstairs",
        "downstairs",
        "front",
        "back",
        "main",
        "small",
        "big",
        "little",
        "large",
        "master",
        "guest",
        "kids",
        "childrens",
        "our",
        "your",
        "their",
        "his",
        "her",
        "whole",
        "entire",
    ]
)


def _stems(text: str) -> list[str]:
    return [stem(t) for t in tokens(text)]


@functools.lru_cache(maxsize=8192)
def _name_stems(display: str) -> list[str]:
    """A live name's stems (names repeat across questions; computed once each)."""
    return _stems(normalize(display.replace("_", " ")))


def describe(scores: Scores, sources: list[str]) -> str:
    """Why these sources were chosen, e.g. ``forecast: “rain”, “tomorrow”``."""
    return "; ".join(f"{s} {scores.totals.get(s, 0):.1f}: {scores.explain(s)}" for s in sources)


def snapshot(scores: Scores) -> dict[str, Any]:
    """Scores as plain data (for debugging and the benchmark)."""
    return {s: round(v, 2) for s, v in scores.ranked()}
