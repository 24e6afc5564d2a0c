"""The query log: every routed question with its trace, kept in SQLite off the event loop.

Writes go through a queue to one writer thread, so recording never slows a
query down; reads flush that queue first, so a caller always sees its own
questions. Retention (days and rows) is applied after every written batch.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import queue
import sqlite3
import threading
import time
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .errors import InvalidArgument, NotFound, Unavailable

if TYPE_CHECKING:
    from .models import SearchResult
    from .settings import QueryLogSettings

_LOGGER = logging.getLogger(__name__)

HIDDEN_TEXT = "(query text not stored)"
HIDDEN = "(not stored)"
SURFACES = ("rest", "ui", "mcp", "integration", "cli")
# Which surface a question came through; HTTP middleware and the MCP tool runner
# set it, anything else (the ``mnemolis ask`` command) is the CLI.
SURFACE: ContextVar[str] = ContextVar("mnemolis_surface", default="cli")
UI_CLIENT_HEADER = "X-Mnemolis-Client"
MAX_PAGE = 200
_QUEUE_LIMIT = 10_000
_BATCH = 200
# The writer wakes this often (or when a batch is full, a reader waits or the server
# stops), so answering a question only appends to a queue: no thread switch per row.
FLUSH_EVERY_S = 0.2
_PRUNE_EVERY_S = 2.0  # rows beyond retention live at most this long between reads
_MAX_ID = 2**63 - 1  # SQLite's INTEGER range

_SCHEMA = """
CREATE TABLE IF NOT EXISTS queries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts REAL NOT NULL,
    query TEXT NOT NULL,
    text_stored INTEGER NOT NULL,
    query_chars INTEGER NOT NULL,
    source_used TEXT NOT NULL,
    fallback INTEGER NOT NULL,
    failed INTEGER NOT NULL,
    latency_ms REAL NOT NULL,
    surface TEXT NOT NULL,
    conversation_id TEXT
);
CREATE INDEX IF NOT EXISTS queries_ts ON queries(ts);
-- Traces live apart, so filtering and counting scan small rows only.
CREATE TABLE IF NOT EXISTS traces (
    id INTEGER PRIMARY KEY REFERENCES queries(id) ON DELETE CASCADE,
    trace TEXT NOT NULL
);
"""


def surface_of(request: web.Request) -> str:
    """Name the surface an HTTP request belongs to, for the log and metrics."""
    if request.path == "/mcp" or request.path.startswith("/mcp/"):
        return "mcp"
    if request.headers.get(UI_CLIENT_HEADER, "").lower() == "web-ui":
        return "ui"
    if "homeassistant/" in request.headers.get("User-Agent", "").lower():
        return "integration"
    return "rest"


@web.middleware
async def surface_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    """Tag everything a request does with the surface it came through."""
    token = SURFACE.set(surface_of(request))
    try:
        resp: web.StreamResponse = await handler(request)
        return resp
    finally:
        SURFACE.reset(token)


@dataclass(slots=True)
class QueryFilter:
    """What ``GET /api/queries`` may narrow the log by."""

    limit: int = 50
    cursor: int | None = None
    source: str | None = None
    fallback: bool | None = None
    failed: bool | None = None
    surface: str | None = None
    since: float | None = None
    until: float | None = None
    text: str | None = None
    conversation_id: str | None = None

    @classmethod
    def from_query(cls, params: Any) -> QueryFilter:
        """Parse URL query parameters; raise InvalidArgument naming the bad one."""
        out = cls()
        known = {"limit", "cursor", "source", "fallback", "status", "failed", "surface"}
        known |= {"since", "until", "q", "conversation_id"}
        unknown = sorted(set(params) - known)
        if unknown:
            raise InvalidArgument(
                f"unknown query parameter {unknown[0]!r}; allowed: {', '.join(sorted(known))}"
            )
        if "limit" in params:
            out.limit = _int_param("limit", params["limit"], 1, MAX_PAGE)
        if params.get("cursor"):
            out.cursor = _int_param("cursor", params["cursor"], 1, _MAX_ID)
        if params.get("source"):
            out.source = params["source"].strip().lower()
        if "fallback" in params:
            out.fallback = _bool_param("fallback", params["fallback"])
        if "failed" in params:
            out.failed = _bool_param("failed", params["failed"])
        if params.get("status"):
            status = params["status"].strip().lower()
            if status not in ("answered", "failed"):
                raise InvalidArgument(f"status={status!r}: allowed: answered, failed")
            failed = status == "failed"
            if out.failed is not None and out.failed != failed:
                raise InvalidArgument("status and failed contradict each other")
            out.failed = failed
        if params.get("surface"):
            surface = params["surface"].strip().lower()
            if surface not in SURFACES:
                raise InvalidArgument(f"surface={surface!r}: allowed: {', '.join(SURFACES)}")
            out.surface = surface
        if params.get("since"):
            out.since = _time_param("since", params["since"])
        if params.get("until"):
            out.until = _time_param("until", params["until"])
        conversation = params.get("conversation_id", "").strip()
        if len(conversation) > 200:
            raise InvalidArgument("conversation_id is longer than 200 characters")
        out.conversation_id = conversation or None
        text = params.get("q", "").strip()
        if len(text) > 500:
            raise InvalidArgument("q is longer than 500 characters")
        out.text = text or None
        return out


def _int_param(name: str, raw: str, low: int, high: int | None) -> int:
    text = raw.strip()
    if len(text) > 30 or not (text.isascii() and text.removeprefix("-").isdigit()):
        raise InvalidArgument(f"{name}={raw[:40]!r}: must be an integer")
    value = int(text)
    if value < low or (high is not None and value > high):
        allowed = f"{low}..{high}" if high is not None else f">= {low}"
        raise InvalidArgument(f"{name}={value}: allowed {allowed}")
    return value


def _bool_param(name: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value in ("true", "1", "yes"):
        return True
    if value in ("false", "0", "no"):
        return False
    raise InvalidArgument(f"{name}={raw!r}: must be true or false")


def _time_param(name: str, raw: str) -> float:
    """Unix seconds or an ISO 8601 time (UTC when it carries no offset)."""
    text = raw.strip()
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        if not math.isfinite(seconds):
            raise InvalidArgument(f"{name}={raw!r}: not a time")
        return seconds
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidArgument(
            f"{name}={raw!r}: use ISO 8601 (2025-01-31T08:00:00Z) or unix seconds"
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _redact_trace(trace: dict[str, Any]) -> dict[str, Any]:
    """The trace without words: answers, reasons and titles echo what was asked.

    What stays is how the question was handled: which sources ran, their
    status, timing, cache use and fallback, and the condition's verdict.
    """
    trace["result"] = HIDDEN
    trace["spoken"] = ""
    for part in trace.get("parts") or []:
        if isinstance(part, dict):
            part["query"] = HIDDEN_TEXT
            part["result"] = HIDDEN
    condition = trace.get("condition")
    if isinstance(condition, dict):
        condition["text"] = HIDDEN_TEXT
        condition["evidence"] = HIDDEN
    for run in trace.get("sources") or []:
        if isinstance(run, dict):
            if run.get("reason"):
                run["reason"] = HIDDEN
            if run.get("error"):
                run["error"] = HIDDEN
    trace["citations"] = [
        {"source": c.get("source", ""), "title": HIDDEN}
        for c in trace.get("citations") or []
        if isinstance(c, dict)
    ]
    return trace


_Row = tuple[float, str, int, int, str, int, int, float, str, str | None, dict[str, Any]]


class QueryLog:
    """Persistent, bounded log of routed questions and how they were answered."""

    def __init__(self, path: Path, settings: QueryLogSettings) -> None:
        self.path = path
        self.settings = settings
        self.error: str | None = None
        self.dropped = 0
        self.written = 0
        self._queue: queue.Queue[_Row | Any] = queue.Queue(maxsize=_QUEUE_LIMIT)
        self._thread: threading.Thread | None = None
        self._wake = threading.Event()
        self._reader: sqlite3.Connection | None = None
        self._read_lock = threading.Lock()
        self._closed = False
        self._pruned_at = 0.0

    # --- lifecycle -----------------------------------------------------------

    def open(self) -> None:
        """Create the database, prune what retention no longer keeps, start the writer."""
        try:
            conn = self._connect()
            try:
                conn.executescript(_SCHEMA)
                self._prune(conn)
                conn.commit()
                if not self.settings.store_text:
                    self._scrub(conn)
            finally:
                conn.close()
            self._reader = self._connect(check_same_thread=False)
        except sqlite3.Error as err:
            self.error = f"query log {self.path} could not be opened: {err}"
            _LOGGER.warning("%s; questions will not be logged", self.error)
            return
        self._reader.row_factory = sqlite3.Row
        self._thread = threading.Thread(target=self._writer, name="mnemolis-querylog", daemon=True)
        self._thread.start()

    async def close(self) -> None:
        """Write what is queued, stop the writer and close the database."""
        if self._closed:
            return
        self._closed = True
        if self._thread is not None:
            with contextlib.suppress(queue.Full):
                await asyncio.to_thread(self._queue.put, None, True, 10)
            self._wake.set()
            await asyncio.to_thread(self._thread.join, 10)
            self._thread = None
        if self._reader is not None:
            with self._read_lock:
                self._reader.close()
            self._reader = None

    def _scrub(self, conn: sqlite3.Connection) -> None:
        """store_text was switched off: remove the words of questions logged before."""
        rows = conn.execute(
            "SELECT q.id, t.trace FROM queries q LEFT JOIN traces t ON t.id = q.id"
            " WHERE q.text_stored = 1"
        ).fetchall()
        if not rows:
            return
        with conn:
            for entry_id, raw in rows:
                try:
                    trace = _redact_trace(json.loads(raw or "{}"))
                except ValueError:
                    trace = {}
                conn.execute(
                    "UPDATE traces SET trace = ? WHERE id = ?",
                    (json.dumps(trace, ensure_ascii=False), entry_id),
                )
            conn.execute(
                "UPDATE queries SET query = ?, text_stored = 0 WHERE text_stored = 1",
                (HIDDEN_TEXT,),
            )
        _LOGGER.info("query log: removed the text of %d earlier questions", len(rows))
        # Old pages must not keep the words: checkpoint the WAL and rewrite the file.
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.execute("VACUUM")
        except sqlite3.Error as err:  # another process holds the file; next start retries
            _LOGGER.warning("query log: could not compact after removing text: %s", err)

    def _connect(self, *, check_same_thread: bool = True) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=10, check_same_thread=check_same_thread)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        if not self.settings.store_text:
            # Deleted rows (retention) are zeroed on disk, not just unlinked.
            conn.execute("PRAGMA secure_delete=ON")
        return conn

    # --- writing -------------------------------------------------------------

    def record(
        self, result: SearchResult, *, surface: str | None = None, at: float | None = None
    ) -> None:
        """Queue one answered question for writing; never blocks, never raises."""
        if self._thread is None or self._closed:
            return
        trace = result.to_dict()
        if self.settings.store_text:
            text = result.query
        else:
            text = HIDDEN_TEXT
            trace = _redact_trace(trace)
        row: _Row = (
            time.time() if at is None else at,
            text,
            int(self.settings.store_text),
            len(result.query),
            result.source_used,
            int(result.fallback),
            int(result.source_used == "none"),
            round(result.elapsed_ms, 2),
            surface or SURFACE.get(),
            result.conversation_id,
            trace,
        )
        try:
            self._queue.put_nowait(row)
        except queue.Full:
            self.dropped += 1
            self._wake.set()
            return
        if self._queue.qsize() >= _BATCH:
            self._wake.set()

    async def flush(self, timeout: float = 10.0) -> None:
        """Wait until everything queued so far is written."""
        if self._thread is None or not self._thread.is_alive():
            return
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()

        def settle() -> None:
            if not done.done():
                done.set_result(None)

        def mark() -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(settle)

        started = time.monotonic()
        try:
            self._queue.put_nowait(mark)
            self._wake.set()
        except queue.Full:
            # The writer is far behind: wait for room on a worker thread, not the loop.
            try:
                await asyncio.to_thread(self._queue.put, mark, True, timeout)
            except queue.Full:
                return
            self._wake.set()
        left = max(0.0, timeout - (time.monotonic() - started))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done, left)

    def _writer(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            conn = self._connect()
        except sqlite3.Error as err:
            self.error = f"query log {self.path} could not be opened for writing: {err}"
            _LOGGER.warning("%s; questions will not be logged", self.error)
        try:
            while True:
                self._wake.wait(FLUSH_EVERY_S)
                self._wake.clear()
                pending: list[Any] = []
                with contextlib.suppress(queue.Empty):
                    while True:
                        pending.append(self._queue.get_nowait())
                for start in range(0, len(pending), _BATCH):
                    if self._write_batch(conn, pending[start : start + _BATCH]):
                        return
        finally:
            if conn is not None:
                conn.close()

    def _write_batch(self, conn: sqlite3.Connection | None, batch: list[Any]) -> bool:
        """Write one batch, then wake its waiting readers; True once the stop marker is in it."""
        rows = [b for b in batch if isinstance(b, tuple)]
        if rows and conn is not None:
            # Trimming walks max_rows index entries: do it now and then, and
            # whenever a reader is waiting (a flush marker), never per batch.
            waited = any(callable(b) for b in batch)
            self._write(conn, rows, prune=waited or self._prune_due())
        elif rows:
            self.dropped += len(rows)
        for b in batch:
            if callable(b):
                b()
        return any(b is None for b in batch)

    def _prune_due(self) -> bool:
        return time.monotonic() - self._pruned_at >= _PRUNE_EVERY_S

    def _write(self, conn: sqlite3.Connection, rows: list[_Row], *, prune: bool = True) -> None:
        ready: list[tuple[tuple[Any, ...], str]] = []
        for row in rows:
            # A row that cannot be stored is dropped on its own, never its batch.
            try:
                if not all(v is None or isinstance(v, str | int | float) for v in row[:-1]):
                    raise TypeError("a column value is not a string or a number")
                ready.append((row[:-1], json.dumps(row[-1], ensure_ascii=False)))
            except (TypeError, ValueError) as err:
                self._failed(1, err)
        if not ready:
            return
        try:
            with conn:
                for values, trace in ready:
                    cur = conn.execute(
                        "INSERT INTO queries (ts, query, text_stored, query_chars, source_used,"
                        " fallback, failed, latency_ms, surface, conversation_id)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        values,
                    )
                    conn.execute(
                        "INSERT INTO traces (id, trace) VALUES (?, ?)", (cur.lastrowid, trace)
                    )
                if prune:
                    self._prune(conn)
                    self._pruned_at = time.monotonic()
            self.written += len(ready)
        except sqlite3.Error as err:
            # Disk full or the database locked for too long: this batch is lost,
            # the writer and the questions carry on.
            self._failed(len(ready), err)

    def _failed(self, rows: int, err: Exception) -> None:
        self.dropped += rows
        if self.error is None:
            _LOGGER.warning("query log write failed: %s", err)
        self.error = f"last write failed: {err}"

    def _prune(self, conn: sqlite3.Connection) -> None:
        days = self.settings.retention_days
        if days > 0:
            conn.execute("DELETE FROM queries WHERE ts < ?", (time.time() - days * 86400,))
        rows = self.settings.max_rows
        if rows > 0:
            conn.execute(
                "DELETE FROM queries WHERE id <= "
                "(SELECT id FROM queries ORDER BY id DESC LIMIT 1 OFFSET ?)",
                (rows,),
            )

    # --- reading -------------------------------------------------------------

    def _require_reader(self) -> sqlite3.Connection:
        if self._reader is None:
            raise Unavailable(self.error or "the query log is not open")
        return self._reader

    async def list(self, flt: QueryFilter) -> dict[str, Any]:
        """One page of the log, newest first, with a cursor for the next page."""
        await self.flush()
        return await asyncio.to_thread(self._list_sync, flt)

    def _list_sync(self, flt: QueryFilter) -> dict[str, Any]:
        where: list[str] = []
        args: list[Any] = []
        if flt.source:
            where.append("source_used = ?")
            args.append(flt.source)
        if flt.fallback is not None:
            where.append("fallback = ?")
            args.append(int(flt.fallback))
        if flt.failed is not None:
            where.append("failed = ?")
            args.append(int(flt.failed))
        if flt.surface:
            where.append("surface = ?")
            args.append(flt.surface)
        if flt.conversation_id:
            where.append("conversation_id = ?")
            args.append(flt.conversation_id)
        if flt.since is not None:
            where.append("ts >= ?")
            args.append(flt.since)
        if flt.until is not None:
            where.append("ts < ?")
            args.append(flt.until)
        if flt.text:
            escaped = flt.text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            where.append("text_stored = 1 AND query LIKE ? ESCAPE '\\'")
            args.append(f"%{escaped}%")
        total_sql = "SELECT COUNT(*) FROM queries"
        if where:
            total_sql += " WHERE " + " AND ".join(where)
        page_where = list(where)
        page_args = list(args)
        if flt.cursor is not None:
            page_where.append("q.id < ?")
            page_args.append(flt.cursor)
        sql = "SELECT q.*, t.trace FROM queries q LEFT JOIN traces t ON t.id = q.id"
        if page_where:
            sql += " WHERE " + " AND ".join(page_where)
        sql += " ORDER BY q.id DESC LIMIT ?"
        page_args.append(flt.limit + 1)
        conn = self._require_reader()
        with self._read_lock:
            total = conn.execute(total_sql, args).fetchone()[0]
            rows = conn.execute(sql, page_args).fetchall()
        more = len(rows) > flt.limit
        rows = rows[: flt.limit]
        return {
            "queries": [self._entry(r) for r in rows],
            "total": total,
            "next_cursor": str(rows[-1]["id"]) if more and rows else None,
        }

    async def get(self, entry_id: int) -> dict[str, Any]:
        """One logged question with its full trace, or NotFound."""
        await self.flush()
        return await asyncio.to_thread(self._get_sync, entry_id)

    def _get_sync(self, entry_id: int) -> dict[str, Any]:
        conn = self._require_reader()
        with self._read_lock:
            row = conn.execute(
                "SELECT q.*, t.trace FROM queries q LEFT JOIN traces t ON t.id = q.id"
                " WHERE q.id = ?",
                (entry_id,),
            ).fetchone()
        if row is None:
            raise NotFound(f"query {entry_id} is not in the log (never logged or expired)")
        return self._entry(row)

    async def count(self) -> int:
        """How many questions the log holds now."""
        if self._reader is None:
            return 0
        return await asyncio.to_thread(self._count_sync)

    def _count_sync(self) -> int:
        conn = self._require_reader()
        with self._read_lock:
            return int(conn.execute("SELECT COUNT(*) FROM queries").fetchone()[0])

    @staticmethod
    def _entry(row: sqlite3.Row) -> dict[str, Any]:
        try:
            trace = json.loads(row["trace"] or "{}")
        except ValueError:
            trace = {}
        return {
            "id": str(row["id"]),
            "time": _iso(row["ts"]),
            "ts": row["ts"],
            "query": row["query"],
            "text_stored": bool(row["text_stored"]),
            "query_chars": row["query_chars"],
            "source_used": row["source_used"],
            "fallback": bool(row["fallback"]),
            "status": "failed" if row["failed"] else "answered",
            "latency_ms": row["latency_ms"],
            "surface": row["surface"],
            "conversation_id": row["conversation_id"],
            "trace": trace,
        }
