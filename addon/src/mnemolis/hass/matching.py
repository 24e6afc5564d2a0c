"""Fuzzy matching of question words against entity names, aliases and areas."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from rapidfuzz import fuzz, process

MatchedOn = Literal["name", "alias", "area", "entity_id"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
# Words this short only match with the same first letter and at most one typo.
_SHORT = 4
# Below this two longer words are different words ("entrance" is not "dance").
_WORD_FLOOR = 75.0
# Extra words inside a matched window cost this much each ("living room's temperature").
_GAP_PENALTY = 8.0
# An area-only match ranks below any good name match.
_AREA_WEIGHT = 0.7
# From this many entities on, a question scores only those sharing a word with it.
INDEX_FROM = 200


def words(text: str) -> list[str]:
    """Lower-cased word tokens; possessive 's dropped."""
    cleaned = re.sub(r"['\u2019]s\b", "", text.lower())
    return _WORD.findall(cleaned)


def _stem(word: str) -> str:
    if len(word) > _SHORT and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _stemmed_score(a: str, b: str) -> float:
    if a == b:
        return 100.0
    la, lb = len(a), len(b)
    short = min(la, lb) <= _SHORT
    if short and a[0] != b[0]:
        # Short words: one typo at most, never a different first letter
        # ("dor" is "door", "hall" is not "shall").
        return 0.0
    floor = 85.0 if short else _WORD_FLOOR
    # fuzz.ratio is at most 200·min/(la+lb): most pairs ("is", "kitchen") are
    # decided by their lengths alone, without the C call.
    if 200.0 * min(la, lb) < floor * (la + lb):
        return 0.0
    score = float(fuzz.ratio(a, b))
    return score if score >= floor else 0.0


class Scorer:
    """Scores phrases against one question, remembering each word's similarities."""

    def __init__(self, query: Sequence[str]) -> None:
        self.query = [_stem(w) for w in query]
        self._memo: dict[str, list[float]] = {}
        self._best: dict[str, float] = {}

    def best(self, word: str) -> float:
        """The word's best similarity to any question word."""
        got = self._best.get(word)
        if got is None:
            got = self._best[word] = max(self.vector(word), default=0.0)
        return got

    def vector(self, word: str) -> list[float]:
        """The word's similarity to each question word."""
        got = self._memo.get(word)
        if got is None:
            stem = _stem(word)
            got = [_stemmed_score(stem, q) for q in self.query]
            self._memo[word] = got
        return got

    def phrase(self, phrase: Sequence[str], floor: float = 0.0) -> float:
        """How well the phrase occurs in the question, on word boundaries (0..100).

        A phrase that cannot beat ``floor`` even with every word at its best
        scores 0 without scanning the question's windows.
        """
        k = len(phrase)
        n = len(self.query)
        if k == 0 or n == 0:
            return 0.0
        bound = sum(self.best(w) for w in phrase) / k
        if bound <= 0.0 or bound < floor:
            return 0.0  # no word of the phrase is in the question, or too few
        vectors = [self.vector(w) for w in phrase]
        best = 0.0
        for size in (k, k + 1):
            if size > n:
                break
            for start in range(n - size + 1):
                free = list(range(start, start + size))
                total = 0.0
                for vec in vectors:
                    idx = max(free, key=vec.__getitem__)
                    total += vec[idx]
                    free.remove(idx)
                best = max(best, total / k - _GAP_PENALTY * (size - k))
                if best >= 100.0:
                    return 100.0
        return max(best, 0.0)


@dataclass(slots=True, frozen=True)
class EntityMatch:
    """One entity a question seems to be about, and why."""

    entity_id: str
    name: str
    area: str | None
    score: float
    matched_on: MatchedOn


@dataclass(slots=True)
class Candidate:
    """What an entity can be called: its name, aliases, area names and id."""

    entity_id: str
    name: str
    aliases: list[str] = field(default_factory=list)
    area: str | None = None
    area_names: list[str] = field(default_factory=list)
    phrases: list[tuple[list[str], MatchedOn]] = field(default_factory=list, repr=False)
    area_phrases: list[list[str]] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        name_words = words(self.name)
        self.phrases = [(name_words, "name")]
        split = words(_CAMEL.sub(" ", self.name))
        if split != name_words:
            self.phrases.append((split, "name"))  # "HeatPump" is also "heat pump"
        if self.area:
            area_words = words(self.area)
            if area_words and not set(area_words) <= set(name_words):
                # "Ceiling" in the Kitchen is also "kitchen ceiling".
                self.phrases.append((area_words + name_words, "name"))
        self.phrases += [(words(alias), "alias") for alias in self.aliases]
        object_id = self.entity_id.split(".", 1)[-1]
        self.phrases.append((words(object_id.replace("_", " ")), "entity_id"))
        self.area_phrases = [words(n) for n in self.area_names]

    @property
    def domain(self) -> str:
        """The entity's domain (``light`` for ``light.kitchen``)."""
        return self.entity_id.split(".", 1)[0]


@dataclass(slots=True, frozen=True)
class AreaMatch:
    """One area a question names."""

    area_id: str
    name: str
    score: float


def best_match(
    candidate: Candidate, scorer: Scorer, text: str, min_score: float = 0.0
) -> EntityMatch | None:
    """The strongest way the question names this candidate, or None."""
    best: tuple[float, MatchedOn] = (0.0, "name")
    if candidate.entity_id in text:
        best = (100.0, "entity_id")
    else:
        for phrase, how in candidate.phrases:
            score = scorer.phrase(phrase, max(best[0], min_score))
            if score > best[0]:
                best = (score, how)
    area_floor = max(best[0], min_score) / _AREA_WEIGHT
    area_score = max((scorer.phrase(p, area_floor) for p in candidate.area_phrases), default=0.0)
    if area_score * _AREA_WEIGHT > best[0]:
        best = (area_score * _AREA_WEIGHT, "area")
    score, how = best
    if score <= 0:
        return None
    return EntityMatch(candidate.entity_id, candidate.name, candidate.area, round(score, 1), how)


@dataclass(slots=True)
class CandidateIndex:
    """Candidates and, per word of their names, which use it.

    A candidate none of whose words resembles a word of the question scores 0
    on every phrase, so a question only scores the few candidates that share a
    (fuzzy) word with it: in a home of a thousand entities, a handful.
    """

    candidates: list[Candidate]
    vocabulary: list[str]
    stems: list[str]
    users: list[list[int]]

    @classmethod
    def build(cls, candidates: list[Candidate]) -> CandidateIndex:
        """Index every word of every name, alias, area and entity id."""
        by_word: dict[str, list[int]] = {}
        for i, cand in enumerate(candidates):
            seen: set[str] = set()
            for phrase in [p for p, _ in cand.phrases] + cand.area_phrases:
                for word in phrase:
                    if word not in seen:
                        seen.add(word)
                        by_word.setdefault(word, []).append(i)
        vocabulary = list(by_word)
        return cls(candidates, vocabulary, [_stem(w) for w in vocabulary], list(by_word.values()))

    def named_by(self, scorer: Scorer, lowered: str) -> list[Candidate]:
        """The candidates the question can name: a shared fuzzy word, or the entity id."""
        if len(self.candidates) < INDEX_FROM:
            return self.candidates  # a small home: scanning them all is cheaper
        picked: set[int] = set()
        if scorer.query and self.vocabulary:
            # One C call finds every (question word, name word) pair similar enough
            # to matter; the exact word rules then run on those pairs only.
            cutoff = min(_WORD_FLOOR, 85.0)
            matrix = process.cdist(
                scorer.query, self.stems, scorer=fuzz.ratio, score_cutoff=cutoff, workers=1
            )
            for col in sorted(set(matrix.nonzero()[1].tolist())):
                if any(scorer.vector(self.vocabulary[col])):
                    picked.update(self.users[col])
        if "." in lowered:
            picked.update(i for i, c in enumerate(self.candidates) if c.entity_id in lowered)
        return [self.candidates[i] for i in sorted(picked)]


def match(
    candidates: Iterable[Candidate] | CandidateIndex,
    text: str,
    *,
    domains: set[str] | None = None,
    limit: int = 5,
    min_score: float = 70.0,
) -> list[EntityMatch]:
    """Candidates the text names, best first, at least ``min_score``."""
    scorer = Scorer(words(text))
    lowered = text.lower()
    found: list[EntityMatch] = []
    if isinstance(candidates, CandidateIndex):
        candidates = candidates.named_by(scorer, lowered)
    for cand in candidates:
        if domains and cand.domain not in domains:
            continue
        got = best_match(cand, scorer, lowered, min_score)
        if got is not None and got.score >= min_score:
            found.append(got)
    found.sort(key=lambda m: (-m.score, m.matched_on != "name", m.entity_id))
    return found[:limit]


def match_areas(
    areas: Iterable[tuple[str, str, list[str]]], text: str, *, min_score: float = 85.0
) -> list[AreaMatch]:
    """Areas (id, name, aliases) the text names, best first."""
    scorer = Scorer(words(text))
    found: list[AreaMatch] = []
    for area_id, name, aliases in areas:
        score = max(scorer.phrase(words(n)) for n in [name, *aliases])
        if score >= min_score:
            found.append(AreaMatch(area_id, name, round(score, 1)))
    found.sort(key=lambda a: (-a.score, a.name))
    return found
