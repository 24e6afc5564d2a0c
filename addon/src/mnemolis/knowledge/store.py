"""The knowledge store: document databases and memories behind one object.

The server opens it with a watcher; ``mnemolis mcp`` and the CLI open it
without one. Indexing runs on one worker thread so the event loop keeps
answering; searches run on the default thread pool.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import json
import logging
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import Forbidden, InvalidArgument, NotFound, Unavailable
from ..settings import Settings
from . import relevance
from .database import DocumentDatabase, Hit, ScanReport
from .embedder import HashingEmbedder, current_embedder, embed_async, embed_blocking
from .formats import FORMATS, render
from .memories import Memory, MemoryStore, check_content, fuse, parse_status, parse_tags
from .registry import (
    BUNDLED_DIR,
    BUNDLED_NAME,
    Registration,
    Registry,
    RegistryData,
    check_folder,
    check_name,
    now_iso,
)
from .text import rrf

_LOGGER = logging.getLogger(__name__)

RAG_MODES = ("keyword", "semantic", "hybrid")
MEMORY_MODES = ("lexical", "semantic", "hybrid")
DEFAULT_LIMIT = 10
MAX_LIMIT = 100
WATCH_DEBOUNCE_MS = 400
REGISTRY_POLL_S = 2.0
MAX_BUNDLE_CHARS = 2_000_000
CLOSE_WAIT_S = 15.0
EMBED_JOB_BUDGET = 256
# Searches this small run on the event loop: a worker-thread hop costs more than
# the search itself, and under load the hops queue (docs/benchmarks.md).
INLINE_MAX_CHUNKS = 4000
# Hybrid: the model's ranking counts fully, the keyword ranking half (it adds exact
# names and codes the model misses; on natural questions the model ranks better).
HYBRID_WEIGHTS = (0.5, 1.0)
INLINE_MAX_MEMORIES = 500


def store_of(services: dict[str, Any]) -> KnowledgeStore:
    """The running store, or 503 when it is not (yet) open."""
    store = services.get("knowledge")
    if not isinstance(store, KnowledgeStore):
        raise Unavailable("the knowledge store is not running")
    return store


def rag_limit(value: object) -> int:
    """Kura rule: 1..100, default 10, anything invalid becomes 10."""
    if isinstance(value, bool):
        return DEFAULT_LIMIT
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            return DEFAULT_LIMIT
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and 1 <= value <= MAX_LIMIT:
        return value
    return DEFAULT_LIMIT


def rag_mode(value: object, default: str = "hybrid") -> str:
    """Case-insensitive mode name; unknown modes are an invalid argument."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    mode = value.strip().lower() if isinstance(value, str) else ""
    if mode not in RAG_MODES:
        raise InvalidArgument(f"invalid argument: mode must be one of {', '.join(RAG_MODES)}")
    return mode


class _Halt:
    """Stop signal for one database's job: the store closing or the database removed."""

    def __init__(self, *events: threading.Event) -> None:
        self.events = events

    def is_set(self) -> bool:
        return any(e.is_set() for e in self.events)


@dataclass(slots=True)
class Passage:
    """One search hit with its database, for the router and context packs."""

    db: str
    hit: Hit
    source: str
    score: float
    similarity: float | None = None  # cosine from the semantic ranking, when it ran


class KnowledgeStore:
    """Document databases + memories; see ``open``."""

    def __init__(self, settings: Settings, services: dict[str, Any] | None = None) -> None:
        self.settings = settings
        self.services: dict[str, Any] = services if services is not None else {}
        self.data_dir = Path(settings.data_dir)
        self.registry = Registry(self.data_dir)
        self.registrations: dict[str, Registration] = {}
        self.databases: dict[str, DocumentDatabase] = {}
        self.failed: dict[str, str] = {}
        self.memories = MemoryStore(self.data_dir)
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="mnemolis-index"
        )
        self._stop = threading.Event()
        self._watch_stop = asyncio.Event()
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._registry_mtime = 0
        self._closed = False
        self._memories_embedded: set[str] = set()
        self.watching = False

    # --- lifecycle -----------------------------------------------------------

    @classmethod
    async def open(
        cls,
        settings: Settings,
        watch: bool = False,
        *,
        index: bool = True,
        services: dict[str, Any] | None = None,
    ) -> KnowledgeStore:
        """Open every registered database (skipping broken ones) and the memory store.

        ``watch`` keeps the indexes current (the server); ``index`` runs one
        catch-up scan in the background (changed, new and deleted files).
        """
        store = cls(settings, services)
        await store._open(watch=watch, index=index)
        return store

    async def _open(self, *, watch: bool, index: bool) -> None:
        self._loop = asyncio.get_running_loop()
        try:
            await asyncio.to_thread(self.memories.open)
        except (sqlite3.Error, OSError) as err:
            # Documents keep working; memory calls answer 503 with the reason.
            self.memories.problem = f"cannot open {self.memories.path}: {err}"
            _LOGGER.error("%s", self.memories.problem)
        data = await asyncio.to_thread(self._load_registry)
        for reg in data.databases.values():
            await self._open_db(reg)
        if index:
            futures = {name: self._submit_scan(name) for name in list(self.databases)}
            self._submit_memory_vectors()
            bundled = futures.get(BUNDLED_NAME)
            if bundled is not None:
                # A few small files: wait so the very first question can use them.
                with contextlib.suppress(TimeoutError, concurrent.futures.TimeoutError):
                    await asyncio.wait_for(asyncio.wrap_future(bundled), 15)
        if watch:
            self.watching = True
            for name in list(self.databases):
                self._start_watch(name)
            self._tasks["__registry__"] = asyncio.create_task(self._poll_registry())

    def _load_registry(self) -> RegistryData:
        data = self.registry.load()
        if (
            BUNDLED_NAME not in data.databases
            and BUNDLED_NAME not in data.removed_builtin
            and BUNDLED_DIR.is_dir()
        ):
            data.databases[BUNDLED_NAME] = Registration(
                BUNDLED_NAME, str(BUNDLED_DIR), now_iso(), readonly=True
            )
            self.registry.save(data)
        elif BUNDLED_NAME in data.databases and data.databases[BUNDLED_NAME].readonly:
            # The package may have moved (upgrade, new venv): follow it.
            if data.databases[BUNDLED_NAME].path != str(BUNDLED_DIR):
                data.databases[BUNDLED_NAME].path = str(BUNDLED_DIR)
                self.registry.save(data)
        self._registry_mtime = self.registry.mtime_ns()
        self.registrations = dict(data.databases)
        return data

    async def _open_db(self, reg: Registration) -> None:
        db = DocumentDatabase(reg.name, Path(reg.path), self.data_dir / "rag" / reg.name)
        try:
            await asyncio.to_thread(db.open)
        except (sqlite3.Error, OSError) as err:
            self.failed[reg.name] = f"cannot open {db.db_path}: {err}"
            _LOGGER.warning("rag %s skipped: %s", reg.name, self.failed[reg.name])
            db.close()
            return
        self.failed.pop(reg.name, None)
        self.databases[reg.name] = db

    async def close(self) -> None:
        """Stop watchers and the worker (after its current file), close every database."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self._watch_stop.set()
        for task in self._tasks.values():
            task.cancel()
        for task in self._tasks.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        self._executor.shutdown(wait=False, cancel_futures=True)
        idle = await asyncio.to_thread(self._worker_idle, CLOSE_WAIT_S)
        if not idle:
            # A model embedding batch is still running; SQLite rolls its open
            # transaction back at exit, so leaving the connections is safe.
            _LOGGER.warning("indexing worker still busy after %.0f s; not waiting", CLOSE_WAIT_S)
            return
        for db in self.databases.values():
            db.close()
        self.memories.close()

    def _worker_idle(self, timeout: float) -> bool:
        """Wait for the indexing thread to finish its current job (bounded)."""
        deadline = time.monotonic() + timeout
        for thread in list(getattr(self._executor, "_threads", ())):
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                return False
        return True

    def publish(self, services: dict[str, Any]) -> None:
        """Share the store and its cheap lookups with the router, stats and MCP."""
        self.services = services
        services["knowledge"] = self
        services["rag_names"] = self.names
        services["memory_tags"] = self.memory_tags
        services["documents_indexed"] = self.documents_indexed

    # --- background work -----------------------------------------------------

    def _submit(self, fn: Callable[[], Any]) -> concurrent.futures.Future[Any]:
        return self._executor.submit(fn)

    def _submit_scan(self, name: str, *, force: bool = False) -> concurrent.futures.Future[Any]:
        return self._submit(lambda: self._scan_job(name, force))

    def _scan_job(self, name: str, force: bool) -> ScanReport | None:
        db = self.databases.get(name)
        if db is None or not db.is_open or self._stop.is_set():
            return None
        if not db.root.is_dir():
            db.last_error = f"folder {db.root} is missing; index kept until it returns"
            _LOGGER.warning("rag %s: %s", name, db.last_error)
            return None
        db.indexing = True
        started = time.perf_counter()
        try:
            report = db.scan(self._halt(db), force=force)
            self._embed_step(db)
            db.last_error = None
        except Exception as err:
            db.last_error = f"indexing failed: {type(err).__name__}: {err}"
            _LOGGER.exception("rag %s: indexing failed", name)
            return None
        finally:
            db.indexing = False
        _LOGGER.info(
            "rag %s: %d indexed, %d unchanged, %d removed, %d failed (%d chunks) in %.1f s",
            name,
            report.indexed,
            report.unchanged,
            report.removed,
            report.failed,
            report.chunks,
            time.perf_counter() - started,
        )
        return report

    def _update_job(self, name: str, paths: list[Path]) -> None:
        db = self.databases.get(name)
        if db is None or not db.is_open or self._stop.is_set():
            return
        db.indexing = True
        try:
            report = db.update_paths(paths, self._halt(db))
            self._embed_step(db)
            if report.indexed or report.removed or report.failed:
                _LOGGER.info(
                    "rag %s: watcher applied %d change(s), %d removal(s), %d failure(s)",
                    name,
                    report.indexed,
                    report.removed,
                    report.failed,
                )
        except Exception as err:
            db.last_error = f"indexing failed: {type(err).__name__}: {err}"
            _LOGGER.exception("rag %s: update failed", name)
        finally:
            db.indexing = False

    def _submit_memory_vectors(self) -> None:
        def job() -> None:
            if self.memories.problem:
                return
            embedder = current_embedder(self.services)
            self._memories_embedded.add(embedder.name)
            while not self._stop.is_set():
                todo = self.memories.missing_vectors(embedder.name)
                if not todo:
                    return
                vecs = embed_blocking(embedder, [t for _, t in todo], self._loop)
                self.memories.store_vectors(
                    embedder.name, [(mid, v) for (mid, _), v in zip(todo, vecs, strict=True)]
                )

        self._submit(job)

    def _start_watch(self, name: str) -> None:
        reg = self.registrations.get(name)
        if reg is None or reg.readonly or name not in self.databases:
            return
        self._tasks[name] = asyncio.create_task(self._watch(name), name=f"rag-watch-{name}")

    async def _watch(self, name: str) -> None:
        from watchfiles import awatch

        db = self.databases[name]
        while not self._watch_stop.is_set() and name in self.databases:
            if not db.root.is_dir():
                await asyncio.sleep(5)
                continue
            try:
                async for changes in awatch(
                    db.root,
                    stop_event=self._watch_stop,
                    debounce=WATCH_DEBOUNCE_MS,
                    step=50,
                    recursive=True,
                    ignore_permission_denied=True,
                ):
                    paths = sorted({Path(p) for _, p in changes})
                    job = functools.partial(self._update_job, name, paths)
                    await asyncio.wrap_future(self._submit(job))
            except asyncio.CancelledError:
                raise
            except Exception as err:
                _LOGGER.warning("rag %s: watcher stopped (%s); restarting", name, err)
                await asyncio.sleep(2)
                continue
            return

    async def _poll_registry(self) -> None:
        """Pick up databases added or removed by ``mnemolis rag``, and model changes."""
        embedder_name = current_embedder(self.services).name
        while not self._watch_stop.is_set():
            await asyncio.sleep(REGISTRY_POLL_S)
            now_name = current_embedder(self.services).name
            if now_name != embedder_name:
                # A model appeared (or went): re-embed in the background right away.
                embedder_name = now_name
                _LOGGER.info("embedder is now %s; re-embedding databases and memories", now_name)
                for db in list(self.databases.values()):
                    await asyncio.to_thread(
                        self._ensure_embedded, db, current_embedder(self.services)
                    )
                self._memories_embedded.add(now_name)
                self._submit_memory_vectors()
            mtime = self.registry.mtime_ns()
            if mtime == self._registry_mtime:
                continue
            try:
                await self._reconcile()
            except Exception as err:
                _LOGGER.warning("registry reload failed: %s", err)

    async def _reconcile(self) -> None:
        data = await asyncio.to_thread(self.registry.load)
        self._registry_mtime = self.registry.mtime_ns()
        for name in [n for n in self.registrations if n not in data.databases]:
            await self._drop(name, delete_files=False)
        for name, reg in data.databases.items():
            if name not in self.registrations:
                self.registrations[name] = reg
                await self._open_db(reg)
                if name in self.databases:
                    self._submit_scan(name)
                    if self.watching:
                        self._start_watch(name)

    async def _drop(self, name: str, *, delete_files: bool) -> None:
        task = self._tasks.pop(name, None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        db = self.databases.pop(name, None)
        self.registrations.pop(name, None)
        self.failed.pop(name, None)
        if db is not None:
            db.cancelled.set()  # a running job stops after its current file or batch
            # Close on the worker so an in-flight job finishes with open connections.
            await asyncio.wrap_future(self._submit(db.close))
        if delete_files:
            await asyncio.to_thread(shutil.rmtree, self.data_dir / "rag" / name, ignore_errors=True)

    # --- databases -----------------------------------------------------------

    def names(self) -> list[str]:
        """Loaded database names (what routing matches against)."""
        return sorted(self.databases)

    def generation(self) -> tuple[object, ...]:
        """Changes whenever a search could answer differently: databases, index, embedder."""
        embedder = current_embedder(self.services)
        dbs = tuple((name, db.generation) for name, db in self.databases.items())
        return (getattr(embedder, "name", ""), dbs)

    def documents_indexed(self) -> int:
        """Files indexed across every database (for /api/stats)."""
        return sum(db.files_indexed for db in self.databases.values())

    def memory_tags(self) -> list[str]:
        """Tags in use, for routing signals."""
        try:
            return self.memories.tags()
        except (sqlite3.Error, Unavailable):
            return []

    def list_kura(self) -> dict[str, Any]:
        """``GET /api/list`` and ``list_rag``: the Kura shape, nothing more."""
        return {
            "loaded": self.names(),
            "registered": [
                {"db": r.name, "createAt": r.created_at}
                for r in sorted(self.registrations.values(), key=lambda r: r.name)
            ],
        }

    def _db(self, name: object) -> DocumentDatabase:
        if not isinstance(name, str) or not name.strip():
            raise InvalidArgument("invalid argument: db is required")
        key = name.strip()
        db = self.databases.get(key)
        if db is None:
            if key in self.failed:
                raise Unavailable(f"database {key!r} failed to open: {self.failed[key]}")
            raise InvalidArgument(f'invalid argument: "{key}" not exist')
        return db

    async def status(self, name: str) -> dict[str, Any]:
        """Per-database status: files indexed, failures with reasons, last update."""
        reg = self.registrations.get(name)
        if reg is None:
            raise NotFound(f'database "{name}" does not exist')
        out: dict[str, Any] = {
            "db": name,
            "path": reg.path,
            "createAt": reg.created_at,
            "readonly": reg.readonly,
            "loaded": name in self.databases,
            "watching": name in self._tasks,
        }
        db = self.databases.get(name)
        if db is None:
            out["error"] = self.failed.get(name, "not loaded")
            return out
        out.update(await asyncio.to_thread(db.status))
        out["indexing"] = db.indexing
        out["embedding"] = db.reembedding
        out["error"] = db.last_error
        return out

    async def all_status(self) -> list[dict[str, Any]]:
        """Status of every registered database."""
        return [await self.status(n) for n in sorted(self.registrations)]

    async def register(self, name: object, path: object, *, wait: bool = False) -> dict[str, Any]:
        """Register and start indexing a folder (validated: name, roots, no escapes)."""
        key = check_name(name.strip() if isinstance(name, str) else name)
        folder = check_folder(self.settings, path)
        if key in self.registrations:
            raise InvalidArgument(f'invalid argument: "{key}" already exists')
        data = await asyncio.to_thread(self.registry.load)
        reg = Registration(key, str(folder), now_iso())
        data.databases[key] = reg
        if key == BUNDLED_NAME and key in data.removed_builtin:
            data.removed_builtin.remove(key)
        await asyncio.to_thread(self.registry.save, data)
        self._registry_mtime = self.registry.mtime_ns()
        self.registrations[key] = reg
        stale = self.data_dir / "rag" / key
        if stale.exists():
            await asyncio.to_thread(shutil.rmtree, stale, ignore_errors=True)
        await self._open_db(reg)
        if key not in self.databases:
            raise Unavailable(f"database {key!r} could not be created: {self.failed.get(key)}")
        future = self._submit_scan(key)
        if self.watching:
            self._start_watch(key)
        if wait:
            await asyncio.wrap_future(future)
        return await self.status(key)

    async def remove(self, name: object) -> None:
        """Forget a database and delete its index (never the folder itself)."""
        key = name.strip() if isinstance(name, str) else ""
        if key not in self.registrations:
            raise NotFound(f'database "{key}" does not exist')
        data = await asyncio.to_thread(self.registry.load)
        data.databases.pop(key, None)
        if key == BUNDLED_NAME:
            data.removed_builtin.append(key)
        await asyncio.to_thread(self.registry.save, data)
        self._registry_mtime = self.registry.mtime_ns()
        await self._drop(key, delete_files=True)

    async def reindex(self, name: object, *, wait: bool = True) -> dict[str, Any]:
        """Re-read every file of a database (changed or not) and re-embed."""
        key = name.strip() if isinstance(name, str) else ""
        if key not in self.registrations:
            raise NotFound(f'database "{key}" does not exist')
        if key not in self.databases:
            reg = self.registrations[key]
            await asyncio.to_thread(shutil.rmtree, self.data_dir / "rag" / key, True)
            await self._open_db(reg)
            if key not in self.databases:
                raise Unavailable(f"database {key!r} cannot be opened: {self.failed.get(key)}")
        future = self._submit_scan(key, force=True)
        report: ScanReport | None = None
        if wait:
            report = await asyncio.wrap_future(future)
        out = await self.status(key)
        if report is not None:
            out["reindexed"] = {
                "indexed": report.indexed,
                "removed": report.removed,
                "failed": report.failed,
                "chunks": report.chunks,
            }
        return out

    async def wait_idle(self) -> None:
        """Wait until every queued indexing job has run (CLI and tests)."""
        await asyncio.wrap_future(self._submit(lambda: None))

    def _ensure_embedded(self, db: DocumentDatabase, embedder: Any) -> None:
        """After a model change, re-embed in the background (keyword search keeps working)."""
        if db.indexing or db.reembedding or self._stop.is_set():
            return
        if db.embedded_with()[0] == embedder.name:
            return
        db.reembedding = True
        self._submit(functools.partial(self._embed_job, db))

    def _halt(self, db: DocumentDatabase) -> _Halt:
        return _Halt(self._stop, db.cancelled)

    def _embed_job(self, db: DocumentDatabase) -> None:
        try:
            if db.is_open and not self._halt(db).is_set():
                self._embed_step(db)
        except Exception:
            _LOGGER.exception("rag %s: embedding failed", db.name)
        finally:
            if not db.embed_pending:
                db.reembedding = False

    def _model_expected(self) -> bool:
        """Whether an embedding model is configured (``auto`` or a file), not turned off."""
        spec = (self.settings.llm.embedding_model or "auto").strip().lower()
        return spec not in ("off", "none")

    def _embed_step(self, db: DocumentDatabase) -> None:
        """Embed missing chunks; a model works in slices so other jobs interleave."""
        embedder = current_embedder(self.services)
        fallback = isinstance(embedder, HashingEmbedder)
        previous = db.embedder_name()
        if fallback and previous and previous != embedder.name and self._model_expected():
            # A model's vectors are not replaced by the hashing fallback while a model is
            # configured (a CLI without it, a server still loading it): new chunks wait.
            return
        budget = None if fallback else EMBED_JOB_BUDGET
        halt = self._halt(db)
        done = db.embed_missing(embedder, self._loop, halt, budget)
        db.embed_pending = budget is not None and done >= budget and not halt.is_set()
        if db.embed_pending:
            db.reembedding = True
            self._submit(functools.partial(self._embed_job, db))

    async def _rankings(
        self, db: DocumentDatabase, q: str, fetch: int, mode: str
    ) -> tuple[list[Hit], list[Hit]]:
        """Keyword and semantic rankings of one database (empty when the mode skips one)."""
        return (await self._rankings_of([db], q, fetch, mode))[0]

    async def _rankings_of(
        self, dbs: list[DocumentDatabase], q: str, fetch: int, mode: str
    ) -> list[tuple[list[Hit], list[Hit]]]:
        """Rankings of several databases in one worker-thread hop (one per question).

        Only an async (model) embedder is awaited on the loop first. Small
        databases whose vectors are already in memory are searched on the loop
        itself. A database that fails is logged and ranks nothing; the others
        still answer.
        """
        embedder = current_embedder(self.services)
        # Without a model, "semantic" is feature hashing: shared words again, noise in a
        # fusion with the keyword ranking. Hybrid is then the keyword ranking alone.
        semantic_on = mode == "semantic" or (
            mode == "hybrid" and not isinstance(embedder, HashingEmbedder)
        )
        vec = None
        if semantic_on and not callable(getattr(embedder, "embed_sync", None)):
            vec = (await embed_async(embedder, [q]))[0]
        floor = float(getattr(embedder, "min_similarity", relevance.SIMILARITY_NONE))
        single = len(dbs) == 1

        def one(db: DocumentDatabase, qvec: Any) -> tuple[list[Hit], list[Hit]]:
            keyword = db.search_keyword(q, fetch) if mode in ("keyword", "hybrid") else []
            semantic: list[Hit] = []
            if semantic_on:
                self._ensure_embedded(db, embedder)
                found = db.search_vector(embedder.name, qvec, fetch)
                semantic = [h for h in found if h.score >= floor]
            return keyword, semantic

        def work() -> list[tuple[list[Hit], list[Hit]]]:
            qvec = vec
            if semantic_on and qvec is None:
                qvec = embed_blocking(embedder, [q], None)[0]
            out: list[tuple[list[Hit], list[Hit]]] = []
            for db in dbs:
                try:
                    out.append(one(db, qvec))
                except sqlite3.Error as err:
                    if single:
                        raise
                    _LOGGER.warning("rag %s: search failed: %s", db.name, err)
                    out.append(([], []))
            return out

        inline = (not semantic_on or callable(getattr(embedder, "embed_sync", None))) and all(
            db.small_enough(INLINE_MAX_CHUNKS, vectors=semantic_on) for db in dbs
        )
        return work() if inline else await asyncio.to_thread(work)

    def _fuse(self, keyword: list[Hit], semantic: list[Hit], mode: str, limit: int) -> list[Hit]:
        if mode == "keyword":
            return keyword[:limit]
        if mode == "semantic":
            return semantic[:limit]
        by_id = {h.chunk_id: h for h in [*semantic, *keyword]}
        fused = rrf(
            [[h.chunk_id for h in keyword], [h.chunk_id for h in semantic]],
            self.settings.routing.rrf_k,
            HYBRID_WEIGHTS,
        )
        out = []
        for cid, score in fused[:limit]:
            h = by_id[cid]
            out.append(Hit(h.chunk_id, h.path, h.ord, h.heading, h.content, score))
        return out

    async def _passages(self, db: DocumentDatabase, q: str, limit: int, mode: str) -> list[Hit]:
        """Ranked hits of one database in one mode."""
        # Deep rankings for the fusion: a passage second in one list may be 40th in the other.
        fetch = max(limit * 5, 100) if mode == "hybrid" else limit
        keyword, semantic = await self._rankings(db, q, fetch, mode)
        return self._fuse(keyword, semantic, mode, limit)

    async def search_rag(
        self, db: object, q: object, limit: object = None, mode: object = None
    ) -> dict[str, Any]:
        """Kura ``search_rag``: results grouped by file under a key named after the mode."""
        database = self._db(db)
        if not isinstance(q, str) or not q.strip():
            raise InvalidArgument("invalid argument: q is required")
        query = q.strip()
        n = rag_limit(limit)
        chosen = rag_mode(mode)
        hits = await self._passages(database, query, n, chosen)
        if not hits:
            return {}
        grouped: dict[str, list[dict[str, Any]]] = {}
        for h in hits[:n]:
            source = database.file_path(h.path)
            grouped.setdefault(source, []).append({"chunk": h.ord, "content": h.content})
        return {chosen: [{"source": s, "matches": m} for s, m in grouped.items()]}

    async def search_all(
        self,
        q: str,
        limit: int = 5,
        mode: str = "hybrid",
        databases: list[str] | None = None,
    ) -> list[Passage]:
        """Best passages across the loaded databases (all, or those named).

        Keyword hits of all databases are pooled by BM25 score and semantic hits
        by similarity, then the two pooled rankings are fused with RRF.
        """
        fetch = max(limit * 5, 100)
        keyword: list[Passage] = []
        semantic: list[Passage] = []
        named = [
            (name, db)
            for name, db in self.databases.items()
            if databases is None or name in databases
        ]
        rankings = await self._rankings_of([db for _, db in named], q, fetch, mode)
        for (name, db), (kw, sem) in zip(named, rankings, strict=True):
            keyword.extend(Passage(name, h, db.file_path(h.path), h.score) for h in kw)
            semantic.extend(Passage(name, h, db.file_path(h.path), h.score) for h in sem)
        keyword.sort(key=lambda p: p.score, reverse=True)
        semantic.sort(key=lambda p: p.score, reverse=True)
        if mode == "keyword":
            return keyword[:limit]
        if mode == "semantic":
            return semantic[:limit]
        key = {(p.db, p.hit.chunk_id): p for p in [*semantic, *keyword]}
        similarity = {(p.db, p.hit.chunk_id): p.score for p in semantic}
        fused = rrf(
            [[(p.db, p.hit.chunk_id) for p in keyword], [(p.db, p.hit.chunk_id) for p in semantic]],
            self.settings.routing.rrf_k,
            HYBRID_WEIGHTS,
        )
        out = []
        for k, score in fused[:limit]:
            p = key[k]
            sim = similarity.get(k)
            out.append(Passage(p.db, p.hit, p.source, score, sim))
        return out

    def user_databases(self) -> list[str]:
        """Loaded databases holding the household's own files (not the bundled docs)."""
        return [name for name in self.databases if name != BUNDLED_NAME]

    async def term_weights(
        self, question: str, databases: list[str] | None = None
    ) -> dict[str, float]:
        """Rarity of the question's words in these databases (default: the household's own)
        and the memories (IDF)."""
        words = list(relevance.content_words(question))
        names = self.user_databases() if databases is None else databases
        dbs = [self.databases[n] for n in names if n in self.databases]

        def counts(terms: list[str]) -> tuple[dict[str, int], int]:
            freq: dict[str, int] = {}
            total = 0
            parts = [db.term_counts for db in dbs]
            if not self.memories.problem:
                parts.append(self.memories.term_counts)
            for part in parts:
                try:
                    found, n = part(terms)
                except (sqlite3.Error, Unavailable) as err:
                    _LOGGER.debug("term counts failed: %s", err)
                    continue
                total += n
                for term, df in found.items():
                    freq[term] = freq.get(term, 0) + df
            return freq, total

        if not words:
            return {}
        return await asyncio.to_thread(relevance.idf_weights, words, counts)

    # --- memories ------------------------------------------------------------

    async def _memory_vec(self, text: str) -> tuple[Any, str]:
        embedder = current_embedder(self.services)
        try:
            return (await embed_async(embedder, [text]))[0], embedder.name
        except Exception as err:
            _LOGGER.warning("memory embedding with %s failed: %s", embedder.name, err)
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
        embedder = current_embedder(self.services)
        in_thread = callable(getattr(embedder, "embed_sync", None))
        vec: Any = None
        name = str(embedder.name)
        if want_semantic:
            if not in_thread:  # a model embedder is awaited on the loop first
                vec, name = await self._memory_vec(text)
            if name not in self._memories_embedded:
                # First search with this model: embed older memories in the background.
                self._memories_embedded.add(name)
                self._submit_memory_vectors()
        floor = float(getattr(embedder, "min_similarity", relevance.SIMILARITY_NONE))

        def work() -> tuple[list[Memory], list[Memory]]:
            """Both rankings (and a synchronous embedding) in one worker-thread hop."""
            lexical = (
                self.memories.lexical(text, tag_list, statuses, limit + 1) if want_lexical else []
            )
            if not want_semantic:
                return lexical, []
            qvec = vec
            if qvec is None and in_thread:
                try:
                    qvec = embed_blocking(embedder, [text], None)[0]
                except Exception as err:  # the words still answer
                    _LOGGER.warning("memory embedding with %s failed: %s", name, err)
            if qvec is None:
                return lexical, []
            found = self.memories.semantic(name, qvec, tag_list, statuses, limit + 1)
            return lexical, [m for m in found if (m.score or 0.0) >= floor]

        small = in_thread and self.memories.small_enough(INLINE_MAX_MEMORIES)
        lexical, semantic = work() if small else await asyncio.to_thread(work)
        if chosen == "lexical":
            results = lexical
        elif chosen == "semantic":
            results = semantic
        else:
            results = fuse([lexical, semantic], limit + 1, self.settings.routing.rrf_k)
        return results[:limit], len(results) > limit, filters, chosen

    def model_embedder(self) -> bool:
        """Whether a real embedding model (not the hashing fallback) ranks by meaning."""
        return not isinstance(current_embedder(self.services), HashingEmbedder)

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

    # --- context packs and source bundles ------------------------------------

    async def context_pack(self, query: str, budget_chars: int) -> dict[str, Any]:
        """Best evidence across memories and databases, cut to the budget, cited."""
        q = query.strip()
        if not q:
            raise InvalidArgument("query is required")
        memories, _, _, _ = await self.recall(q, limit=10)
        passages = await self.search_all(q, limit=10)
        candidates: dict[str, dict[str, Any]] = {}
        for m in memories:
            candidates[f"memory:{m.id}"] = {
                "kind": "memory",
                "text": m.content,
                "citation": {
                    "source": "memory",
                    "title": m.content.splitlines()[0][:80],
                    "ref": f"memory:{m.id}",
                },
                "tags": m.tags,
                "status": m.status,
            }
        for p in passages:
            title = Path(p.hit.path).name + (f" — {p.hit.heading}" if p.hit.heading else "")
            candidates[f"rag:{p.db}:{p.hit.chunk_id}"] = {
                "kind": "document",
                "text": p.hit.content,
                "citation": {
                    "source": "rag",
                    "title": f"{p.db}: {title}",
                    "ref": p.source,
                    "db": p.db,
                    "chunk": p.hit.ord,
                },
            }
        order = rrf(
            [
                [f"memory:{m.id}" for m in memories],
                [f"rag:{p.db}:{p.hit.chunk_id}" for p in passages],
            ],
            self.settings.routing.rrf_k,
        )
        pieces: list[dict[str, Any]] = []
        used = 0
        dropped = 0
        for key, score in order:
            item = candidates[key]
            room = budget_chars - used
            if room <= 0:
                dropped += 1
                continue
            text = item["text"]
            cut = len(text) > room
            if cut:
                text = text[: max(room - 1, 0)].rstrip() + "…"
            pieces.append({**item, "text": text, "truncated": cut, "score": round(score, 6)})
            used += len(text)
        return {
            "query": q,
            "budget_chars": budget_chars,
            "used_chars": used,
            "pieces": pieces,
            "truncated": dropped > 0 or any(p["truncated"] for p in pieces),
        }

    def _locate(self, ref: str) -> tuple[DocumentDatabase, str]:
        """The database and relative path of a cited file; refuses anything outside them."""
        raw = ref.strip()
        if raw.startswith("file://"):
            raw = raw[len("file://") :]
        raw = raw.split("#", 1)[0]
        if not raw or "\x00" in raw:
            raise InvalidArgument(f"source {ref!r} is not a file path")
        path = Path(raw)
        if not path.is_absolute():
            raise InvalidArgument(
                f"source {ref!r} must be an absolute path or a citation ref from a result"
            )
        try:
            real = path.resolve(strict=True)
        except FileNotFoundError:
            raise NotFound(f"source {ref!r} does not exist") from None
        except (OSError, RuntimeError) as err:
            raise InvalidArgument(f"source {ref!r} cannot be resolved: {err}") from None
        for db in self.databases.values():
            if real == db.root or db.root not in real.parents:
                continue
            return db, real.relative_to(db.root).as_posix()
        raise Forbidden(f"source {ref!r} is outside every registered database")

    async def source_bundle(self, sources: list[str]) -> dict[str, Any]:
        """Full text of cited local files (only inside registered databases) or memories."""
        if not sources:
            raise InvalidArgument("sources must name at least one path or citation ref")
        files: list[dict[str, Any]] = []
        seen: set[str] = set()
        for ref in sources[:50]:
            if ref.strip().startswith("memory:"):
                memory = await self.get_memory(ref.strip().removeprefix("memory:"))
                files.append(
                    {
                        "path": f"memory:{memory.id}",
                        "db": "memory",
                        "chars": len(memory.content),
                        "truncated": False,
                        "text": memory.content,
                    }
                )
                continue
            db, rel = self._locate(ref)
            full = str(db.root / rel)
            if full in seen:
                continue
            seen.add(full)
            try:
                text = await asyncio.to_thread(db.read_text, rel)
            except FileNotFoundError:
                raise NotFound(f"source {ref!r} is not a regular file inside {db.name}") from None
            except Exception as err:
                raise InvalidArgument(f"source {ref!r} cannot be read: {err}") from None
            cut = len(text) > MAX_BUNDLE_CHARS
            files.append(
                {
                    "path": full,
                    "db": db.name,
                    "chars": len(text),
                    "truncated": cut,
                    "text": text[:MAX_BUNDLE_CHARS],
                }
            )
        return {"files": files}

    # --- health --------------------------------------------------------------

    def health_detail(self) -> tuple[Literal["ok", "degraded", "down"], str]:
        """(state, detail) for readiness: degraded when a database failed to open."""
        if self.memories.problem:
            return "degraded", self.memories.problem
        if self.failed:
            return "degraded", "failed to open: " + ", ".join(sorted(self.failed))
        embedder = current_embedder(self.services)
        return "ok", f"{len(self.databases)} database(s), embedder {embedder.name}"
