"""Fusing several sources' evidence: Reciprocal Rank Fusion, de-duplication, composition."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from ..models import Evidence, SourceAnswer, cited
from ..textmatch import rrf_score
from .text import normalize

NEAR_DUPLICATE = 90.0  # token_sort_ratio at or above which two evidence texts say the same
# Evidence this much less relevant than the most relevant item (both rated on
# knowledge/relevance.py's scale: documents, memories) is left out of the answer.
WEAKER = 0.75
MAX_COMPOSED = 4  # evidence items quoted in an extractive answer
SNIPPET_CHARS = 280


@dataclass(slots=True)
class Fused:
    """One evidence item with its fused score and the sources that also had it."""

    evidence: Evidence
    score: float
    also_in: list[str]


def rrf(rankings: Sequence[Sequence[Evidence]], k: int = 60) -> list[Fused]:
    """Reciprocal Rank Fusion over near-duplicate clusters.

    Items that say the same thing (same URL or near-identical text) form one
    cluster; a cluster scores Σ over rankings of 1 / (k + its best rank there),
    ranks starting at 1. The best-ranked member stands for the cluster, so a
    near-duplicate never appears twice and agreement between sources lifts it.
    """
    order = sorted(
        (
            (rank, li, ev)
            for li, ranking in enumerate(rankings)
            for rank, ev in enumerate(ranking, 1)
        ),
        key=lambda t: (t[0], t[1]),
    )
    clusters: list[Fused] = []
    best_rank: list[dict[int, int]] = []
    for rank, li, ev in order:
        for ci, cluster in enumerate(clusters):
            if is_near_duplicate(cluster.evidence, ev):
                ranks = best_rank[ci]
                ranks[li] = min(ranks.get(li, rank), rank)
                if ev.source != cluster.evidence.source and ev.source not in cluster.also_in:
                    cluster.also_in.append(ev.source)
                break
        else:
            clusters.append(Fused(ev, 0.0, []))
            best_rank.append({li: rank})
    for cluster, ranks in zip(clusters, best_rank, strict=True):
        cluster.score = rrf_score(ranks.values(), k)
    first_seen = {id(c): i for i, c in enumerate(clusters)}
    return _by_relevance(sorted(clusters, key=lambda c: (-c.score, first_seen[id(c)])))


def _by_relevance(ranked: list[Fused]) -> list[Fused]:
    """Among items tied on rank, the more relevant rated one first (a memory that
    answers before a document that shares a word); unrated items keep their place."""
    out = list(ranked)
    start = 0
    while start < len(out):
        end = start
        while end + 1 < len(out) and out[end + 1].score == out[start].score:
            end += 1
        slots = [i for i in range(start, end + 1) if out[i].evidence.relevance is not None]
        rated = sorted((out[i] for i in slots), key=lambda f: -(f.evidence.relevance or 0.0))
        for i, item in zip(slots, rated, strict=True):
            out[i] = item
        start = end + 1
    return out


def drop_weaker(fused: list[Fused]) -> list[Fused]:
    """Leave out rated evidence far less relevant than the best rated item."""
    rated = [f.evidence.relevance for f in fused if f.evidence.relevance is not None]
    if len(rated) < 2:
        return fused
    floor = max(rated) * WEAKER
    return [f for f in fused if f.evidence.relevance is None or f.evidence.relevance >= floor]


def _signature(ev: Evidence) -> str:
    return normalize(f"{ev.title} {ev.text[:400]}")


def is_near_duplicate(a: Evidence, b: Evidence) -> bool:
    """Same URL, or texts that say the same thing in nearly the same words."""
    if a.url and b.url and a.url.rstrip("/") == b.url.rstrip("/"):
        return True
    return fuzz.token_sort_ratio(_signature(a), _signature(b)) >= NEAR_DUPLICATE


def rankings_of(answers: Sequence[SourceAnswer]) -> list[list[Evidence]]:
    """Each source's ranked evidence; a bare answer counts as its single item."""
    out: list[list[Evidence]] = []
    for ans in answers:
        if ans.evidence:
            out.append(list(ans.evidence))
        elif ans.answer.strip():
            out.append([Evidence(source=ans.source, title=ans.source, text=ans.answer)])
    return out


def fuse(answers: Sequence[SourceAnswer], k: int = 60) -> list[Fused]:
    """RRF over every source's evidence, near-duplicates merged, much weaker items left out."""
    return drop_weaker(rrf(rankings_of(answers), k))


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """The first sentences of a text, up to ``limit`` characters, on one line."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    out = ""
    for sentence in _SENTENCE.split(flat):
        if out and len(out) + len(sentence) + 1 > limit:
            break
        out = f"{out} {sentence}".strip()
    if not out or len(out) > limit:
        out = flat[: limit - 1].rsplit(" ", 1)[0] + "…"
    return out


def compose_extractive(fused: Sequence[Fused], answers: Sequence[SourceAnswer]) -> str:
    """One answer quoting the best evidence, each line cited as [n] (n = citation order)."""
    lines: list[str] = []
    short = {a.source: a.answer.strip() for a in answers if a.answer.strip()}
    for n, f in enumerate(fused[:MAX_COMPOSED], start=1):
        ev = f.evidence
        text = snippet(ev.text) if ev.text.strip() else ev.title
        if ev.title and ev.title != ev.source and not text.startswith(ev.title):
            text = f"{ev.title}: {text}"
        who = ev.source + (f" (also {', '.join(f.also_in)})" if f.also_in else "")
        lines.append(cited(text, f"[{n}, {who}]"))
    if not lines:
        return "\n".join(f"{src}: {txt}" for src, txt in short.items())
    return "\n".join(lines)
