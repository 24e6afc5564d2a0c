"""Document databases: the registry, opening, scanning and watching folders, and search.

Indexing runs on the shared worker thread (``worker.IndexWorker``) so the event
loop keeps answering; searches run on the loop when small, else on the default
thread pool.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import logging
import re
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import textmatch, wordlist
from ..errors import InvalidArgument, MnemolisError, NotFound, Unavailable
from ..language import ENGLISH, fold, language_of, separable_verbs
from ..llm import bundled as bundled_model
from ..settings import Settings
from . import relevance
from .churn import Churn
from .database import DocumentDatabase, Hit, OwnFiles, ScanReport, Spellings, corrupt
from .inline import inline_or_thread, off_loop
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
from .text import INLINE_QUERY_CHARS, query_tokens, rrf
from .vectors import Embedder, HashingEmbedder, embed_query
from .worker import RETRY_FIRST_S, RETRY_MAX_S, Halt, IndexWorker

_LOGGER = logging.getLogger(__name__)

RAG_MODES = ("keyword", "semantic", "hybrid")
DEFAULT_LIMIT = 10
MAX_LIMIT = 100
WATCH_DEBOUNCE_MS = 400
WATCH_CHECK_MS = 5000  # how often a watcher checks that its folder still exists
WATCH_RETRY_S = 5.0
EMBED_JOB_BUDGET = 256
# Searches this small run on the event loop: a worker-thread hop costs more than
# the search itself, and under load the hops queue (docs/benchmarks.md).
INLINE_MAX_CHUNKS = 4000
# Hybrid: the model's ranking counts fully, the keyword ranking half (it adds exact
# names and codes the model misses; on natural questions the model ranks better).
HYBRID_WEIGHTS = (0.5, 1.0)
# A question in another language: the bundled model reads English, so its ranking of
# German or French passages is near noise and the keyword ranking leads.
FOREIGN_WEIGHTS = (1.0, 0.5)


def _hybrid_weights(q: str) -> tuple[float, float]:
    """The keyword and model rankings' weights in the fusion, by the question's language."""
    return HYBRID_WEIGHTS if language_of(q) == ENGLISH else FOREIGN_WEIGHTS


#: A per-source term counter: (document frequency per term, documents counted).
TermCounter = Callable[[list[str]], tuple[dict[str, int], int]]
Speller = Callable[[list[str]], Spellings]


def _dictionary(tongue: str) -> Callable[[str], bool] | None:
    """Whether a word is one of the question's language, or None without a list of them:
    English's are the embedding model's ("steps" is a word, never a slip of "stops")."""
    if tongue == ENGLISH:
        english = bundled_model.english_words()
        return english.__contains__ if english else None
    words = wordlist.words_of(tongue)
    if words is None:
        return None
    english = bundled_model.english_words()  # a borrowed word ("Pizza", "Router") is one
    return lambda w: w in english or wordlist.is_word(tongue, words, w)


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


@dataclass(slots=True)
class Passage:
    """One search hit with its database, for the router and context packs."""

    db: str
    hit: Hit
    source: str
    score: float
    similarity: float | None = None  # cosine from the semantic ranking, when it ran


def _spellings_of(parts: list[Speller], words: list[str]) -> tuple[set[str], dict[str, set[str]]]:
    """The words some index holds, and for the others the words one slip away that
    each index holds (an index that cannot be read is passed over)."""
    known: set[str] = set()
    near: dict[str, set[str]] = {}
    for part in parts:
        try:
            found = part(words)
        except (sqlite3.Error, Unavailable) as err:
            _LOGGER.debug("spelling lookup failed: %s", err)
            continue
        for word, slips in found.items():
            if slips is None:
                known.add(word)
            near.setdefault(word, set()).update(slips or ())
    return known, near


class Documents:
    """Every registered document database: opened, kept current, searched."""

    def __init__(
        self,
        settings: Settings,
        worker: IndexWorker,
        stop: threading.Event,
        embedder: Callable[[], Embedder],
    ) -> None:
        self.settings = settings
        self.embedder = embedder  # the model when loaded, else the hashing fallback
        self.data_dir = Path(settings.data_dir)
        self.registry = Registry(self.data_dir)
        self.registrations: dict[str, Registration] = {}
        self.databases: dict[str, DocumentDatabase] = {}
        self.failed: dict[str, str] = {}
        self._own = OwnFiles(self.data_dir)
        self._limits = FileLimits(
            max_pdf_pages=settings.rag.max_pdf_pages,
            max_chars=settings.rag.max_file_chars,
            max_chunks=settings.rag.max_file_chunks,
        )
        self._executor = worker
        self._waiting_lock = threading.Lock()
        self._stop = stop
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
        self.watching = False

    # --- lifecycle -----------------------------------------------------------

    async def open_registered(self) -> None:
        """Open every registered database, skipping (and retrying later) broken ones."""
        self._loop = asyncio.get_running_loop()
        data = await asyncio.to_thread(self._load_registry)
        for reg in data.databases.values():
            await self._open_db(reg)

    def catch_up_jobs(self) -> dict[str, concurrent.futures.Future[Any]]:
        """Queue one catch-up scan per database (changed, new and deleted files)."""
        return {name: self._submit_scan(name) for name in list(self.databases)}

    async def wait_bundled(self, scans: dict[str, concurrent.futures.Future[Any]]) -> None:
        """Wait briefly for the bundled docs' scan, so the very first question can use them."""
        bundled = scans.get(BUNDLED_NAME)
        if bundled is not None:  # a few small files
            with contextlib.suppress(TimeoutError, concurrent.futures.TimeoutError):
                await asyncio.wait_for(asyncio.wrap_future(bundled), 15)

    def watch_all(self) -> None:
        """Keep every (writable) database current from then on."""
        self.watching = True
        for name in list(self.databases):
            self._start_watch(name)

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

    async def retry_failed(self) -> None:
        """Open again databases that failed to open (full disk, folder not mounted), backing off.

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

    def stop_watching(self) -> list[asyncio.Task[None]]:
        """Tell every watcher to stop; their tasks, for the closer to cancel and await."""
        self._closing.set()
        for stop in self._watch_stops.values():
            stop.set()
        tasks = list(self._tasks.values())
        self._tasks.clear()
        return tasks

    def close_all(self) -> None:
        """Close every database (the worker has stopped)."""
        for db in self.databases.values():
            db.close()

    def replaced_or_moved(self) -> list[str] | None:
        """Databases re-created by another process, or None when nothing changed at all."""
        replaced = [n for n, db in list(self.databases.items()) if db.replaced()]
        if replaced or self.registry.marker() != self._registry_marker:
            return replaced
        return None

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
            # Indexing from the moment it stops waiting: a status read in between would
            # say "ready" with nothing indexed yet.
            db.indexing = True
            with self._waiting_lock:
                db.scans_waiting -= 1
            try:
                return self._scan_job(name, force)
            finally:
                db.indexing = False

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
            self._embed_paused_if_gone(db)  # the index stands though the model went away
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

        churn = Churn(name)
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
                # A file changing on every pass waits its turn (a yield without changes,
                # every WATCH_CHECK_MS, lets a held one through when its hold ends).
                paths = churn.admit(sorted({Path(p) for _, p in changes}), time.monotonic())
                if not paths:
                    continue
                job = functools.partial(self._update_job, name, paths)
                await asyncio.wrap_future(self._submit(job))
        finally:
            self._watch_live.discard(name)

    def revive_watchers(self) -> None:
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

    def refresh_counts(self) -> None:
        """File counts of databases another process wrote to (for /api/stats)."""
        for db in list(self.databases.values()):
            if db.is_open and db.counts_stale:
                with contextlib.suppress(sqlite3.Error):
                    db.refresh_counts()

    async def reconcile(self, replaced: list[str] | None = None) -> None:
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

    def ensure_embedded(self, db: DocumentDatabase, embedder: Any) -> None:
        """After a model change, or once the model is back for chunks that waited for it,
        embed in the background (keyword search keeps working)."""
        if db.indexing or db.reembedding or self._stop.is_set():
            return
        if db.embedded_with()[0] == embedder.name and not (
            db.vectors_missing and not isinstance(embedder, HashingEmbedder)
        ):
            return
        db.reembedding = True
        self._submit(functools.partial(self._embed_job, db))

    def _halt(self, db: DocumentDatabase) -> Halt:
        return Halt(self._stop, db.cancelled)

    def _embed_paused_if_gone(self, db: DocumentDatabase) -> None:
        """Embed what is missing; a model gone away pauses that in one line."""
        try:
            self._embed_step(db)
        except Unavailable as err:
            # The model went away (the server is stopping, or it failed): what is not
            # embedded yet is embedded when a model is back. Not a bug: no traceback.
            db.vectors_missing = True
            level = logging.INFO if self._stop.is_set() else logging.WARNING
            _LOGGER.log(level, "rag %s: embedding paused: %s", db.name, err)

    def _embed_job(self, db: DocumentDatabase) -> None:
        try:
            if db.is_open and not self._halt(db).is_set():
                self._embed_paused_if_gone(db)
        except Exception:
            _LOGGER.exception("rag %s: embedding failed", db.name)
        finally:
            if not db.embed_pending:
                db.reembedding = False

    def _embed_step(self, db: DocumentDatabase) -> None:
        """Embed missing chunks; a model works in slices so other jobs interleave."""
        embedder = self.embedder()
        fallback = isinstance(embedder, HashingEmbedder)
        previous = db.embedder_name()
        if (
            fallback
            and previous
            and previous != embedder.name
            and self.settings.llm.embedding_expected
        ):
            # A model's vectors are not replaced by the hashing fallback while a model is
            # configured (a CLI without it, a server still loading it): new chunks wait.
            db.vectors_missing = True
            return
        budget = None if fallback else EMBED_JOB_BUDGET
        halt = self._halt(db)
        done = db.embed_missing(embedder, self._loop, halt, budget)
        db.vectors_missing = halt.is_set()  # a halted step leaves chunks for the next
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
        if semantic_on:  # awaited here, never waited for on the loop (issue 29)
            try:
                vec = await embed_query(embedder, q)
            except MnemolisError as err:  # busy or gone: hybrid ranks by its words alone
                if mode == "semantic":
                    raise
                _LOGGER.info("rag: ranking by words alone: %s", err.message)
                semantic_on = False
        floor = float(getattr(embedder, "min_similarity", relevance.SIMILARITY_NONE))

        def one(db: DocumentDatabase, qvec: Any) -> tuple[list[Hit], list[Hit]]:
            keyword = db.search_keyword(q, fetch) if mode in ("keyword", "hybrid") else []
            semantic: list[Hit] = []
            if semantic_on:
                self.ensure_embedded(db, embedder)
                found = db.search_vector(embedder.name, qvec, fetch)
                semantic = [h for h in found if h.score >= floor]
            return keyword, semantic

        def work() -> list[tuple[list[Hit], list[Hit]]]:
            out: list[tuple[list[Hit], list[Hit]]] = []
            for db in dbs:
                try:
                    out.append(one(db, vec))
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

        inline = len(q) <= INLINE_QUERY_CHARS and all(
            db.small_enough(INLINE_MAX_CHUNKS, vectors=semantic_on) for db in dbs
        )
        return await inline_or_thread(work, inline=inline)

    def _fuse(
        self, q: str, keyword: list[Hit], semantic: list[Hit], mode: str, limit: int
    ) -> list[Hit]:
        if mode == "keyword":
            return keyword[:limit]
        if mode == "semantic":
            return semantic[:limit]
        by_id = {h.chunk_id: h for h in [*semantic, *keyword]}
        fused = rrf(
            [[h.chunk_id for h in keyword], [h.chunk_id for h in semantic]],
            self.settings.routing.rrf_k,
            _hybrid_weights(q),
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
        return self._fuse(q, keyword, semantic, mode, limit)

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
            _hybrid_weights(q),
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
        self,
        question: str,
        databases: list[str] | None = None,
        also: Callable[[], list[TermCounter]] | None = None,
    ) -> dict[str, float]:
        """Rarity of the question's words in these databases (default: the household's own)
        and what ``also`` counts (the memories) (IDF)."""
        words = list(relevance.content_words(question))
        names = self.user_databases() if databases is None else databases
        dbs = [self.databases[n] for n in names if n in self.databases]

        def counts(terms: list[str]) -> tuple[dict[str, int], int]:
            freq: dict[str, int] = {}
            total = 0
            parts: list[TermCounter] = [db.term_counts for db in dbs]
            if also is not None:
                parts.extend(also())
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
        return await off_loop(functools.partial(relevance.idf_weights, words, counts))

    async def respelled(
        self, question: str, also: Callable[[], list[Speller]] | None = None
    ) -> str:
        """The question with each word that the household's databases (and what ``also``
        spells: the memories) do not hold, and no thesaurus names, written as the one word
        they hold a typing slip away — else, when they hold none, the one Mnemolis's docs
        hold: "when's the recyling collected?" asks about "recycling", whole, for the word
        weights, the thesaurus and the embedding model alike."""
        tongue = language_of(question)
        question = relevance.plainly_put(textmatch.unshortened(question, tongue))  # "how do u"
        question = await self._particle_joined(question, tongue)  # "rufe … an": "anrufen"
        # Only a dictionary of the question's language tells words from slips: the English
        # one would read "heute" as a slip of the household's "Hefte".
        # A language's list is read on its first question, off the event loop.
        if wordlist.is_read(tongue):
            known = _dictionary(tongue)
        else:
            known = await off_loop(functools.partial(_dictionary, tongue))
        if known is None:
            return question
        words = [
            w
            for w in dict.fromkeys(fold(t) for t in query_tokens(question))
            if w.isalpha()
            and len(w) >= relevance.TYPO_MIN
            and not known(w)
            and not relevance.in_thesaurus(w)
        ]
        english = tongue == ENGLISH
        # Speech drops the g of "-ing" ("when does it need replacin'"): the word whole.
        for w in [w for w in words if english and w.endswith("in") and known(w + "g")]:
            question = re.sub(rf"\b{re.escape(w)}\b'?", w + "g", question, flags=re.IGNORECASE)
            words.remove(w)
        if not words:
            return question
        # The household's words first; Mnemolis's own docs (a wider vocabulary, but one
        # that quotes questions, slips and all) only where the household's say nothing.
        household: list[Speller] = [self.databases[n].spellings for n in self.user_databases()]
        if also is not None:
            household.extend(also())
        # Mnemolis's docs are English: their "temperature" is no slip of "temperatura".
        bundled: list[Speller] = [
            db.spellings for n, db in self.databases.items() if n == BUNDLED_NAME and english
        ]

        def run() -> dict[str, str]:
            fixes: dict[str, str] = {}
            home_known, home_near = _spellings_of(household, words)
            docs_known, docs_near = _spellings_of(bundled, words) if bundled else (set(), {})
            for w in words:
                if w in home_known:
                    continue
                # One way to read the slip, or none: "modle" may be "model" or "mode".
                options = home_near.get(w) or (set() if w in docs_known else docs_near.get(w))
                if options and len(options) == 1:
                    fixes[w] = next(iter(options))
            return fixes

        fixes = await off_loop(run)
        if not fixes:
            return question
        # The words are compared folded: "Spülmaschiene" is mended as "spulmaschiene".
        return re.sub(
            r"[^\W\d_]+",
            lambda m: fixes.get(fold(m.group()), m.group()),
            question,
        )

    async def _particle_joined(self, question: str, tongue: str | None) -> str:
        """The question with a German or Dutch separable verb whole ("Wen rufe ich an"
        asks whom to "anrufen"), when the household's notes say the verb so; else as it
        is."""
        readings = separable_verbs(question, tongue)
        if not readings:
            return question
        spellers: list[Speller] = [self.databases[n].spellings for n in self.user_databases()]
        infinitives = [joined for joined, _ in readings]
        known, _ = await off_loop(functools.partial(_spellings_of, spellers, infinitives))
        return next((rewritten for joined, rewritten in readings if joined in known), question)

    def problems(self) -> list[str]:
        """What is wrong with the registry or a database, for readiness (empty when well)."""
        problems = [self.registry.problem] if self.registry.problem else []
        problems += [f"database {n!r}: {self.failed[n]}" for n in sorted(self.failed)]
        problems += [
            f"database {n!r} is damaged: {db.damaged}"
            for n, db in sorted(self.databases.items())
            if db.damaged
        ]
        return problems
