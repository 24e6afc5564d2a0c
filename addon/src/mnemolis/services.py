"""The parts of a running server that other parts borrow, each under its own typed name."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .discovery import SupervisorDiscovery
    from .hass.client import HAClient
    from .knowledge.store import KnowledgeStore
    from .knowledge.vectors import Embedder
    from .llm.service import LLMService
    from .sources.base import Source

SnapshotProvider = Callable[[], Awaitable[dict[str, Any]]]


@dataclass(slots=True, eq=False)
class Services:
    """What ``core.Mnemolis`` shares; ``None`` where a part is not running (yet)."""

    #: The inference service (chat and embedding models), from start.
    llm: LLMService | None = None
    #: The loaded sentence-embedding model, once it is usable (never the hashing fallback).
    embedder: Embedder | None = None
    #: Document databases and memories.
    knowledge: KnowledgeStore | None = None
    #: Cheap look-ups the router's vocabulary and the stats read (published by the store).
    rag_names: Callable[[], list[str]] | None = None
    memory_tags: Callable[[], list[str]] | None = None
    documents_indexed: Callable[[], int] | None = None
    #: The one Home Assistant client of this process, created by the first source using it.
    ha: HAClient | None = None
    #: Every source by name (the changes source reads the others).
    sources: dict[str, Source] = field(default_factory=dict)
    #: Structured-state readers sources offer the changes source, by source name.
    snapshots: dict[str, SnapshotProvider] = field(default_factory=dict)
    #: The Supervisor discovery announcer (add-on only).
    discovery: SupervisorDiscovery | None = None
