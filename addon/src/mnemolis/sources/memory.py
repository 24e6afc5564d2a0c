"""The ``memory`` source: what people and agents asked Mnemolis to remember."""

from __future__ import annotations

from ..errors import SourceError, SourceNotConfigured, Unavailable
from ..knowledge.text import query_text
from ..models import Evidence, SourceAnswer
from .base import QueryContext, Source
from .rag import clip, knowledge_store, relevant_passages

MEMORIES = 3
# Other memories are read out only when they answer nearly as well as the best one.
ALSO = 0.9


class MemorySource(Source):
    """Live memories (Deprecated left out) that answer the question, the best one first."""

    name = "memory"
    description = "Memories stored with remember / POST /api/memories"
    cache_empty = True

    def cache_version(self) -> object:
        """A memory written, changed or deleted is recalled at once, never a cached answer."""
        store = knowledge_store(self.deps.services)
        if store is None:
            return None
        return (store.memories.generation, store.embedder().name)

    @property
    def configured(self) -> bool:
        return knowledge_store(self.deps.services) is not None

    async def query(self, question: str, ctx: QueryContext) -> SourceAnswer:
        store = knowledge_store(self.deps.services)
        if store is None:
            raise SourceNotConfigured("the memory store is not running")
        try:
            question = await store.respelled(query_text(question))
            weights = await store.term_weights(question)
            found = await store.memory_matches(question, weights, limit=10)
        except Unavailable as err:
            raise SourceError(err.message) from err
        relevant = [(m, r.value) for m, r in found if r.answers]
        if not relevant:
            return SourceAnswer(source=self.name, answer="")
        top = relevant[0][1]
        names = store.user_databases()
        if names:
            # A document that answers better is the answer ("who has a spare set of our
            # car keys?" is the house notes' Ruth, not the remembered front door key):
            # step aside, as the documents do for a memory, and the router asks them.
            documents = await relevant_passages(store, question, names, weights)
            if documents and documents[0][0].value > top:
                return SourceAnswer(source=self.name, answer="", data={"documents_answer": True})
        picked = [(m, r) for m, r in relevant if r >= top * ALSO][:MEMORIES]
        lines: list[str] = []
        evidence = []
        for m, r in picked:
            lines.append(clip(m.content, 500))
            evidence.append(
                Evidence(
                    source=self.name,
                    title=clip(m.content.splitlines()[0], 80),
                    text=m.content,
                    ref=f"memory:{m.id}",
                    score=m.score or 0.0,
                    timestamp=m.to_dict()["updated_at"],
                    relevance=r,
                )
            )
        body = lines[0] if len(lines) == 1 else "\n".join(f"- {line}" for line in lines)
        return SourceAnswer(source=self.name, answer=f"{body} [1, memory]", evidence=evidence)
