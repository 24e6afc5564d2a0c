"""The meaning stage: when the tables give no strong signal, which source is this about?

Compares a question with each source's profile (profiles.py: a description and
example requests) and with the live names of the home (entities, areas,
monitors, feeds, databases, memory tags):

* with the local embedding model loaded: cosine similarity of sentence vectors
  (the best-matching example of each source);
* without one: a lexical comparison of word stems, weighted by how few sources
  use a stem (so "weather" says more than "today").

It answers with a ranked list and, when one source is clearly ahead, the pick;
the router says which method decided and the scores in ``reason``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..knowledge.vectors import embed_queries, embed_queries_sync, known_query
from .profiles import PROFILES
from .text import content_words, normalize, stem, tokens

_LOGGER = logging.getLogger(__name__)

# Lexical: a pick needs this score and this lead over the runner-up.
LEXICAL_MIN = 1.7
LEXICAL_LEAD = 1.25
# ...and is sure enough to spare the embedding model (several of the question's words,
# far ahead): the model is asked only when the words leave doubt.
LEXICAL_SURE = 3.0
LEXICAL_SURE_LEAD = 2.0
LEXICAL_SURE_WORDS = 2
# Embedding: cosine a pick needs, and its lead over the runner-up.
EMBED_MIN = 0.40
EMBED_LEAD = 0.08

# Words too common in questions to tell sources apart.
_WEAK = frozenset(
    [
        "what",
        "which",
        "who",
        "how",
        "when",
        "where",
        "why",
        "tell",
        "show",
        "give",
        "me",
        "my",
        "our",
        "please",
        "now",
        "right",
        "moment",
        "currently",
        "much",
        "many",
        "any",
        "anything",
        "something",
        "thing",
        "things",
        "know",
        "like",
        "get",
        "got",
        "going",
        "want",
        "need",
        "make",
        "let",
        "new",
    ]
)


_TIMES = frozenset(
    ["today", "tonight", "tomorrow", "yesterday", "weekend", "morning", "afternoon", "evening"]
)


def stems(text: str) -> list[str]:
    """Content-word stems of a text."""
    return [stem(w) for w in content_words(tokens(normalize(text))) if w not in _WEAK]


@dataclass(slots=True)
class Ranking:
    """What the meaning stage found for one question."""

    method: str  # "embedding" | "lexical"
    scores: list[tuple[str, float]]  # best first
    pick: str | None
    why: str = ""
    sure: bool = False  # (lexical) clear enough that the embedding model is not asked

    def describe(self) -> str:
        """Scores for ``reason``: ``kiwix 0.61, web 0.48``."""
        fmt = "{:.2f}"
        return ", ".join(f"{s} {fmt.format(v)}" for s, v in self.scores[:3])


@dataclass(slots=True)
class _Lexicon:
    """Per-source stem weights built from profiles and live names."""

    weights: dict[str, dict[str, float]] = field(default_factory=dict)
    key: tuple[object, ...] = ()


class MeaningStage:
    """Ranks sources for a question by meaning (embedding) or by words (fallback)."""

    def __init__(self) -> None:
        self._lexicon = _Lexicon()
        self._matrix: npt.NDArray[np.float32] = np.zeros((0, 0), dtype=np.float32)
        self._rows: list[str] = []  # the source of each matrix row
        self._rows_of: dict[str, npt.NDArray[np.intp]] = {}
        self._vectors_of: str | None = None
        #: When a list, embeddings are not computed inline: the texts that need one are
        #: collected here (the async caller embeds them off the event loop, then re-plans).
        self.deferred: list[str] | None = None

    # --- lexical -------------------------------------------------------------------

    def _build_lexicon(self, names: Mapping[str, Iterable[str]], key: tuple[object, ...]) -> None:
        bags: dict[str, dict[str, float]] = {}
        for prof in PROFILES:
            bag = bags.setdefault(prof.source, {})
            for text in (prof.description, *prof.examples):
                for s in set(stems(text)):
                    bag[s] = bag.get(s, 0.0) + 1.0
        for source, items in names.items():
            bag = bags.setdefault(source, {})
            for name in items:
                for s in set(stems(str(name).replace("_", " "))):
                    bag[s] = bag.get(s, 0.0) + 2.0  # a live name's word is a strong hint
        df: dict[str, int] = {}
        for bag in bags.values():
            for s in bag:
                df[s] = df.get(s, 0) + 1
        n = len(bags)
        weights: dict[str, dict[str, float]] = {}
        for source, bag in bags.items():
            weights[source] = {
                s: (1.0 + math.log(c)) * math.log(1 + n / df[s]) for s, c in bag.items()
            }
        self._lexicon = _Lexicon(weights, key)

    def lexical(
        self,
        question: str,
        candidates: list[str],
        names: Callable[[], Mapping[str, Iterable[str]]],
        names_key: object,
    ) -> Ranking:
        """Word-stem overlap with each source's profile and live names."""
        if self._lexicon.key != (names_key,):
            self._build_lexicon(names(), (names_key,))
        qs = list(dict.fromkeys(stems(question)))
        scores: list[tuple[str, float]] = []
        matched: dict[str, int] = {}
        if qs:
            for source in candidates:
                w = self._lexicon.weights.get(source, {})
                # A time word ("tonight") hints at the forecast but decides nothing alone.
                total = sum(w.get(s, 0.0) * (0.5 if s in _TIMES else 1.0) for s in qs)
                if total > 0:
                    scores.append((source, total / math.sqrt(len(qs))))
                    matched[source] = sum(1 for s in qs if s in w)
        scores.sort(key=lambda kv: -kv[1])
        pick = _pick(scores, LEXICAL_MIN, LEXICAL_LEAD, ratio=True)
        sure = bool(
            pick is not None
            and scores[0][1] >= LEXICAL_SURE
            and matched.get(pick, 0) >= LEXICAL_SURE_WORDS
            and (len(scores) == 1 or scores[0][1] >= LEXICAL_SURE_LEAD * scores[1][1])
        )
        return Ranking("lexical", scores, pick, sure=sure)

    # --- embedding -----------------------------------------------------------------

    def _profile_texts(self) -> list[tuple[str, str]]:
        texts: list[tuple[str, str]] = []
        for prof in PROFILES:
            texts.append((prof.source, prof.description))
            texts.extend((prof.source, e) for e in prof.examples)
        return texts

    def _set_profiles(self, name: str, vectors: Any) -> None:
        self._matrix = np.asarray(vectors, dtype=np.float32)
        self._rows = [source for source, _ in self._profile_texts()]
        rows: dict[str, list[int]] = {}
        for i, source in enumerate(self._rows):
            rows.setdefault(source, []).append(i)
        self._rows_of = {s: np.asarray(r) for s, r in rows.items()}
        self._vectors_of = name

    def ready(self, embedder: Any) -> bool:
        """Whether the profiles' vectors for this model are computed."""
        return self._vectors_of == _name(embedder)

    async def vectors(self, embedder: Any, texts: list[str]) -> Callable[[], None]:
        """Embed, off the event loop, the profiles (once per model) and the questions a
        plan deferred; returns the step that stores the profiles, run where plans run (the
        router's planning thread), so a plan never sees them half stored. The questions'
        vectors go to the shared memo the sources read (one model call per question)."""
        name = _name(embedder)
        profiles = None if self.ready(embedder) else await embedder.embed(self._profile_list())
        todo = self._todo(embedder, texts)
        if todo:
            await embed_queries(embedder, todo)

        def store() -> None:
            if profiles is not None and self._vectors_of != name:
                self._set_profiles(name, profiles)

        return store

    def warm_sync(self, embedder: Any) -> None:
        """Blocking form of ``warm``."""
        if not self.ready(embedder):
            self._set_profiles(_name(embedder), embedder.embed_sync(self._profile_list()))

    def _profile_list(self) -> list[str]:
        return [t for _, t in self._profile_texts()]

    def _todo(self, embedder: Any, texts: list[str]) -> list[str]:
        return list(dict.fromkeys(t for t in texts if known_query(embedder, t) is None))

    def prepare_sync(self, embedder: Any, texts: list[str]) -> None:
        """Blocking form of ``prepare``: one call to the model for every part's question."""
        self.warm_sync(embedder)
        todo = self._todo(embedder, texts)
        if todo:
            embed_queries_sync(embedder, todo)

    def embedded(self, question: str, candidates: list[str], embedder: Any) -> Ranking | None:
        """Cosine of the question with each source's best examples; None if the model fails."""
        if not self.ready(embedder):
            return None
        q = known_query(embedder, question)
        if q is None:  # the planner embeds every deferred question in one call
            if self.deferred is not None and question not in self.deferred:
                self.deferred.append(question)
            return None
        sims = self._matrix @ q
        scores: list[tuple[str, float]] = []
        for source in candidates:
            rows = self._rows_of.get(source)
            if rows is None:
                continue
            values = np.sort(sims[rows])[::-1]
            top = values[:2]
            scores.append((source, float(0.7 * top[0] + 0.3 * top.mean())))
        scores.sort(key=lambda kv: -kv[1])
        return Ranking("embedding", scores, _pick(scores, EMBED_MIN, EMBED_LEAD, ratio=False))


def _name(embedder: Any) -> str:
    return str(getattr(embedder, "name", "embedder"))


def usable_embedder(embedder: Any) -> bool:
    """A loaded sentence-embedding model (not the knowledge store's hashing fallback)."""
    if embedder is None or not callable(getattr(embedder, "embed_sync", None)):
        return False
    if getattr(embedder, "name", "") == "hashing-fallback":
        return False
    return bool(getattr(embedder, "ready", True))


def _pick(scores: list[tuple[str, float]], floor: float, lead: float, *, ratio: bool) -> str | None:
    if not scores or scores[0][1] < floor:
        return None
    if len(scores) == 1:
        return scores[0][0]
    best, second = scores[0][1], scores[1][1]
    ahead = best >= second * lead if ratio else best - second >= lead
    return scores[0][0] if ahead else None
