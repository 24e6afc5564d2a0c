"""The knowledge store: document databases (Kura) and memories (MemorySmith)."""

from __future__ import annotations

from .embedder import Embedder, HashingEmbedder
from .store import KnowledgeStore, rag_limit, rag_mode

__all__ = ["Embedder", "HashingEmbedder", "KnowledgeStore", "rag_limit", "rag_mode"]
