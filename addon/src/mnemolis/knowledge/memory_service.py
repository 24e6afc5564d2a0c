"""The memory side of the knowledge store: remember, recall, edit, and the vectors behind them."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import InvalidArgument, MnemolisError, Unavailable
from ..settings import Settings
from . import relevance
from .formats import FORMATS, render
from .inline import inline_or_thread
from .memories import Memory, MemoryStore, check_content, fuse, parse_status, parse_tags
from .text import INLINE_QUERY_CHARS
from .vectors import Embedder, HashingEmbedder, embed_async, embed_blocking, embed_query
from .worker import RETRY_FIRST_S, RETRY_MAX_S, IndexWorker

_LOGGER = logging.getLogger(__name__)

MEMORY_MODES = ("lexical", "semantic", "hybrid")
INLINE_MAX_MEMORIES = 500


class MemoryService:
    """The memory store (``memories.MemoryStore``) as the knowledge store serves it."""

    def __init__(
        self,
        settings: Settings,
        worker: IndexWorker,
        stop: threading.Event,
        embedder: Callable[[], Embedder],
    ) -> None:
        self.settings = settings
        self.embedder = embedder  # the model when loaded, else the hashing fallback
        self.memories = MemoryStore(Path(settings.data_dir))
        self._executor = worker
        self._stop = stop
        self._loop: asyncio.AbstractEventLoop | None = None
        # "__memories__" -> (next try, back-off) while the store cannot open
        self._retry_at: dict[str, tuple[float, float]] = {}
        self._memories_embedded: set[str] = set()

    def _submit(self, fn: Callable[[], Any]) -> concurrent.futures.Future[Any]:
        return self._executor.submit(fn)

    # --- lifecycle -----------------------------------------------------------

    async def open(self) -> None:
        """Open the memory store; if it cannot, documents keep working, memory calls say why."""
        self._loop = asyncio.get_running_loop()
        try:
            await asyncio.to_thread(self.memories.open)
        except (sqlite3.Error, OSError) as err:
            # Documents keep working; memory calls answer 503 with the reason.
            self.memories.problem = f"cannot open {self.memories.path}: {err}"
            _LOGGER.error("%s", self.memories.problem)

    async def retry(self) -> None:
        """Open again a memory store that failed to open (a full disk), backing off."""
        now = time.monotonic()
        if self.memories.problem and not self.memories.is_open:
            due, delay = self._retry_at.get("__memories__", (0.0, RETRY_FIRST_S))
            if now < due:
                return
            try:
                await asyncio.to_thread(self.memories.open)
            except (sqlite3.Error, OSError) as err:
                _LOGGER.debug("memory store still cannot open: %s", err)
                self._retry_at["__memories__"] = (now + delay, min(delay * 2, RETRY_MAX_S))
                return
            _LOGGER.info("memory store %s opened on a retry", self.memories.path)
            self.memories.problem = None
            self._retry_at.pop("__memories__", None)
            self.submit_vectors()

    def submit_vectors(self) -> None:
        """Embed the memories that have no vector from the current embedder, on the worker."""

        def job() -> None:
            if self.memories.problem or self.memories.damaged:
                return
            embedder = self.embedder()
            self._memories_embedded.add(embedder.name)
            # The fallback never replaces a model's vector while a model is configured: at
            # start-up, before the model has loaded, it would, and the model would then
            # embed every memory again (as documents' vectors are kept, documents.py).
            bare_only = (
                isinstance(embedder, HashingEmbedder) and self.settings.llm.embedding_expected
            )
            while not self._stop.is_set():
                todo = self.memories.missing_vectors(embedder.name, bare_only=bare_only)
                if not todo:
                    return
                vecs = embed_blocking(embedder, [t for _, t in todo], self._loop)
                self.memories.store_vectors(
                    embedder.name, [(mid, v) for (mid, _), v in zip(todo, vecs, strict=True)]
                )

        self._submit(job)

    def reembed(self, name: str) -> None:
        """A new model: embed every memory with it in the background."""
        self._memories_embedded.add(name)
        self.submit_vectors()

    def problems(self) -> list[str]:
        """What is wrong with the memory store, for readiness (empty when well)."""
        problems = [self.memories.problem] if self.memories.problem else []
        if self.memories.damaged:
            problems.append(self.memories.damage_message())
        return problems

    # --- memories ------------------------------------------------------------

    def memory_tags(self) -> list[str]:
        """Tags in use, for routing signals."""
        try:
            return self.memories.tags()
        except (sqlite3.Error, Unavailable):
            return []

    async def _memory_vec(self, text: str) -> tuple[Any, str]:
        embedder = self.embedder()
        try:
            return (await embed_async(embedder, [text]))[0], embedder.name
        except Exception as err:
            _LOGGER.warning("memory embedding with %s failed: %s", embedder.name, err)
            # Saved without a vector: the next search with this embedder embeds it.
            self._memories_embedded.discard(embedder.name)
            return None, embedder.name

    async def remember(self, content: object, tags: object = None, status: object = None) -> Memory:
        """Store a memory; durable when this returns."""
        text = check_content(content)
        tag_list = parse_tags(tags)
        statuses = parse_status(status)
        vec, name = await self._memory_vec(f"{text} {json.dumps(tag_list, ensure_ascii=False)}")
        return await asyncio.to_thread(
            self.memories.create,
            text,
            tag_list,
            statuses[0] if statuses else "Unconsolidated",
            vec,
            name,
        )

    async def get_memory(self, mid: str) -> Memory:
        """One memory or 404."""
        return await asyncio.to_thread(self.memories.get, mid)

    async def update_memory(
        self, mid: str, *, content: object = None, tags: object = None, status: object = None
    ) -> Memory:
        """Edit content, tags or status."""
        text = check_content(content) if content is not None else None
        tag_list = parse_tags(tags) if tags is not None else None
        statuses = parse_status(status) if status is not None else []
        current = await self.get_memory(mid)
        vec = None
        name = ""
        if text is not None or tag_list is not None:
            new_text = text if text is not None else current.content
            new_tags = tag_list if tag_list is not None else current.tags
            vec, name = await self._memory_vec(
                f"{new_text} {json.dumps(new_tags, ensure_ascii=False)}"
            )
        return await asyncio.to_thread(
            lambda: self.memories.update(
                mid,
                content=text,
                tags=tag_list,
                status=statuses[0] if statuses else None,
                vec=vec,
                embedder=name,
            )
        )

    async def delete_memory(self, mid: str) -> None:
        """Delete or 404."""
        await asyncio.to_thread(self.memories.delete, mid)

    async def list_memories(
        self, *, tags: object = None, status: object = None, limit: int = 50, offset: int = 0
    ) -> tuple[list[Memory], int]:
        """Newest first, with filters."""
        return await asyncio.to_thread(
            self.memories.recent,
            parse_tags(tags),
            parse_status(status, allow_many=True),
            limit,
            offset,
        )

    async def recall(
        self,
        query: object = "",
        *,
        tags: object = None,
        status: object = None,
        mode: object = None,
        limit: int = 10,
    ) -> tuple[list[Memory], bool, dict[str, Any], str]:
        """Search memories: plain text + filters; empty query = newest first.

        Returns results, whether more matched than ``limit``, the filters as
        applied, and the mode used.
        """
        text = query.strip() if isinstance(query, str) else ""
        if query is not None and not isinstance(query, str):
            raise InvalidArgument("query must be a string")
        tag_list = parse_tags(tags)
        statuses = parse_status(status, allow_many=True)
        chosen = mode.strip().lower() if isinstance(mode, str) and mode.strip() else "hybrid"
        if chosen not in MEMORY_MODES:
            raise InvalidArgument(f"mode must be one of {', '.join(MEMORY_MODES)}")
        filters = {"tags": tag_list, "status": statuses}
        if not text:
            found, total = await asyncio.to_thread(self.memories.recent, tag_list, statuses, limit)
            return found, total > len(found), filters, "recent"
        want_lexical = chosen in ("lexical", "hybrid")
        want_semantic = chosen in ("semantic", "hybrid")
        embedder = self.embedder()
        vec: Any = None
        name = str(embedder.name)
        if want_semantic:
            try:  # awaited here, never waited for on the loop (issue 29)
                vec = await embed_query(embedder, text)
            except MnemolisError as err:  # busy or gone: the words still answer
                _LOGGER.info("memory search by words alone: %s", err.message)
            except Exception as err:  # the words still answer
                _LOGGER.warning("memory embedding with %s failed: %s", name, err)
            if name not in self._memories_embedded:
                # First search with this model: embed older memories in the background.
                self._memories_embedded.add(name)
                self.submit_vectors()
        floor = float(getattr(embedder, "min_similarity", relevance.SIMILARITY_NONE))

        def work() -> tuple[list[Memory], list[Memory]]:
            """Both rankings in one worker-thread hop (on the loop when the store is small)."""
            lexical = (
                self.memories.lexical(text, tag_list, statuses, limit + 1) if want_lexical else []
            )
            if not want_semantic:
                return lexical, []
            if vec is None:
                return lexical, []
            found = self.memories.semantic(name, vec, tag_list, statuses, limit + 1)
            return lexical, [m for m in found if (m.score or 0.0) >= floor]

        small = len(text) <= INLINE_QUERY_CHARS and self.memories.small_enough(INLINE_MAX_MEMORIES)
        lexical, semantic = await inline_or_thread(work, inline=small)
        if chosen == "lexical":
            results = lexical
        elif chosen == "semantic":
            results = semantic
        else:
            results = fuse([lexical, semantic], limit + 1, self.settings.routing.rrf_k)
        return results[:limit], len(results) > limit, filters, chosen

    def model_embedder(self) -> bool:
        """Whether a real embedding model (not the hashing fallback) ranks by meaning."""
        return not isinstance(self.embedder(), HashingEmbedder)

    async def memory_matches(
        self, question: str, weights: dict[str, float] | None = None, limit: int = 5
    ) -> list[tuple[Memory, relevance.Match]]:
        """Live memories (not Deprecated) and how each answers the question, best first."""
        live = "Unconsolidated,Working,Core"
        lexical, _, _, _ = await self.recall(question, status=live, mode="lexical", limit=limit)
        model = self.model_embedder()
        semantic: list[Memory] = []
        if model:
            semantic, _, _, _ = await self.recall(
                question, status=live, mode="semantic", limit=limit
            )
        cosine = {m.id: m.score for m in semantic}
        found = {m.id: m for m in [*lexical, *semantic]}
        scored = [
            (
                m,
                relevance.match(
                    question, weights, [m.content, " ".join(m.tags)], cosine.get(m.id), model=model
                ),
            )
            for m in found.values()
        ]
        return sorted(scored, key=lambda pair: pair[1].value, reverse=True)

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
        chosen = fmt.strip().lower() if isinstance(fmt, str) and fmt.strip() else "markdown"
        if chosen not in FORMATS:
            raise InvalidArgument(f"format must be one of {', '.join(FORMATS)}")
        results, truncated, filters, used = await self.recall(
            query, tags=tags, status=status, mode=mode, limit=limit
        )
        text = query.strip() if isinstance(query, str) else ""
        body, env = render(chosen, text, filters, results, truncated, used)
        return chosen, body, env
