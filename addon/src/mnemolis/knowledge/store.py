"""The knowledge store: document databases and memories behind one object.

The server opens it with a watcher; ``mnemolis mcp`` and the CLI open it
without one. What it holds lives in ``documents.py`` (the databases: registry,
scanning, watching, search), ``memory_service.py`` (remember and recall) and
``bundles.py`` (context packs and source bundles); this facade opens, follows
and closes them together, so REST, MCP and the sources call one object.
Indexing runs on one worker thread (``worker.py``) shared by both sides.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..errors import Unavailable
from ..settings import Settings
from . import bundles, relevance
from .database import DocumentDatabase
from .documents import Documents, Speller, TermCounter, rag_limit, rag_mode
from .documents import Passage as Passage
from .memories import Memory, MemoryStore
from .memory_service import MemoryService
from .registry import Registration, Registry
from .vectors import Embedder, HashingEmbedder, current_embedder
from .worker import IndexWorker

if TYPE_CHECKING:
    from ..services import Services

__all__ = ["KnowledgeStore", "Passage", "rag_limit", "rag_mode", "store_of"]

_LOGGER = logging.getLogger(__name__)

REGISTRY_POLL_S = 2.0
CLOSE_WAIT_S = 5.0


def store_of(store: KnowledgeStore | None) -> KnowledgeStore:
    """The running store, or 503 when it is not (yet) open."""
    if store is None:
        raise Unavailable("the knowledge store is not running")
    return store


class KnowledgeStore:
    """Document databases + memories; see ``open``."""

    def __init__(
        self, settings: Settings, model: Callable[[], Embedder | None] | None = None
    ) -> None:
        self.settings = settings
        # The loaded embedding model, asked each time (it appears after start).
        self._model: Callable[[], Embedder | None] = model or (lambda: None)
        self.data_dir = Path(settings.data_dir)
        self.worker = IndexWorker("mnemolis-index")
        self._stop = threading.Event()
        self.documents = Documents(settings, self.worker, self._stop, self.embedder)
        self.memory = MemoryService(settings, self.worker, self._stop, self.embedder)
        self._closing = asyncio.Event()
        self._poll: asyncio.Task[None] | None = None
        self._closed = False

    # --- what callers read ---------------------------------------------------

    @property
    def databases(self) -> dict[str, DocumentDatabase]:
        """Open databases by name."""
        return self.documents.databases

    @property
    def registrations(self) -> dict[str, Registration]:
        """Registered databases by name (open or not)."""
        return self.documents.registrations

    @property
    def failed(self) -> dict[str, str]:
        """Registered databases that failed to open, with why."""
        return self.documents.failed

    @property
    def registry(self) -> Registry:
        """The registry file."""
        return self.documents.registry

    @property
    def watching(self) -> bool:
        """Whether folders are watched (the server)."""
        return self.documents.watching

    @property
    def memories(self) -> MemoryStore:
        """The memory table."""
        return self.memory.memories

    # --- lifecycle -----------------------------------------------------------

    @classmethod
    async def open(
        cls,
        settings: Settings,
        watch: bool = False,
        *,
        index: bool = True,
        model: Callable[[], Embedder | None] | None = None,
        follow_registry: bool = False,
    ) -> KnowledgeStore:
        """Open every registered database (skipping broken ones) and the memory store.

        ``watch`` keeps the indexes current (the server); ``index`` runs one
        catch-up scan in the background (changed, new and deleted files);
        ``follow_registry`` (implied by ``watch``) picks up databases another
        process added, removed or re-created (long-running ``mnemolis mcp``).
        """
        store = cls(settings, model)
        await store._open(watch=watch, index=index, follow=follow_registry or watch)
        return store

    async def _open(self, *, watch: bool, index: bool, follow: bool) -> None:
        await self.memory.open()
        await self.documents.open_registered()
        if index:
            scans = self.documents.catch_up_jobs()
            self.memory.submit_vectors()
            await self.documents.wait_bundled(scans)
        if watch:
            self.documents.watch_all()
        if follow:
            self._poll = asyncio.create_task(self._poll_registry())

    async def close(self) -> None:
        """Stop watchers and the worker (after its current file), close every database."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self._closing.set()
        tasks = self.documents.stop_watching()
        if self._poll is not None:
            tasks.append(self._poll)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.worker.shutdown()
        idle = await asyncio.to_thread(self.worker.join, CLOSE_WAIT_S)
        if not idle:
            # A file or a model embedding batch is still running; SQLite rolls its
            # open transaction back at exit, so leaving the connections is safe,
            # and the worker is a daemon thread: it never keeps the process alive.
            _LOGGER.warning("indexing worker still busy after %.0f s; not waiting", CLOSE_WAIT_S)
            return
        self.documents.close_all()
        self.memories.close()

    def publish(self, services: Services) -> None:
        """Share the store and its cheap lookups with the router, stats and MCP."""
        services.knowledge = self
        services.rag_names = self.names
        services.memory_tags = self.memory_tags
        services.documents_indexed = self.documents_indexed

    def embedder(self) -> Embedder:
        """The loaded embedding model, else the hashing fallback."""
        return current_embedder(self._model())

    def model_embedder(self) -> bool:
        """Whether a real embedding model (not the hashing fallback) ranks by meaning."""
        return not isinstance(self.embedder(), HashingEmbedder)

    async def wait_idle(self) -> None:
        """Wait until every queued indexing job has run (CLI and tests)."""
        await asyncio.wrap_future(self.worker.submit(lambda: None))

    async def _poll_registry(self) -> None:
        """Pick up databases added or removed by ``mnemolis rag``, and model changes."""
        docs = self.documents
        embedder_name = self.embedder().name
        while not self._closing.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), REGISTRY_POLL_S)
            if self._closing.is_set():
                return
            try:
                await docs.retry_failed()
                await self.memory.retry()
                docs.revive_watchers()
                now_name = self.embedder().name
                if now_name != embedder_name:
                    # A model appeared (or went): re-embed in the background right away.
                    embedder_name = now_name
                    _LOGGER.info(
                        "embedder is now %s; re-embedding databases and memories", now_name
                    )
                    for db in list(docs.databases.values()):
                        await asyncio.to_thread(docs.ensure_embedded, db, self.embedder())
                    self.memory.reembed(now_name)
                await asyncio.to_thread(docs.refresh_counts)
                replaced = docs.replaced_or_moved()
                if replaced is not None:
                    await docs.reconcile(replaced)
            except Exception as err:
                _LOGGER.warning("registry or watcher check failed: %s", err)

    # --- documents -----------------------------------------------------------

    def names(self) -> list[str]:
        """Loaded database names (what routing matches against)."""
        return self.documents.names()

    def generation(self) -> tuple[object, ...]:
        """Changes whenever a search could answer differently: databases, index, embedder."""
        return self.documents.generation()

    def documents_indexed(self) -> int:
        """Files indexed across every database (for /api/stats)."""
        return self.documents.documents_indexed()

    def watcher_running(self, name: str) -> bool:
        """Whether the folder of ``name`` is being watched right now (for status)."""
        return self.documents.watcher_running(name)

    def list_kura(self) -> dict[str, Any]:
        """``GET /api/list`` and ``list_rag``: the Kura shape, nothing more."""
        return self.documents.list_kura()

    async def status(self, name: str) -> dict[str, Any]:
        """Per-database status: files indexed, failures with reasons, last update."""
        return await self.documents.status(name)

    async def all_status(self) -> list[dict[str, Any]]:
        """Status of every registered database."""
        return await self.documents.all_status()

    async def register(self, name: object, path: object, *, wait: bool = False) -> dict[str, Any]:
        """Register and start indexing a folder (validated: name, roots, no escapes)."""
        return await self.documents.register(name, path, wait=wait)

    async def remove(self, name: object) -> None:
        """Forget a database and delete its index (never the folder itself)."""
        await self.documents.remove(name)

    async def reindex(self, name: object, *, wait: bool = True) -> dict[str, Any]:
        """Re-read every file of a database (changed or not) and re-embed."""
        return await self.documents.reindex(name, wait=wait)

    async def search_rag(
        self, db: object, q: object, limit: object = None, mode: object = None
    ) -> dict[str, Any]:
        """Kura ``search_rag``: results grouped by file under a key named after the mode."""
        return await self.documents.search_rag(db, q, limit, mode)

    async def search_all(
        self,
        q: str,
        limit: int = 5,
        mode: str = "hybrid",
        databases: list[str] | None = None,
        *,
        failed: list[str] | None = None,
    ) -> list[Passage]:
        """Best passages across the loaded databases (all, or those named)."""
        return await self.documents.search_all(q, limit, mode, databases, failed=failed)

    def user_databases(self) -> list[str]:
        """Loaded databases holding the household's own files (not the bundled docs)."""
        return self.documents.user_databases()

    async def term_weights(
        self, question: str, databases: list[str] | None = None
    ) -> dict[str, float]:
        """Rarity of the question's words in these databases (default: the household's own)
        and the memories (IDF)."""

        def memories() -> list[TermCounter]:
            return [] if self.memories.problem else [self.memories.term_counts]

        return await self.documents.term_weights(question, databases, memories)

    async def respelled(self, question: str) -> str:
        """The question with its typing slips mended against the household's words and the
        memories' (Mnemolis's docs only where those hold none): "recyling" is "recycling"."""

        def memories() -> list[Speller]:
            return [] if self.memories.problem else [self.memories.spellings]

        return await self.documents.respelled(question, memories)

    # --- memories ------------------------------------------------------------

    def memory_tags(self) -> list[str]:
        """Tags in use, for routing signals."""
        return self.memory.memory_tags()

    async def remember(self, content: object, tags: object = None, status: object = None) -> Memory:
        """Store a memory; durable when this returns."""
        return await self.memory.remember(content, tags, status)

    async def get_memory(self, mid: str) -> Memory:
        """One memory or 404."""
        return await self.memory.get_memory(mid)

    async def update_memory(
        self, mid: str, *, content: object = None, tags: object = None, status: object = None
    ) -> Memory:
        """Edit content, tags or status."""
        return await self.memory.update_memory(mid, content=content, tags=tags, status=status)

    async def delete_memory(self, mid: str) -> None:
        """Delete or 404."""
        await self.memory.delete_memory(mid)

    async def list_memories(
        self, *, tags: object = None, status: object = None, limit: int = 50, offset: int = 0
    ) -> tuple[list[Memory], int]:
        """Newest first, with filters."""
        return await self.memory.list_memories(tags=tags, status=status, limit=limit, offset=offset)

    async def recall(
        self,
        query: object = "",
        *,
        tags: object = None,
        status: object = None,
        mode: object = None,
        limit: int = 10,
    ) -> tuple[list[Memory], bool, dict[str, Any], str]:
        """Search memories: plain text + filters; empty query = newest first."""
        return await self.memory.recall(query, tags=tags, status=status, mode=mode, limit=limit)

    async def memory_matches(
        self, question: str, weights: dict[str, float] | None = None, limit: int = 5
    ) -> list[tuple[Memory, relevance.Match]]:
        """Live memories (not Deprecated) and how each answers the question, best first."""
        return await self.memory.memory_matches(question, weights, limit)

    async def recall_formatted(
        self,
        query: object = "",
        *,
        tags: object = None,
        status: object = None,
        mode: object = None,
        limit: int = 10,
        fmt: object = None,
    ) -> tuple[str, str, dict[str, Any]]:
        """Recall rendered as markdown/json/envelope: (format, text, envelope)."""
        return await self.memory.recall_formatted(
            query, tags=tags, status=status, mode=mode, limit=limit, fmt=fmt
        )

    # --- context packs and source bundles ------------------------------------

    async def context_pack(self, query: str, budget_chars: int) -> dict[str, Any]:
        """Best evidence across memories and databases, cut to the budget, cited."""
        return await bundles.context_pack(self.documents, self.memory, query, budget_chars)

    async def source_bundle(self, sources: list[str]) -> dict[str, Any]:
        """Full text of cited local files (only inside registered databases) or memories."""
        return await bundles.source_bundle(self.documents, self.memory, sources)

    # --- health --------------------------------------------------------------

    def health_detail(self) -> tuple[Literal["ok", "degraded", "down"], str]:
        """(state, detail) for readiness: degraded, with every reason, when a part is not well."""
        problems = self.memory.problems() + self.documents.problems()
        if problems:
            return "degraded", "; ".join(problems)
        embedder = self.embedder()
        return "ok", f"{len(self.databases)} database(s), embedder {embedder.name}"
