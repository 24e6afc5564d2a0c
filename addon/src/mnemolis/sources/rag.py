"""The ``rag`` source: the home's document databases answer with cited passages."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import SourceError, SourceNotConfigured
from ..knowledge.embedder import current_embedder
from ..knowledge.text import query_tokens
from ..models import Evidence, SourceAnswer
from .base import QueryContext, Source, SourceHealth

if TYPE_CHECKING:
    from ..knowledge.store import KnowledgeStore

MIN_COVERAGE = 0.5
MODEL_SIMILARITY = 0.5
PASSAGES = 3
PASSAGE_CHARS = 700
_WORD = re.compile(r"\w+", re.UNICODE)


@functools.lru_cache(maxsize=1024)
def _words_of(text: str) -> frozenset[str]:
    """Lower-cased words of a passage (the same passages come back question after question)."""
    return frozenset(w.lower() for w in _WORD.findall(text))


@functools.lru_cache(maxsize=256)
def _wanted(query: str) -> frozenset[str]:
    return frozenset(query_tokens(query))


def coverage(query: str, *texts: str) -> float:
    """Share of the question's content words that appear in the texts."""
    wanted = _wanted(query)
    if not wanted:
        return 0.0
    have: frozenset[str] = frozenset().union(*(_words_of(t) for t in texts))
    return len(wanted & have) / len(wanted)


def clip(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut at a word boundary."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip() + "…"


def knowledge_store(services: dict[str, object]) -> KnowledgeStore | None:
    """The running store, if any."""
    from ..knowledge.store import KnowledgeStore

    store = services.get("knowledge")
    return store if isinstance(store, KnowledgeStore) else None


class RagSource(Source):
    """Hybrid search over every loaded database; passages must cover the question's words."""

    name = "rag"
    description = "Your document databases (manuals, notes, PDFs) and Mnemolis's own docs"
    cache_empty = True

    def cache_version(self) -> object:
        """Re-indexing, a database added or removed, or a new embedder invalidates answers."""
        store = knowledge_store(self.deps.services)
        return None if store is None else store.generation()

    @property
    def configured(self) -> bool:
        store = knowledge_store(self.deps.services)
        return store is not None and bool(store.databases)

    async def health(self) -> SourceHealth:
        """The base health plus which databases are loaded and which failed."""
        health = await super().health()
        store = knowledge_store(self.deps.services)
        if store is not None:
            health.detail = {"databases": store.names(), "failed": sorted(store.failed)}
        return health

    async def query(self, question: str, ctx: QueryContext) -> SourceAnswer:
        store = knowledge_store(self.deps.services)
        if store is None or not store.databases:
            raise SourceNotConfigured("no document database is loaded")
        failed: list[str] = []
        passages = await store.search_all(question, limit=10, mode="hybrid", failed=failed)
        if failed and not passages:
            # Never an empty answer (that would be cached): the search did not run.
            raise SourceError(f"database(s) {', '.join(failed)} could not be searched")
        # A real embedding model may vouch for a passage that shares no words with the
        # question; the hashing fallback cannot, so then the words must match.
        embedder = current_embedder(self.deps.services)
        trusted = getattr(embedder, "min_similarity", None) is None
        relevant = [
            p
            for p in passages
            if coverage(question, p.hit.content, p.hit.heading) >= MIN_COVERAGE
            or (trusted and p.similarity is not None and p.similarity >= MODEL_SIMILARITY)
        ]
        if not relevant:
            if failed:
                raise SourceError(f"database(s) {', '.join(failed)} could not be searched")
            return SourceAnswer(source=self.name, answer="")
        # The best file's passages first, in reading order; then the next best files.
        best = relevant[0].source
        picked = sorted((p for p in relevant if p.source == best), key=lambda p: p.hit.ord)
        picked = (picked + [p for p in relevant if p.source != best])[:PASSAGES]
        evidence: list[Evidence] = []
        lines: list[str] = []
        for p in picked:
            title = Path(p.hit.path).name + (f" — {p.hit.heading}" if p.hit.heading else "")
            evidence.append(
                Evidence(
                    source=self.name,
                    title=f"{p.db}: {title}",
                    text=p.hit.content,
                    ref=p.source,
                    score=p.score,
                )
            )
            lines.append(f"From {p.db} / {title}:\n{clip(p.hit.content, PASSAGE_CHARS)}")
        return SourceAnswer(
            source=self.name,
            answer="\n\n".join(lines),
            evidence=evidence,
            # Part of the databases failed: answer, but never cache it (router/cache.py).
            data={
                "databases": sorted({p.db for p in picked}),
                **({"partial": True} if failed else {}),
            },
        )
