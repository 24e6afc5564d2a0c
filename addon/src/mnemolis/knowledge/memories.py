"""Memories (the MemorySmith contract): short notes with tags and a status lifecycle."""

# SQL here is assembled only from constant column lists and "?" placeholders.
# ruff: noqa: S608

from __future__ import annotations

import functools
import json
import logging
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Concatenate, Literal, ParamSpec, TypeVar

import numpy as np

from ..errors import InvalidArgument, NotFound, Unavailable
from . import relevance
from .database import Spellings, connect, corrupt, transaction, vocabulary_slips
from .inline import guarded
from .text import fts_query, rrf
from .vectors import Vector

_LOGGER = logging.getLogger(__name__)
_P = ParamSpec("_P")
_T = TypeVar("_T")

STATUSES = ("Unconsolidated", "Working", "Core", "Deprecated")
MemoryMode = Literal["lexical", "semantic", "hybrid"]
MAX_CONTENT_CHARS = 20_000
MAX_TAGS = 32

SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL UNIQUE,
    content TEXT NOT NULL,
    tags TEXT NOT NULL DEFAULT '[]',
    status TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS memory_tags (
    memory_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    tag TEXT NOT NULL,
    PRIMARY KEY (memory_id, tag)
);
CREATE INDEX IF NOT EXISTS memory_tags_tag ON memory_tags(tag);
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(
    content, tags, content='memories', content_rowid='seq',
    tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS memories_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts(rowid, content, tags) VALUES (new.seq, new.content, new.tags);
END;
CREATE TRIGGER IF NOT EXISTS memories_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, content, tags)
    VALUES ('delete', old.seq, old.content, old.tags);
END;
CREATE TRIGGER IF NOT EXISTS memories_au AFTER UPDATE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, content, tags)
    VALUES ('delete', old.seq, old.content, old.tags);
    INSERT INTO memories_fts(rowid, content, tags) VALUES (new.seq, new.content, new.tags);
END;
CREATE TABLE IF NOT EXISTS memory_vectors (
    memory_id TEXT PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
    embedder TEXT NOT NULL,
    vec BLOB NOT NULL
);
"""


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(slots=True)
class Memory:
    """One memory as every surface returns it."""

    id: str
    content: str
    tags: list[str]
    status: str
    created_at: float
    updated_at: float
    score: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form (times in ISO 8601 UTC)."""
        out: dict[str, Any] = {
            "id": self.id,
            "content": self.content,
            "tags": self.tags,
            "status": self.status,
            "created_at": _iso(self.created_at),
            "updated_at": _iso(self.updated_at),
        }
        if self.score is not None:
            out["score"] = round(self.score, 6)
        return out


def parse_tags(value: object) -> list[str]:
    """Tags from a list or a comma-separated string: trimmed, de-duplicated ignoring case."""
    if value is None:
        return []
    if isinstance(value, str):
        items: list[object] = list(value.split(","))
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        raise InvalidArgument("tags must be a list of strings or a comma-separated string")
    out: dict[str, str] = {}
    for item in items:
        if not isinstance(item, str):
            raise InvalidArgument("tags must be strings")
        tag = item.strip()
        if not tag:
            continue
        if len(tag) > 100:
            raise InvalidArgument(f"tag {tag[:20]!r}… is longer than 100 characters")
        out.setdefault(tag.lower(), tag)
    if len(out) > MAX_TAGS:
        raise InvalidArgument(f"at most {MAX_TAGS} tags per memory")
    return list(out.values())


def parse_status(value: object, *, allow_many: bool = False) -> list[str]:
    """Canonical status names (case-insensitive input)."""
    if value is None or value == "" or value == []:
        return []
    raw = value.split(",") if isinstance(value, str) else value
    if not isinstance(raw, list | tuple) or (len(raw) > 1 and not allow_many):
        raise InvalidArgument(f"status must be one of {', '.join(STATUSES)}")
    by_lower = {s.lower(): s for s in STATUSES}
    out = []
    for item in raw:
        key = item.strip().lower() if isinstance(item, str) else None
        if key not in by_lower:
            raise InvalidArgument(f"unknown status {item!r}; allowed: {', '.join(STATUSES)}")
        out.append(by_lower[key])
    return list(dict.fromkeys(out))


def check_content(value: object) -> str:
    """Non-empty content within the size limit."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument("content is required and must not be empty")
    if len(value) > MAX_CONTENT_CHARS:
        raise InvalidArgument(
            f"content is {len(value)} characters; the limit is {MAX_CONTENT_CHARS}"
        )
    if "\x00" in value:
        raise InvalidArgument("content contains a NUL character")
    return value.strip()


def _guard(
    fn: Callable[Concatenate[MemoryStore, _P], _T],
) -> Callable[Concatenate[MemoryStore, _P], _T]:
    """A damaged file becomes a clear 503 (and degraded readiness), never a 500."""

    @functools.wraps(fn)
    def wrapper(store: MemoryStore, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return fn(store, *args, **kwargs)
        except sqlite3.DatabaseError as err:
            if not corrupt(err):
                raise
            store.mark_damaged(str(err), unreadable=fn.__name__ in _READS)
            raise Unavailable(store.damage_message()) from err

    return wrapper


# What lists and reads memories, rather than searching or writing them.
_READS = frozenset({"recent", "get", "count", "tags"})
MAX_DAMAGE_CHARS = 200  # of SQLite's own account of the damage, in a message


class MemoryStore:
    """``<data_dir>/memories.db``: every acknowledged write is on disk (synchronous=FULL)."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / "memories.db"
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self.problem: str | None = None
        #: Why memories.db is damaged (found at start or by a failing query), or None.
        self.damaged: str | None = None
        #: Whether the damage reaches the memories' own rows (listing and reading fail too).
        self.unreadable = False
        self._generation = 0
        self._size: int | None = None  # memories stored, once counted
        # Its own connection, only asking whether anyone committed (another
        # process too: `mnemolis mcp` remembering beside a running server).
        self._probe: sqlite3.Connection | None = None
        self._probe_lock = threading.Lock()
        self._data_version: int | None = None

    def open(self) -> None:
        """Create or open the database."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = connect(self.path, synchronous="FULL")
        try:
            conn.executescript(SCHEMA)
            damage = self._check(conn)
            self._size = None if damage else self._count(conn)
            unreadable = damage is not None and not self._readable(conn)
            probe = connect(self.path)
            self._data_version = int(probe.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error:
            conn.close()
            raise
        self._conn, self._probe = conn, probe
        if damage:
            self.mark_damaged(damage, unreadable=unreadable)

    @staticmethod
    def _count(conn: sqlite3.Connection) -> int:
        return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])

    @staticmethod
    def _check(conn: sqlite3.Connection) -> str | None:
        """Why the file is damaged, or None: page check plus the FTS index against its rows.

        Run at start, so damage is reported by readiness before a search meets it
        (memories.db is small: milliseconds for thousands of memories).
        """
        try:
            rows = conn.execute("PRAGMA quick_check").fetchall()
            if [r[0] for r in rows] != ["ok"]:
                return "; ".join(str(r[0]).replace("\n", " ") for r in rows[:3])
            conn.execute("INSERT INTO memories_fts(memories_fts) VALUES ('integrity-check')")
        except sqlite3.DatabaseError as err:
            if not corrupt(err):
                raise
            return str(err)
        return None

    @staticmethod
    def _readable(conn: sqlite3.Connection) -> bool:
        """Whether every memory's row can still be read (the damage is in the index only)."""
        try:
            conn.execute(
                "SELECT count(*), sum(length(id) + length(content) + length(tags)) FROM memories"
            ).fetchone()
        except sqlite3.DatabaseError as err:
            if not corrupt(err):
                raise
            return False
        return True

    def mark_damaged(self, reason: str, *, unreadable: bool = False) -> None:
        """Remember (and log once) that the file is damaged; readiness turns degraded."""
        first = self.damaged is None
        if first:
            reason = " ".join(reason.split())
            cut = len(reason) > MAX_DAMAGE_CHARS
            self.damaged = reason[:MAX_DAMAGE_CHARS].rstrip() + ("…" if cut else "")
        if unreadable and not self.unreadable:
            self.unreadable = True
            first = True  # what still works has changed: say it again
        if first:
            _LOGGER.error("%s", self.damage_message())

    def damage_message(self) -> str:
        """What a caller is told while memories.db is damaged: what still works, truly."""
        if self.unreadable:
            off = (
                "memories cannot be listed, read, searched or written (their own rows are "
                "damaged), nothing was saved; the other sources still work"
            )
        else:
            off = (
                "memory search and writes are off, nothing was saved; listing and reading "
                "memories and the other sources still work"
            )
        return (
            f"the memory store {self.path} is damaged ({self.damaged}): {off}. "
            "Stop Mnemolis and restore memories.db from a backup"
        )

    def _writable(self) -> None:
        if self.damaged is not None:
            raise Unavailable(self.damage_message())

    @property
    def is_open(self) -> bool:
        """Whether the file is open (memory calls can run)."""
        return self._conn is not None

    def close(self) -> None:
        """Close the connections."""
        with self._lock, self._probe_lock:
            for conn in (self._conn, self._probe):
                if conn is not None:
                    conn.close()
            self._conn = self._probe = None

    def _bump(self) -> None:
        with self._probe_lock:
            self._generation += 1

    @property
    def generation(self) -> int:
        """Moves after every committed change, by any process, so cached recalls go stale."""
        probe = self._probe
        if probe is None:
            return self._generation
        with self._probe_lock:
            try:
                version = int(probe.execute("PRAGMA data_version").fetchone()[0])
                if version != self._data_version:
                    self._data_version = version
                    self._generation += 1
                    self._size = int(probe.execute("SELECT count(*) FROM memories").fetchone()[0])
            except sqlite3.Error:
                pass
        return self._generation

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise Unavailable(f"the memory store is not available: {self.problem or 'closed'}")
        return self._conn

    @staticmethod
    def _row(row: tuple[Any, ...], score: float | None = None) -> Memory:
        return Memory(row[0], row[1], json.loads(row[2]), row[3], row[4], row[5], score)

    _COLS = "id, content, tags, status, created_at, updated_at"
    # The same columns qualified for queries that join memories as ``m``.
    _M_COLS = ", ".join(f"m.{c.strip()}" for c in _COLS.split(","))

    @_guard
    def count(self) -> int:
        """How many memories exist."""
        with self._lock:
            self._size = int(self._db().execute("SELECT count(*) FROM memories").fetchone()[0])
            return self._size

    def small_enough(self, max_memories: int) -> bool:
        """Whether a recall may run on the event loop: few memories and no write under way.

        A write holds the lock through its fsync; then the recall takes a thread.
        """
        size = self._size
        return size is not None and size <= max_memories and not self._lock.locked()

    @_guard
    def create(
        self, content: str, tags: list[str], status: str, vec: Vector | None, embedder: str
    ) -> Memory:
        """Insert one memory; durable when this returns."""
        self._writable()
        now = time.time()
        mid = uuid.uuid4().hex
        with self._lock:
            conn = self._db()
            with transaction(conn):
                seq = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM memories").fetchone()[0]
                conn.execute(
                    "INSERT INTO memories(id, seq, content, tags, status, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (mid, seq, content, json.dumps(tags, ensure_ascii=False), status, now, now),
                )
                conn.executemany(
                    "INSERT INTO memory_tags(memory_id, tag) VALUES (?, ?)",
                    [(mid, t.lower()) for t in tags],
                )
                if vec is not None:
                    conn.execute(
                        "INSERT INTO memory_vectors(memory_id, embedder, vec) VALUES (?, ?, ?)",
                        (mid, embedder, vec.astype(np.float32).tobytes()),
                    )
            self._bump()
            if self._size is not None:
                self._size += 1
        return Memory(mid, content, tags, status, now, now)

    @_guard
    def get(self, mid: str) -> Memory:
        """One memory or NotFound."""
        with self._lock:
            row = (
                self._db()
                .execute(
                    f"SELECT {self._COLS} FROM memories WHERE id = ?",
                    (mid,),
                )
                .fetchone()
            )
        if row is None:
            raise NotFound(f"memory {mid!r} does not exist")
        return self._row(row)

    @_guard
    def update(
        self,
        mid: str,
        *,
        content: str | None,
        tags: list[str] | None,
        status: str | None,
        vec: Vector | None,
        embedder: str,
    ) -> Memory:
        """Change content, tags or status; the updated time moves."""
        self._writable()
        current = self.get(mid)
        new_content = content if content is not None else current.content
        new_tags = tags if tags is not None else current.tags
        new_status = status or current.status
        now = time.time()
        with self._lock:
            conn = self._db()
            with transaction(conn):
                conn.execute(
                    "UPDATE memories SET content = ?, tags = ?, status = ?, updated_at = ? "
                    "WHERE id = ?",
                    (new_content, json.dumps(new_tags, ensure_ascii=False), new_status, now, mid),
                )
                if tags is not None:
                    conn.execute("DELETE FROM memory_tags WHERE memory_id = ?", (mid,))
                    conn.executemany(
                        "INSERT INTO memory_tags(memory_id, tag) VALUES (?, ?)",
                        [(mid, t.lower()) for t in new_tags],
                    )
                if vec is not None:
                    conn.execute(
                        "INSERT OR REPLACE INTO memory_vectors(memory_id, embedder, vec) "
                        "VALUES (?, ?, ?)",
                        (mid, embedder, vec.astype(np.float32).tobytes()),
                    )
                elif content is not None or tags is not None:
                    # The old text's vector would find the memory by what it no longer
                    # says: none until the embedder embeds the new text.
                    conn.execute("DELETE FROM memory_vectors WHERE memory_id = ?", (mid,))
            self._bump()
        return Memory(mid, new_content, new_tags, new_status, current.created_at, now)

    @_guard
    def delete(self, mid: str) -> None:
        """Remove one memory or NotFound."""
        self._writable()
        with self._lock:
            conn = self._db()
            with transaction(conn):
                cur = conn.execute("DELETE FROM memories WHERE id = ?", (mid,))
            self._bump()
            if self._size is not None:
                self._size -= cur.rowcount
        if cur.rowcount == 0:
            raise NotFound(f"memory {mid!r} does not exist")

    @_guard
    def tags(self) -> list[str]:
        """Every tag in use (lower-cased), most used first."""
        with self._lock:
            rows = (
                self._db()
                .execute(
                    "SELECT tag FROM memory_tags GROUP BY tag ORDER BY count(*) DESC, tag LIMIT 500"
                )
                .fetchall()
            )
        return [r[0] for r in rows]

    def _filter_sql(self, tags: list[str], statuses: list[str]) -> tuple[str, list[Any]]:
        where: list[str] = []
        args: list[Any] = []
        if tags:
            where.append(
                "m.id IN (SELECT memory_id FROM memory_tags WHERE tag IN "
                f"({','.join('?' * len(tags))}))"
            )
            args.extend(t.lower() for t in tags)
        if statuses:
            where.append(f"m.status IN ({','.join('?' * len(statuses))})")
            args.extend(statuses)
        return (" AND ".join(where) or "1"), args

    @_guard
    def recent(
        self, tags: list[str], statuses: list[str], limit: int, offset: int = 0
    ) -> tuple[list[Memory], int]:
        """Newest first, filtered; also the total that matched."""
        where, args = self._filter_sql(tags, statuses)
        with self._lock:
            conn = self._db()
            rows = conn.execute(
                f"SELECT {self._M_COLS} FROM memories m WHERE {where} "
                "ORDER BY m.created_at DESC, m.seq DESC LIMIT ? OFFSET ?",
                [*args, limit, offset],
            ).fetchall()
            total = conn.execute(
                f"SELECT count(*) FROM memories m WHERE {where}",
                args,
            ).fetchone()[0]
        return [self._row(r) for r in rows], int(total)

    @_guard
    def lexical(self, query: str, tags: list[str], statuses: list[str], limit: int) -> list[Memory]:
        """BM25 over content and tags; the query is plain words, never syntax."""
        if self.damaged is not None:
            raise Unavailable(self.damage_message())
        # Every synonym, known words' too: memories are few and short, so a wider query
        # finds the one that says it in other words without burying the others.
        expr = fts_query(query, relevance.synonym_words(query))
        if expr is None:
            return []
        where, args = self._filter_sql(tags, statuses)
        with guarded(self._lock):
            rows = (
                self._db()
                .execute(
                    f"SELECT {self._M_COLS}, f.rank FROM memories_fts f "
                    "JOIN memories m ON m.seq = f.rowid "
                    f"WHERE memories_fts MATCH ? AND {where} ORDER BY f.rank LIMIT ?",
                    [expr, *args, limit],
                )
                .fetchall()
            )
        return [self._row(r, -float(r[6])) for r in rows]

    @_guard
    def term_counts(self, terms: list[str]) -> tuple[dict[str, int], int]:
        """How many memories hold each (folded) term, and how many memories there are."""
        if not terms:
            return {}, 0
        marks = ",".join("?" * len(terms))
        with self._lock:
            conn = self._db()
            conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memories_vocab "
                "USING fts5vocab(main, memories_fts, row)"
            )
            rows = conn.execute(
                f"SELECT term, doc FROM temp.memories_vocab WHERE term IN ({marks})",
                terms,
            ).fetchall()
            total = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
        return {str(t): int(d) for t, d in rows}, int(total)

    @_guard
    def spellings(self, words: list[str]) -> Spellings:
        """For each word: None when a memory holds it, else the words memories hold one
        typing slip away."""
        out: Spellings = {}
        with self._lock:
            conn = self._db()
            conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memories_vocab "
                "USING fts5vocab(main, memories_fts, row)"
            )
            for word in words:
                out[word] = vocabulary_slips(conn, "temp.memories_vocab", word)
        return out

    @_guard
    def semantic(
        self, embedder: str, vec: Vector, tags: list[str], statuses: list[str], limit: int
    ) -> list[Memory]:
        """Cosine similarity over memories embedded with the same model."""
        where, args = self._filter_sql(tags, statuses)
        with guarded(self._lock):
            rows = (
                self._db()
                .execute(
                    f"SELECT {self._M_COLS}, v.vec FROM memory_vectors v "
                    "JOIN memories m ON m.id = v.memory_id "
                    f"WHERE v.embedder = ? AND {where}",
                    [embedder, *args],
                )
                .fetchall()
            )
        if not rows:
            return []
        matrix = np.frombuffer(b"".join(r[6] for r in rows), dtype=np.float32).reshape(
            len(rows), -1
        )
        if matrix.shape[1] != vec.shape[0]:
            return []
        sims = np.einsum("ij,j->i", matrix, vec)
        order = np.argsort(-sims)[:limit]
        return [self._row(rows[i], float(sims[i])) for i in order if sims[i] > 0]

    @_guard
    def missing_vectors(
        self, embedder: str, limit: int = 256, *, bare_only: bool = False
    ) -> list[tuple[str, str]]:
        """Memories without a vector from this embedder (after a model change); with
        ``bare_only``, only those without any vector (a model's is kept)."""
        other = "" if bare_only else "OR v.embedder != ?"
        with self._lock:
            rows = (
                self._db()
                .execute(
                    "SELECT m.id, m.content || ' ' || m.tags FROM memories m "
                    "LEFT JOIN memory_vectors v ON v.memory_id = m.id "
                    f"WHERE v.memory_id IS NULL {other} LIMIT ?",
                    (limit,) if bare_only else (embedder, limit),
                )
                .fetchall()
            )
        return [(r[0], r[1]) for r in rows]

    @_guard
    def store_vectors(self, embedder: str, items: list[tuple[str, Vector]]) -> None:
        """Save vectors computed after the fact."""
        self._writable()
        with self._lock:
            conn = self._db()
            with transaction(conn):
                conn.executemany(
                    "INSERT OR REPLACE INTO memory_vectors(memory_id, embedder, vec) "
                    "SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM memories WHERE id = ?)",
                    [(mid, embedder, v.astype(np.float32).tobytes(), mid) for mid, v in items],
                )
            self._bump()


def fuse(lists: list[list[Memory]], limit: int, k: int = 60) -> list[Memory]:
    """Hybrid: RRF of lexical and semantic rankings; score = RRF sum (rank signal)."""
    by_id: dict[str, Memory] = {}
    for lst in lists:
        for m in lst:
            by_id.setdefault(m.id, m)
    fused = rrf([[m.id for m in lst] for lst in lists], k)
    out = []
    for mid, score in fused[:limit]:
        m = by_id[mid]
        out.append(Memory(m.id, m.content, m.tags, m.status, m.created_at, m.updated_at, score))
    return out
