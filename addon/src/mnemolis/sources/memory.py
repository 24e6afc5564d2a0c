"""The ``memory`` source: what people and agents asked Mnemolis to remember."""

from __future__ import annotations

from ..errors import SourceError, SourceNotConfigured, Unavailable
from ..knowledge.embedder import current_embedder
from ..models import Evidence, SourceAnswer
from .base import QueryContext, Source
from .rag import MIN_COVERAGE, clip, coverage, knowledge_store

MEMORIES = 5


class MemorySource(Source):
    """Hybrid memory search (Deprecated memories left out); must cover the question's words."""

    name = "memory"
    description = "Memories stored with remember / POST /api/memories"
    cache_empty = True

    def cache_version(self) -> object:
        """A memory written, changed or deleted is recalled at once, never a cached answer."""
        store = knowledge_store(self.deps.services)
        if store is None:
            return None
        return (store.memories.generation, getattr(current_embedder(store.services), "name", ""))

    @property
    def configured(self) -> bool:
        return knowledge_store(self.deps.services) is not None

    async def query(self, question: str, ctx: QueryContext) -> SourceAnswer:
        store = knowledge_store(self.deps.services)
        if store is None:
            raise SourceNotConfigured("the memory store is not running")
        try:
            found, _, _, _ = await store.recall(
                question, status="Unconsolidated,Working,Core", mode="hybrid", limit=10
            )
        except Unavailable as err:
            raise SourceError(err.message) from err
        relevant = [
            m for m in found if coverage(question, m.content, " ".join(m.tags)) >= MIN_COVERAGE
        ]
        if not relevant:
            return SourceAnswer(source=self.name, answer="")
        picked = relevant[:MEMORIES]
        lines = ["From memory:"]
        evidence = []
        for m in picked:
            tags = f" ({', '.join(m.tags)})" if m.tags else ""
            lines.append(f"- {clip(m.content, 500)}{tags}")
            evidence.append(
                Evidence(
                    source=self.name,
                    title=clip(m.content.splitlines()[0], 80),
                    text=m.content,
                    ref=f"memory:{m.id}",
                    score=m.score or 0.0,
                    timestamp=m.to_dict()["updated_at"],
                )
            )
        return SourceAnswer(source=self.name, answer="\n".join(lines), evidence=evidence)
