"""Fuzzy matching of question words against entity names, aliases and areas."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from rapidfuzz import fuzz

MatchedOn = Literal["name", "alias", "area", "entity_id"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Words this short only match with the same first letter and at most one typo.
_SHORT = 4
# Below this two longer words are different words ("entrance" is not "dance").
_WORD_FLOOR = 75.0
# Extra words inside a matched window cost this much each ("living room's temperature").
_GAP_PENALTY = 8.0
# An area-only match ranks below any good name match.
_AREA_WEIGHT = 0.7


def words(text: str) -> list[str]:
    """Lower-cased word tokens; possessive 's dropped."""
    cleaned = re.sub(r"['\u2019]s\b", "", text.lower())
    return _WORD.findall(cleaned)


def _stem(word: str) -> str:
    if len(word) > _SHORT and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def word_score(a: str, b: str) -> float:
    """Similarity of two single words, 0..100; short words must nearly equal."""
    a, b = _stem(a), _stem(b)
    if a == b:
        return 100.0
    score = float(fuzz.ratio(a, b))
    if min(len(a), len(b)) <= _SHORT:
        # Short words: one typo at most, never a different first letter
        # ("dor" is "door", "hall" is not "shall").
        return score if a[0] == b[0] and score >= 85 else 0.0
    return score if score >= _WORD_FLOOR else 0.0


def phrase_score(phrase: Sequence[str], query: Sequence[str]) -> float:
    """How well a multi-word phrase occurs in the query, on word boundaries (0..100)."""
    k = len(phrase)
    if k == 0 or not query:
        return 0.0
    best = 0.0
    for size in (k, k + 1):
        if size > len(query):
            break
        for start in range(len(query) - size + 1):
            window = list(query[start : start + size])
            total = 0.0
            for word in phrase:
                scores = [word_score(word, w) for w in window]
                idx = max(range(len(scores)), key=scores.__getitem__)
                total += scores[idx]
                window.pop(idx)
            score = total / k - _GAP_PENALTY * (size - k)
            best = max(best, score)
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


def best_match(candidate: Candidate, query: Sequence[str], text: str) -> EntityMatch | None:
    """The strongest way the query names this candidate, or None."""
    scored: list[tuple[float, MatchedOn]] = []
    name_words = words(candidate.name)
    scored.append((phrase_score(name_words, query), "name"))
    if candidate.area:
        area_words = words(candidate.area)
        if area_words and not set(area_words) <= set(name_words):
            # "Ceiling" in the Kitchen is also "kitchen ceiling".
            scored.append((phrase_score(area_words + name_words, query), "name"))
    for alias in candidate.aliases:
        scored.append((phrase_score(words(alias), query), "alias"))
    if candidate.entity_id in text:
        scored.append((100.0, "entity_id"))
    else:
        object_id = candidate.entity_id.split(".", 1)[-1]
        scored.append((phrase_score(words(object_id.replace("_", " ")), query), "entity_id"))
    area_score = max((phrase_score(words(n), query) for n in candidate.area_names), default=0.0)
    scored.append((area_score * _AREA_WEIGHT, "area"))
    score, how = max(scored, key=lambda item: item[0])
    if score <= 0:
        return None
    return EntityMatch(candidate.entity_id, candidate.name, candidate.area, round(score, 1), how)


def match(
    candidates: Iterable[Candidate],
    text: str,
    *,
    domains: set[str] | None = None,
    limit: int = 5,
    min_score: float = 70.0,
) -> list[EntityMatch]:
    """Candidates the text names, best first, at least ``min_score``."""
    query = words(text)
    lowered = text.lower()
    found: list[EntityMatch] = []
    for cand in candidates:
        if domains and cand.domain not in domains:
            continue
        got = best_match(cand, query, lowered)
        if got is not None and got.score >= min_score:
            found.append(got)
    found.sort(key=lambda m: (-m.score, m.matched_on != "name", m.entity_id))
    return found[:limit]


def match_areas(
    areas: Iterable[tuple[str, str, list[str]]], text: str, *, min_score: float = 85.0
) -> list[AreaMatch]:
    """Areas (id, name, aliases) the text names, best first."""
    query = words(text)
    found: list[AreaMatch] = []
    for area_id, name, aliases in areas:
        score = max(phrase_score(words(n), query) for n in [name, *aliases])
        if score >= min_score:
            found.append(AreaMatch(area_id, name, round(score, 1)))
    found.sort(key=lambda a: (-a.score, a.name))
    return found
