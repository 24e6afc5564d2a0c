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
import queue
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..errors import Forbidden, InvalidArgument, NotFound, Unavailable
from ..settings import Settings
from . import relevance
from .database import DocumentDatabase, Hit, OwnFiles, ScanReport, corrupt
from .formats import FORMATS, render
from .memories import Memory, MemoryStore, check_content, fuse, parse_status, parse_tags
from .parsing import FileLimits
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
from .vectors import Embedder, HashingEmbedder, current_embedder, embed_async, embed_blocking

if TYPE_CHECKING:
    from ..services import Services

_LOGGER = logging.getLogger(__name__)

RAG_MODES = ("keyword", "semantic", "hybrid")
MEMORY_MODES = ("lexical", "semantic", "hybrid")
DEFAULT_LIMIT = 10
MAX_LIMIT = 100
WATCH_DEBOUNCE_MS = 400
WATCH_CHECK_MS = 5000  # how often a watcher checks that its folder still exists
WATCH_RETRY_S = 5.0
REGISTRY_POLL_S = 2.0
MAX_BUNDLE_CHARS = 2_000_000
CLOSE_WAIT_S = 5.0
RETRY_FIRST_S = 5.0  # a database or memory store that failed to open is tried again
RETRY_MAX_S = 60.0
EMBED_JOB_BUDGET = 256
# Searches this small run on the event loop: a worker-thread hop costs more than
# the search itself, and under load the hops queue (docs/benchmarks.md).
INLINE_MAX_CHUNKS = 4000
# Hybrid: the model's ranking counts fully, the keyword ranking half (it adds exact
# names and codes the model misses; on natural questions the model ranks better).
HYBRID_WEIGHTS = (0.5, 1.0)
INLINE_MAX_MEMORIES = 500


def store_of(store: KnowledgeStore | None) -> KnowledgeStore:
    """The running store, or 503 when it is not (yet) open."""
    if store is None:
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


class IndexWorker:
    """One daemon thread running indexing jobs in order (a one-thread executor).

    Not a ``ThreadPoolExecutor``: Python joins those threads at exit, so a job
    stuck in one huge file kept a SIGTERM'd server alive for minutes. Jobs
    check the stop flag between files and PDF pages; whatever still runs when
    the process ends is rolled back by SQLite (WAL) and redone by the next
    start's catch-up scan.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._queue: queue.SimpleQueue[
            tuple[concurrent.futures.Future[Any], Callable[[], Any]] | None
        ] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False

    def submit(self, fn: Callable[[], Any]) -> concurrent.futures.Future[Any]:
        """Queue ``fn``; its future resolves when it has run."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot schedule new jobs after shutdown")
            self._queue.put((future, fn))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
        return future

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            future, fn = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = fn()
            except BaseException as err:
                future.set_exception(err)
            else:
                future.set_result(result)

    def shutdown(self) -> None:
        """Refuse new jobs, cancel queued ones; the running one finishes (or stops)."""
        with self._lock:
            self._closed = True
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    item[0].cancel()
            self._queue.put(None)

    def join(self, timeout: float) -> bool:
        """Wait (bounded) for the running job; True when the thread has ended."""
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()


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

    def __init__(
        self, settings: Settings, model: Callable[[], Embedder | None] | None = None
    ) -> None:
        self.settings = settings
        # The loaded embedding model, asked each time (it appears after start).
        self._model: Callable[[], Embedder | None] = model or (lambda: None)
        self.data_dir = Path(settings.data_dir)
        self.registry = Registry(self.data_dir)
        self.registrations: dict[str, Registration] = {}
        self.databases: dict[str, DocumentDatabase] = {}
        self.failed: dict[str, str] = {}
        self.memories = MemoryStore(self.data_dir)
        self._own = OwnFiles(self.data_dir)
        self._limits = FileLimits(
            max_pdf_pages=settings.rag.max_pdf_pages,
            max_chars=settings.rag.max_file_chars,
            max_chunks=settings.rag.max_file_chunks,
        )
        self._executor = IndexWorker("mnemolis-index")
        self._waiting_lock = threading.Lock()
        self._stop = threading.Event()
        # Each watcher has its own stop event: watchfiles sets the one it was given
        # when its task is cancelled, which must stop that watcher only.
        self._watch_stops: dict[str, asyncio.Event] = {}
        self._watch_live: set[str] = set()  # databases whose watcher is watching right now
        self._closing = asyncio.Event()
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._registry_marker = (0, 0, 0)
        self._retry_at: dict[str, tuple[float, float]] = {}  # name -> (next try, back-off)
        self._removed_builtin: list[str] = []
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
        if follow:
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
        self._registry_marker = self.registry.marker()
        self._removed_builtin = list(data.removed_builtin)
        self.registrations = dict(data.databases)
        return data

    async def _open_db(self, reg: Registration, *, retry: bool = False) -> None:
        db = DocumentDatabase(
            reg.name, Path(reg.path), self.data_dir / "rag" / reg.name, self._own, self._limits
        )
        try:
            await asyncio.to_thread(db.open)
        except (sqlite3.Error, OSError) as err:
            self.failed[reg.name] = f"cannot open {db.db_path}: {err}"
            log = _LOGGER.debug if retry else _LOGGER.warning
            log("rag %s skipped: %s (trying again in the background)", reg.name, err)
            db.close()
            return
        self.failed.pop(reg.name, None)
        self._retry_at.pop(reg.name, None)
        self.databases[reg.name] = db

    async def _retry_failed(self) -> None:
        """Open again what failed to open (a full disk, a folder not mounted yet), backing off.

        A database that recovers is caught up and watched like one opened at start.
        """
        now = time.monotonic()
        for name in [n for n, db in list(self.databases.items()) if db.damaged]:
            await self._rebuild(name)
        for name in list(self.failed):
            reg = self.registrations.get(name)
            if reg is None or name in self.databases:
                self.failed.pop(name, None)
                continue
            due, delay = self._retry_at.get(name, (0.0, RETRY_FIRST_S))
            if now < due:
                continue
            await self._open_db(reg, retry=True)
            if name not in self.databases:
                self._retry_at[name] = (now + delay, min(delay * 2, RETRY_MAX_S))
                continue
            _LOGGER.info("rag %s: opened on a retry; catching up", name)
            self._submit_scan(name)
            if self.watching:
                self._start_watch(name)
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
            self._submit_memory_vectors()

    async def close(self) -> None:
        """Stop watchers and the worker (after its current file), close every database."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self._closing.set()
        for stop in self._watch_stops.values():
            stop.set()
        for task in self._tasks.values():
            task.cancel()
        for task in self._tasks.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        self._executor.shutdown()
        idle = await asyncio.to_thread(self._executor.join, CLOSE_WAIT_S)
        if not idle:
            # A file or a model embedding batch is still running; SQLite rolls its
            # open transaction back at exit, so leaving the connections is safe,
            # and the worker is a daemon thread: it never keeps the process alive.
            _LOGGER.warning("indexing worker still busy after %.0f s; not waiting", CLOSE_WAIT_S)
            return
        for db in self.databases.values():
            db.close()
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

    # --- background work -----------------------------------------------------

    def _submit(self, fn: Callable[[], Any]) -> concurrent.futures.Future[Any]:
        return self._executor.submit(fn)

    def _submit_scan(self, name: str, *, force: bool = False) -> concurrent.futures.Future[Any]:
        db = self.databases.get(name)
        if db is None:
            return self._submit(lambda: self._scan_job(name, force))
        with self._waiting_lock:
            db.scans_waiting += 1

        def job() -> ScanReport | None:
            with self._waiting_lock:
                db.scans_waiting -= 1
            return self._scan_job(name, force)

        try:
            return self._submit(job)
        except BaseException:
            with self._waiting_lock:
                db.scans_waiting -= 1
            raise

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
            if isinstance(err, sqlite3.Error) and corrupt(err):
                db.damaged = str(err)
            return None
        finally:
            db.indexing = False
        _LOGGER.info(
            "rag %s: %d indexed, %d unchanged, %d removed, %d failed, %d cut (%d chunks) in %.1f s",
            name,
            report.indexed,
            report.unchanged,
            report.removed,
            report.failed,
            report.cut,
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
            if isinstance(err, sqlite3.Error) and corrupt(err):
                db.damaged = str(err)
        finally:
            db.indexing = False

    def _submit_memory_vectors(self) -> None:
        def job() -> None:
            if self.memories.problem or self.memories.damaged:
                return
            embedder = self.embedder()
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

    def _start_watch(self, name: str, *, catch_up: bool = False) -> None:
        reg = self.registrations.get(name)
        if reg is None or reg.readonly or name not in self.databases or self._closing.is_set():
            return
        stop = asyncio.Event()
        self._watch_stops[name] = stop
        self._watch_live.add(name)  # until it finds the folder missing or stops
        self._tasks[name] = asyncio.create_task(
            self._watch(name, stop, catch_up), name=f"rag-watch-{name}"
        )

    def watcher_running(self, name: str) -> bool:
        """Whether the folder of ``name`` is being watched right now (for status)."""
        task = self._tasks.get(name)
        return task is not None and not task.done() and name in self._watch_live

    async def _watch(self, name: str, stop: asyncio.Event, catch_up: bool) -> None:
        """Watch one folder until ``stop``; after any gap (folder away, restart) catch up."""
        db = self.databases[name]
        missed = catch_up
        try:
            while not stop.is_set() and self.databases.get(name) is db:
                if not db.root.is_dir():
                    missed = True
                    self._watch_live.discard(name)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), WATCH_RETRY_S)
                    continue
                if missed:  # what changed while nobody watched was not seen
                    missed = False
                    self._submit_scan(name)
                try:
                    await self._watch_folder(name, db, stop)
                except asyncio.CancelledError:
                    raise
                except Exception as err:
                    _LOGGER.warning("rag %s: watcher stopped (%s); restarting", name, err)
                    missed = True
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), WATCH_RETRY_S)
        finally:
            self._watch_live.discard(name)

    async def _watch_folder(self, name: str, db: DocumentDatabase, stop: asyncio.Event) -> None:
        """One ``awatch`` run; returns when stopped or when the folder disappears."""
        from watchfiles import DefaultFilter, awatch

        own = self._own
        default = DefaultFilter()

        def wanted(change: Any, path: str) -> bool:
            return not own(path) and default(change, path)

        self._watch_live.add(name)
        try:
            async for changes in awatch(
                db.root,
                watch_filter=wanted,
                stop_event=stop,
                debounce=WATCH_DEBOUNCE_MS,
                step=50,
                rust_timeout=WATCH_CHECK_MS,
                yield_on_timeout=True,
                recursive=True,
                ignore_permission_denied=True,
            ):
                if not db.root.is_dir():
                    return  # deleted or moved away: the watch is on a dead inode
                if not changes:
                    continue
                paths = sorted({Path(p) for _, p in changes})
                job = functools.partial(self._update_job, name, paths)
                await asyncio.wrap_future(self._submit(job))
        finally:
            self._watch_live.discard(name)

    def _revive_watchers(self) -> None:
        """Start again any watcher whose task ended although nobody stopped it."""
        if not self.watching or self._closing.is_set():
            return
        for name in list(self.databases):
            task = self._tasks.get(name)
            # _drop forgets a watcher it stops; one still listed ended by itself
            # (awatch also sets its stop event when its task is cancelled).
            if task is not None and task.done() and name in self._watch_stops:
                _LOGGER.warning("rag %s: the folder watcher ended; starting it again", name)
                self._start_watch(name, catch_up=True)

    async def _poll_registry(self) -> None:
        """Pick up databases added or removed by ``mnemolis rag``, and model changes."""
        embedder_name = self.embedder().name
        while not self._closing.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), REGISTRY_POLL_S)
            if self._closing.is_set():
                return
            try:
                await self._retry_failed()
                self._revive_watchers()
                now_name = self.embedder().name
                if now_name != embedder_name:
                    # A model appeared (or went): re-embed in the background right away.
                    embedder_name = now_name
                    _LOGGER.info(
                        "embedder is now %s; re-embedding databases and memories", now_name
                    )
                    for db in list(self.databases.values()):
                        await asyncio.to_thread(self._ensure_embedded, db, self.embedder())
                    self._memories_embedded.add(now_name)
                    self._submit_memory_vectors()
                await asyncio.to_thread(self._refresh_counts)
                replaced = [n for n, db in list(self.databases.items()) if db.replaced()]
                if replaced or self.registry.marker() != self._registry_marker:
                    await self._reconcile(replaced)
            except Exception as err:
                _LOGGER.warning("registry or watcher check failed: %s", err)

    def _refresh_counts(self) -> None:
        """File counts of databases another process wrote to (for /api/stats)."""
        for db in list(self.databases.values()):
            if db.is_open and db.counts_stale:
                with contextlib.suppress(sqlite3.Error):
                    db.refresh_counts()

    async def _reconcile(self, replaced: list[str] | None = None) -> None:
        """Follow the registry file and the database files other processes changed.

        A database removed and registered again (``rag remove`` + ``rag add``)
        has a new registration or a new ``data.db``: the old one is closed and
        the new one opened, never left serving a deleted index. A registry file
        that became unreadable is written again from what this process has open.
        """
        data = await asyncio.to_thread(self.registry.load)
        if data.corrupt:
            restored = RegistryData(dict(self.registrations), list(self._removed_builtin))
            await asyncio.to_thread(self.registry.save, restored)
            self.registry.problem = (
                f"{self.registry.problem}; it was written again from the "
                f"{len(restored.databases)} database(s) this server had registered"
            )
            _LOGGER.error("%s", self.registry.problem)
            self._registry_marker = self.registry.marker()
            return
        self._removed_builtin = list(data.removed_builtin)
        self._registry_marker = self.registry.marker()
        stale = set(replaced or ())
        for name, reg in data.databases.items():
            old = self.registrations.get(name)
            if old is not None and (old.path, old.created_at) != (reg.path, reg.created_at):
                stale.add(name)
        for name in [n for n in self.registrations if n not in data.databases or n in stale]:
            _LOGGER.info("rag %s: changed by another process; re-opening", name)
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
        self.registrations.pop(name, None)
        self.failed.pop(name, None)
        await self._unload(name, delete_files=delete_files)

    async def _unload(self, name: str, *, delete_files: bool) -> None:
        """Stop the watcher, close the database (on the worker), optionally delete its index."""
        stop = self._watch_stops.pop(name, None)
        if stop is not None:
            stop.set()
        task = self._tasks.pop(name, None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        db = self.databases.pop(name, None)
        if db is not None:
            db.cancelled.set()  # a running job stops after its current file or batch
            # Close on the worker so an in-flight job finishes with open connections.
            await asyncio.wrap_future(self._submit(db.close))
        if delete_files:
            await asyncio.to_thread(shutil.rmtree, self.data_dir / "rag" / name, ignore_errors=True)

    async def _rebuild(self, name: str) -> None:
        """A damaged index is derived data: delete it and index the folder again."""
        reg = self.registrations.get(name)
        db = self.databases.get(name)
        if reg is None or db is None:
            return
        _LOGGER.warning("rag %s: rebuilding the damaged index (%s)", name, db.damaged)
        # Meanwhile its searches are a 503 saying so (not "does not exist").
        self.failed[name] = f"the index was damaged ({db.damaged}) and is being rebuilt"
        await self._unload(name, delete_files=True)
        await self._open_db(reg)
        if name in self.databases:
            self._submit_scan(name)
            if self.watching:
                self._start_watch(name)

    # --- databases -----------------------------------------------------------

    def names(self) -> list[str]:
        """Loaded database names (what routing matches against)."""
        return sorted(self.databases)

    def generation(self) -> tuple[object, ...]:
        """Changes whenever a search could answer differently: databases, index, embedder."""
        embedder = self.embedder()
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
            "watching": self.watcher_running(name),
        }
        db = self.databases.get(name)
        if db is None:
            out["error"] = self.failed.get(name, "not loaded")
            return out
        try:
            out.update(await asyncio.to_thread(db.status))
        except sqlite3.Error as err:
            db.last_error = f"cannot read the index: {err}"
        out["indexing"] = db.indexing or db.scans_waiting > 0
        out["embedding"] = db.reembedding
        out["error"] = db.last_error
        if db.damaged:
            out["error"] = f"the index is damaged ({db.damaged}); it is being rebuilt"
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
        self._registry_marker = self.registry.marker()
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
        self._registry_marker = self.registry.marker()
        await self._drop(key, delete_files=True)

    async def reindex(self, name: object, *, wait: bool = True) -> dict[str, Any]:
        """Re-read every file of a database (changed or not) and re-embed."""
        key = name.strip() if isinstance(name, str) else ""
        if key not in self.registrations:
            raise NotFound(f'database "{key}" does not exist')
        if key in self.databases and self.databases[key].damaged:
            await self._rebuild(key)
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
        embedder = self.embedder()
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
        return (await self._rankings_of([db], q, fetch, mode, strict=True))[0]

    async def _rankings_of(
        self,
        dbs: list[DocumentDatabase],
        q: str,
        fetch: int,
        mode: str,
        failed: list[str] | None = None,
        *,
        strict: bool = False,
    ) -> list[tuple[list[Hit], list[Hit]]]:
        """Rankings of several databases in one worker-thread hop (one per question).

        Only an async (model) embedder is awaited on the loop first. Small
        databases whose vectors are already in memory are searched on the loop
        itself. A database that fails is logged, named in ``failed`` and ranks
        nothing; the others still answer. With ``strict`` (one database asked
        for by name) a database that fails is a 503 saying why.
        """
        embedder = self.embedder()
        # Without a model, "semantic" is feature hashing: shared words again, noise in a
        # fusion with the keyword ranking. Hybrid is then the keyword ranking alone.
        semantic_on = mode == "semantic" or (
            mode == "hybrid" and not isinstance(embedder, HashingEmbedder)
        )
        vec = None
        if semantic_on and not callable(getattr(embedder, "embed_sync", None)):
            vec = (await embed_async(embedder, [q]))[0]
        floor = float(getattr(embedder, "min_similarity", relevance.SIMILARITY_NONE))

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
                    _LOGGER.warning("rag %s: search failed: %s", db.name, err)
                    if strict:
                        why = f"database {db.name!r} cannot be searched: {err}"
                        if db.damaged:
                            why += "; the index is damaged and is being rebuilt from its folder"
                        raise Unavailable(why) from err
                    if failed is not None:
                        failed.append(db.name)
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
        *,
        failed: list[str] | None = None,
    ) -> list[Passage]:
        """Best passages across the loaded databases (all, or those named).

        Keyword hits of all databases are pooled by BM25 score and semantic hits
        by similarity, then the two pooled rankings are fused with RRF. The
        names of databases whose search failed are appended to ``failed``.
        """
        fetch = max(limit * 5, 100)
        keyword: list[Passage] = []
        semantic: list[Passage] = []
        named = [
            (name, db)
            for name, db in self.databases.items()
            if databases is None or name in databases
        ]
        rankings = await self._rankings_of([db for _, db in named], q, fetch, mode, failed)
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
        embedder = self.embedder()
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
        embedder = self.embedder()
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
        """(state, detail) for readiness: degraded, with every reason, when a part is not well."""
        problems = [
            p
            for p in (
                self.memories.problem,
                self.memories.damaged and self.memories.damage_message(),
                self.registry.problem,
            )
            if p
        ]
        problems += [f"database {n!r}: {self.failed[n]}" for n in sorted(self.failed)]
        problems += [
            f"database {n!r} is damaged: {db.damaged}"
            for n, db in sorted(self.databases.items())
            if db.damaged
        ]
        if problems:
            return "degraded", "; ".join(problems)
        embedder = self.embedder()
        return "ok", f"{len(self.databases)} database(s), embedder {embedder.name}"
