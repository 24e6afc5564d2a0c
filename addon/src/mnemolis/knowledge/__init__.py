"""The knowledge store: document databases (Kura) and memories (MemorySmith)."""

from __future__ import annotations

from .store import KnowledgeStore, rag_limit, rag_mode
from .vectors import Embedder, HashingEmbedder

__all__ = ["Embedder", "HashingEmbedder", "KnowledgeStore", "rag_limit", "rag_mode"]
