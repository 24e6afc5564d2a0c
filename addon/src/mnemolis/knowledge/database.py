"""One document database: a folder indexed into its own SQLite file (FTS5 + vectors)."""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import logging
import os
import re
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..language import HEAD_MIN, MODIFIER_MIN, fold, foreign, heads, joins_compounds
from ..log import log_files
from . import relevance
from .chunking import chunk_sections, embedding_text
from .inline import guarded
from .parsing import (
    MAX_FILE_BYTES,
    FileLimits,
    Interrupted,
    ParseError,
    read_document,
    supported,
)
from .shipped import embed_with_shipped
from .text import fts_query, query_tokens
from .vectors import Vector, embed_blocking

_LOGGER = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash TEXT NOT NULL,
    chunks INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    indexed_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id),
    ord INTEGER NOT NULL,
    heading TEXT NOT NULL DEFAULT '',
    content TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    content, heading, content='chunks', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, content, heading) VALUES (new.id, new.content, new.heading);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, content, heading)
    VALUES ('delete', old.id, old.content, old.heading);
END;
CREATE TABLE IF NOT EXISTS vectors (chunk_id INTEGER PRIMARY KEY, vec BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS file_cuts (
    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
    reason TEXT NOT NULL
);
"""

RANK = "bm25(1.0, 2.0)"  # a word in the heading path weighs twice as much as in the text
# {word: None when known, else the words one typing slip away}
Spellings = dict[str, list[str] | None]


def vocabulary_slips(conn: sqlite3.Connection, vocab: str, term: str) -> list[str] | None:
    """None when an fts5vocab table holds the term, else its terms one typing slip away
    (same first letter, length within one)."""
    if conn.execute(f"SELECT 1 FROM {vocab} WHERE term = ?", (term,)).fetchone():  # noqa: S608
        return None
    near = conn.execute(
        f"SELECT term FROM {vocab} WHERE term >= ? AND term < ? "  # noqa: S608
        "AND length(term) BETWEEN ? AND ?",
        (term[0], chr(ord(term[0]) + 1), len(term) - 1, len(term) + 1),
    )
    return [str(t) for (t,) in near if relevance.one_edit(term, str(t))]


_COMPOUNDS_PER_WORD = 4  # compounds looked up per question word, the most held first
# An index's terms written backwards and sorted, with how many chunks hold each: the
# terms ending with a word are one range of them.
Endings = tuple[list[str], list[int]]


def compound_terms(endings: Endings, stems: list[str]) -> list[str]:
    """The index's terms that end with a stem, for a language that writes compounds as
    one word: "Druck" finds the "Wasserdruck" (the few most widely held)."""
    backwards, docs = endings
    out: list[str] = []
    for s in stems:
        if len(s) < HEAD_MIN or not s.isalpha():
            continue
        key = s[::-1]
        lo = bisect.bisect_left(backwards, key)
        hi = bisect.bisect_left(backwards, key + "\uffff")
        held = sorted(
            ((docs[i], backwards[i][::-1]) for i in range(lo, hi) if heads(s, backwards[i][::-1])),
            reverse=True,
        )
        out += [term for _, term in held[:_COMPOUNDS_PER_WORD]]
    return list(dict.fromkeys(out))


def compound_heads(endings: Endings, stems: list[str]) -> list[str]:
    """The last part of each compound asked about that the index holds as a word of its
    own: "Dachfenster" finds the "Fenster" (the longest such part)."""
    backwards, _ = endings
    out: list[str] = []
    for s in stems:
        if not s.isalpha():
            continue
        for i in range(MODIFIER_MIN, len(s) - HEAD_MIN + 1):
            key = s[i:][::-1]
            at = bisect.bisect_left(backwards, key)
            if at < len(backwards) and backwards[at] == key:
                out.append(s[i:])
                break
    return out


TOKENIZER = "tokenize='porter unicode61 remove_diacritics 2'"  # as chunks_fts below
# Bumped when chunking or the FTS5 tokenizer changes: an index of another format is
# rebuilt from the files (2: structural chunks, file names in headings, porter stems;
# 3: table rows labelled by their header, one passage per statement line; 4: questions
# head their answers, space-aligned tables, contact lines, no sentence cut at "Dr.";
# 5: titles over headed parts, <dt> sentences heading their <dd>, lists without marks;
# 6: contents lists of questions dropped, one-line answers under their question, no
# heading from a line set in deeper than the text before it, no unnumbered question
# inside a numbered FAQ's answer, "Chapter 2: …" lines and the entries a contents list
# names as headings; 7: DocBook question and answer rows, numbered contents links and
# Prev/Up/Next bars left out, no title from a line a lead-in ending ":" introduces, a
# bold Markdown item standing alone read as the question or entry it bolds, underlined
# titles nested by their marks, texinfo node bars left out, a table row that asks
# heading its answer, a question line heading its answer where no blank line
# parts them; 8: no title from a reStructuredText literal block; 9: any punctuation
# mark repeated underlines a title, as in reStructuredText, a definition list's term
# that asks heads its definition, reStructuredText comments left out; 11: a contents
# entry that tells before it asks read whole; 12: reStructuredText targets, directive
# lines and their options left out; 13: a sentence never ends at "z. B.", "bzw.",
# "inkl." or another language's abbreviation; 14: a title framed by rule marks, "---
# Banana bread ---", heads the lines under it).
INDEX_FORMAT = "14"
EMBED_BATCH = 32  # small batches: a model embedder serves other requests in between
_DELETE_VECTORS = "DELETE FROM vectors WHERE chunk_id IN (SELECT id FROM chunks WHERE file_id = ?)"


class StopFlag(Protocol):
    """Anything that says whether a job should stop (an Event, or several)."""

    def is_set(self) -> bool:
        """True when the job should stop after its current step."""
        ...


@dataclass(slots=True)
class Hit:
    """One matching chunk: which file, which chunk number, its text and score."""

    chunk_id: int
    path: str
    ord: int
    heading: str
    content: str
    score: float


@dataclass(slots=True)
class ScanReport:
    """What one indexing pass did."""

    indexed: int = 0
    unchanged: int = 0
    removed: int = 0
    failed: int = 0
    cut: int = 0
    chunks: int = 0
    errors: list[tuple[str, str]] = field(default_factory=list)


def connect(path: Path, *, synchronous: str = "NORMAL") -> sqlite3.Connection:
    """A WAL-mode connection usable from the worker threads that own it."""
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout=30000")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA cache_size=-16000")
    return conn


def corrupt(err: sqlite3.Error) -> bool:
    """Whether SQLite says the file itself is damaged (not busy, not full)."""
    name = str(getattr(err, "sqlite_errorname", ""))
    return name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in str(err)


def _busy(err: sqlite3.OperationalError) -> bool:
    """A lock wait that ran out (retrying at once would only wait again)."""
    text = str(err).lower()
    return "locked" in text or "busy" in text


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT on a `connect()` connection; any error rolls it all back."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _file_id(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _file_hash(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def _inside(child: Path, root: Path) -> bool:
    return child == root or root in child.parents


_SQLITE_FILE = re.compile(r"\.(db|sqlite3?)(-wal|-shm|-journal)?$")
_OWN_NAMES = frozenset({"instance.json", "instance.tmp", "api_key", ".probe"})
_OWN_FOLDERS = ("rag", "models")


class OwnFiles:
    """Mnemolis' own files in its data folder: never indexed, their writes never watched.

    A registered folder that is (or contains) the data folder would otherwise
    see every SQLite/WAL write of the server as a change to index, and each
    index pass writes again: a loop (issue 17 item 15). The same for the file the
    server logs to, wherever it is (issue 29 item 4).
    """

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir.resolve()
        self._prefix = str(self.data_dir).rstrip("/") + "/"
        self._folders = tuple(self._prefix + f + "/" for f in _OWN_FOLDERS)
        self._logs = log_files()

    def __call__(self, path: str) -> bool:
        """Whether ``path`` (absolute, resolved) is one of Mnemolis' own files."""
        if path in self._logs:
            return True
        if not path.startswith(self._prefix):
            return False
        if path.startswith(self._folders) or path + "/" in self._folders:
            return True
        name = path.rsplit("/", 1)[-1]
        return name in _OWN_NAMES or _SQLITE_FILE.search(name) is not None


class DocumentDatabase:
    """A registered folder and its ``data.db``: indexing (worker thread) and search."""

    def __init__(
        self,
        name: str,
        root: Path,
        directory: Path,
        own: OwnFiles | None = None,
        limits: FileLimits | None = None,
    ) -> None:
        self.name = name
        self.limits = limits or FileLimits()
        self.own = own or OwnFiles(directory.parent.parent)
        self.root = root.resolve()
        self._root_prefix = str(self.root).rstrip("/") + "/"
        self.directory = directory
        self.db_path = directory / "data.db"
        self._writer: sqlite3.Connection | None = None
        self._reader: sqlite3.Connection | None = None
        self._read_lock = threading.Lock()
        # A connection of its own that only asks SQLite whether anyone (this
        # process's writer or another process: `mnemolis rag`, `mnemolis mcp`)
        # committed since it last looked; never blocked behind a long search.
        self._probe: sqlite3.Connection | None = None
        self._probe_lock = threading.Lock()
        self._data_version: int | None = None
        self._gen_lock = threading.Lock()
        self._generation = 0
        self.counts_stale = False
        self._file_id: tuple[int, int] | None = None
        self._matrix: tuple[int, str, np.ndarray[Any, Any], np.ndarray[Any, Any]] | None = None
        self._ends: tuple[int, Endings] | None = None
        self.files_indexed = 0
        self.chunk_count = 0
        self.indexing = False
        #: Scans asked for and not yet started: a database just registered is
        #: "indexing" from the start, not "ready" with no files until the worker comes.
        self.scans_waiting = 0
        self.reembedding = False
        self.embed_pending = False
        #: Chunks were left without a vector (the model not loaded yet, or gone): the
        #: model embeds them once it is back, though the stored vectors carry its name.
        self.vectors_missing = False
        self.cancelled = threading.Event()
        self.last_error: str | None = None
        #: Why the index file is damaged (a query met corruption); the store rebuilds it.
        self.damaged: str | None = None

    # --- lifecycle -----------------------------------------------------------

    def open(self) -> None:
        """Create or open ``data.db``; raises sqlite3.DatabaseError if it is unusable."""
        self.directory.mkdir(parents=True, exist_ok=True)
        opened: list[sqlite3.Connection] = []
        writer = connect(self.db_path)
        opened.append(writer)
        try:
            writer.executescript(SCHEMA)
            self._upgrade(writer)
            writer.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('created_at', ?)",
                (str(time.time()),),
            )
            # Write the FTS5 rank setting only when it is not there yet: changing it
            # makes every other connection's next FTS5 query fail once ("SQL logic
            # error") — a running server's, each time a CLI or stdio process opens.
            row = writer.execute("SELECT v FROM chunks_fts_config WHERE k = 'rank'").fetchone()
            if row is None or row[0] != RANK:
                writer.execute(
                    "INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('rank', ?)", (RANK,)
                )
            reader = connect(self.db_path)
            opened.append(reader)
            reader.execute("SELECT count(*) FROM files").fetchone()
            probe = connect(self.db_path)
            opened.append(probe)
            self._data_version = int(probe.execute("PRAGMA data_version").fetchone()[0])
            row = writer.execute("SELECT count(*) FROM files WHERE error IS NULL").fetchone()
        except BaseException:
            for conn in opened:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
            raise
        self._writer, self._reader, self._probe = writer, reader, probe
        self._file_id = _file_id(self.db_path)
        self.files_indexed = int(row[0])

    @staticmethod
    def _upgrade(conn: sqlite3.Connection) -> None:
        """An index of an older format keeps its files' list but is re-chunked from them."""
        row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        if row is not None and row[0] == INDEX_FORMAT:
            return
        with transaction(conn):
            if row is not None or conn.execute("SELECT 1 FROM chunks LIMIT 1").fetchone():
                conn.execute("DROP TRIGGER IF EXISTS chunks_ai")
                conn.execute("DROP TRIGGER IF EXISTS chunks_ad")
                conn.execute("DROP TABLE IF EXISTS chunks_fts")
                conn.execute("DELETE FROM vectors")
                conn.execute("DELETE FROM chunks")
                # size -1 and no hash: the next scan reads and chunks every file again.
                conn.execute("UPDATE files SET size = -1, hash = '', chunks = 0")
            conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('format', ?)", (INDEX_FORMAT,)
            )
        conn.executescript(SCHEMA)

    def close(self) -> None:
        """Close both connections (after the worker has stopped using them)."""
        with self._read_lock, self._probe_lock:
            conns = (self._writer, self._reader, self._probe)
            self._writer = self._reader = self._probe = None
        for conn in conns:
            if conn is not None:
                try:
                    conn.close()
                except sqlite3.Error:
                    _LOGGER.debug("closing %s failed", self.db_path, exc_info=True)

    @property
    def generation(self) -> int:
        """Moves after every committed change to the index, by any process (for cache keys)."""
        self._sync_version()
        return self._generation

    def replaced(self) -> bool:
        """Whether ``data.db`` was deleted or swapped for another file (another process)."""
        return self._file_id is None or _file_id(self.db_path) != self._file_id

    def _bump(self) -> None:
        with self._gen_lock:
            self._generation += 1

    def _sync_version(self) -> None:
        """Notice commits made through any other connection (PRAGMA data_version)."""
        probe = self._probe
        if probe is None:
            return
        with self._probe_lock:
            try:
                version = int(probe.execute("PRAGMA data_version").fetchone()[0])
            except sqlite3.Error:
                return
            if version == self._data_version:
                return
            self._data_version = version
        self._bump()
        self.counts_stale = True

    def refresh_counts(self) -> None:
        """Re-count indexed files after another process changed the index (any thread)."""
        row = self._read(
            lambda conn: conn.execute("SELECT count(*) FROM files WHERE error IS NULL").fetchone()
        )
        self.files_indexed = int(row[0])
        self.counts_stale = False

    @property
    def is_open(self) -> bool:
        """Whether searches can run."""
        return self._reader is not None

    def _w(self) -> sqlite3.Connection:
        if self._writer is None:
            raise sqlite3.ProgrammingError(f"database {self.name} is closed")
        return self._writer

    def _refresh_counts(self) -> None:
        row = (
            self._w()
            .execute("SELECT count(*), coalesce(sum(chunks), 0) FROM files WHERE error IS NULL")
            .fetchone()
        )
        self.files_indexed = int(row[0])
        self.chunk_count = int(row[1])

    # --- indexing (worker thread only) ---------------------------------------

    def _walk(self) -> Iterable[tuple[str, Path]]:
        """(relative posix path, real path) of every supported regular file inside root."""
        own = self.own
        for dirpath, dirnames, filenames in os.walk(self.root, followlinks=False):
            dirnames[:] = sorted(
                d for d in dirnames if not d.startswith(".") and not own(f"{dirpath}/{d}")
            )
            for fname in sorted(filenames):
                if fname.startswith(".") or not supported(fname) or own(f"{dirpath}/{fname}"):
                    continue
                real = self._admissible(Path(dirpath) / fname)
                if real is not None:
                    yield (Path(dirpath, fname).relative_to(self.root).as_posix(), real)

    def _admissible(self, path: Path) -> Path | None:
        """The real path when it is a regular file inside root (symlinks checked)."""
        try:
            real = path.resolve(strict=True)
            st = real.stat()
        except (OSError, RuntimeError):
            return None
        if not _inside(real, self.root) or not stat.S_ISREG(st.st_mode):
            return None
        return real

    def scan(self, stop: StopFlag, *, force: bool = False) -> ScanReport:
        """Bring the index up to date with the folder: prune, then (re)index changed files."""
        report = ScanReport()
        conn = self._w()
        present = dict(self._walk()) if self.root.is_dir() else {}
        known = {row[0]: row[1] for row in conn.execute("SELECT path, id FROM files")}
        for rel in [r for r in known if r not in present]:
            self._remove(rel)
            report.removed += 1
        for rel, real in present.items():
            if stop.is_set():
                break
            self._index_one(rel, real, report, stop, force=force)
        self._after_write()
        return report

    def update_paths(self, paths: Iterable[Path], stop: StopFlag) -> ScanReport:
        """Apply watcher events: index what exists, forget what is gone."""
        report = ScanReport()
        conn = self._w()
        for path in paths:
            if stop.is_set():
                break
            try:
                rel_path = path.absolute().relative_to(self.root)
            except ValueError:
                continue
            if any(part.startswith(".") for part in rel_path.parts):
                continue
            rel = rel_path.as_posix()
            if self.own(self._root_prefix + rel):
                continue
            real = self._admissible(self.root / rel_path)
            if real is not None and supported(rel_path.name):
                self._index_one(rel, real, report, stop)
                continue
            if (self.root / rel_path).is_dir():
                for sub_rel, sub_real in self._walk():
                    if sub_rel.startswith(rel + "/"):
                        self._index_one(sub_rel, sub_real, report, stop)
                continue
            gone = [
                r
                for (r,) in conn.execute(
                    "SELECT path FROM files WHERE path = ? OR substr(path, 1, ?) = ?",
                    (rel, len(rel) + 1, rel + "/"),
                )
            ]
            for r in gone:
                self._remove(r)
                report.removed += 1
        if report.indexed or report.removed or report.failed:
            self._after_write()  # nothing changed: no write (and no event for a watcher)
        return report

    def _after_write(self) -> None:
        self._bump()
        self._refresh_counts()
        self._w().execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('last_update', ?)", (str(time.time()),)
        )

    def _remove(self, rel: str) -> None:
        conn = self._w()
        with transaction(conn):
            row = conn.execute("SELECT id FROM files WHERE path = ?", (rel,)).fetchone()
            if row is not None:
                conn.execute(
                    _DELETE_VECTORS,
                    (row[0],),
                )
                conn.execute("DELETE FROM chunks WHERE file_id = ?", (row[0],))
                conn.execute("DELETE FROM file_cuts WHERE file_id = ?", (row[0],))
                conn.execute("DELETE FROM files WHERE id = ?", (row[0],))

    def _index_one(
        self, rel: str, real: Path, report: ScanReport, stop: StopFlag, *, force: bool = False
    ) -> None:
        conn = self._w()
        try:
            st = real.stat()
        except OSError as err:
            self._record_failure(rel, 0, 0, "", f"cannot stat: {err.strerror}", report)
            return
        row = conn.execute(
            "SELECT size, mtime_ns, hash FROM files WHERE path = ?", (rel,)
        ).fetchone()
        if not force and row is not None and row[0] == st.st_size and row[1] == st.st_mtime_ns:
            report.unchanged += 1
            return
        if st.st_size > MAX_FILE_BYTES:
            msg = f"file is {st.st_size} bytes; the limit is {MAX_FILE_BYTES}"
            self._record_failure(rel, st.st_size, st.st_mtime_ns, "", msg, report)
            return
        try:
            with real.open("rb") as fh:
                raw = fh.read(MAX_FILE_BYTES + 1)
        except OSError as err:
            msg = f"cannot read: {err.strerror or err}"
            self._record_failure(rel, st.st_size, st.st_mtime_ns, "", msg, report)
            return
        digest = _file_hash(raw)
        if not force and row is not None and row[2] == digest:
            conn.execute(
                "UPDATE files SET size = ?, mtime_ns = ? WHERE path = ?",
                (st.st_size, st.st_mtime_ns, rel),
            )
            report.unchanged += 1
            return
        try:
            parsed = read_document(real.name, raw, self.limits, stop.is_set)
            del raw  # the bytes of a big file are not needed while chunking
            chunks = chunk_sections(parsed.sections, name=real.name)
        except Interrupted:
            return  # stopping: the file keeps its old chunks, the next scan redoes it
        except ParseError as err:
            self._record_failure(rel, st.st_size, st.st_mtime_ns, digest, str(err), report)
            return
        except Exception as err:
            msg = f"parser failed: {type(err).__name__}: {err}"
            self._record_failure(rel, st.st_size, st.st_mtime_ns, digest, msg, report)
            return
        cut = parsed.cut
        if len(chunks) > self.limits.max_chunks:
            cut.append(
                f"{len(chunks)} chunks; only the first {self.limits.max_chunks} are indexed "
                "(rag.max_file_chunks)"
            )
            del chunks[self.limits.max_chunks :]
        reason = "; ".join(cut) or None
        if reason:
            _LOGGER.warning("rag %s: %s cut short: %s", self.name, rel, reason)
            report.cut += 1
        self._replace(rel, st.st_size, st.st_mtime_ns, digest, None, chunks, reason)
        report.indexed += 1
        report.chunks += len(chunks)

    def _record_failure(
        self, rel: str, size: int, mtime_ns: int, digest: str, reason: str, report: ScanReport
    ) -> None:
        _LOGGER.warning("rag %s: cannot index %s: %s", self.name, rel, reason)
        self._replace(rel, size, mtime_ns, digest, reason, [])
        report.failed += 1
        report.errors.append((rel, reason))

    def _replace(
        self,
        rel: str,
        size: int,
        mtime_ns: int,
        digest: str,
        error: str | None,
        chunks: list[Any],
        cut: str | None = None,
    ) -> None:
        """Swap a file's chunks in one transaction, so a crash leaves old or new, never half."""
        conn = self._w()
        with transaction(conn):
            row = conn.execute("SELECT id FROM files WHERE path = ?", (rel,)).fetchone()
            now = time.time()
            if row is None:
                cur = conn.execute(
                    "INSERT INTO files(path, size, mtime_ns, hash, chunks, error, indexed_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (rel, size, mtime_ns, digest, len(chunks), error, now),
                )
                file_id = cur.lastrowid
            else:
                file_id = row[0]
                conn.execute(
                    _DELETE_VECTORS,
                    (file_id,),
                )
                conn.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))
                conn.execute(
                    "UPDATE files SET size = ?, mtime_ns = ?, hash = ?, chunks = ?, error = ?, "
                    "indexed_at = ? WHERE id = ?",
                    (size, mtime_ns, digest, len(chunks), error, now, file_id),
                )
            conn.executemany(
                "INSERT INTO chunks(file_id, ord, heading, content) VALUES (?, ?, ?, ?)",
                [(file_id, i, c.heading, c.content) for i, c in enumerate(chunks)],
            )
            conn.execute("DELETE FROM file_cuts WHERE file_id = ?", (file_id,))
            if cut:
                conn.execute("INSERT INTO file_cuts(file_id, reason) VALUES (?, ?)", (file_id, cut))

    def embed_missing(
        self, embedder: Any, loop: Any, stop: StopFlag, budget: int | None = None
    ) -> int:
        """Embed chunks without a vector; a different model than before re-embeds all."""
        conn = self._w()
        meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('embedder', 'dim')"))
        if meta.get("embedder") != embedder.name or meta.get("dim") != str(embedder.dim):
            with transaction(conn):
                conn.execute("DELETE FROM vectors")
                conn.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES ('embedder', ?), ('dim', ?)",
                    (embedder.name, str(embedder.dim)),
                )
            self._bump()
        done = 0
        after = 0  # walk chunk ids upwards: each batch starts where the last one ended
        while not stop.is_set() and (budget is None or done < budget):
            rows = conn.execute(
                "SELECT c.id, c.heading, c.content FROM chunks c "
                "LEFT JOIN vectors v ON v.chunk_id = c.id "
                "WHERE c.id > ? AND v.chunk_id IS NULL ORDER BY c.id LIMIT ?",
                (after, EMBED_BATCH),
            ).fetchall()
            if not rows:
                break
            after = rows[-1][0]
            texts = [embedding_text(h, c) for _, h, c in rows]
            vectors = embed_with_shipped(  # the bundled docs' come with the package
                embedder, texts, lambda todo: embed_blocking(embedder, todo, loop)
            )
            with transaction(conn):
                # A chunk replaced meanwhile is skipped: only live chunk ids get vectors.
                conn.executemany(
                    "INSERT OR REPLACE INTO vectors(chunk_id, vec) "
                    "SELECT ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)",
                    [
                        (r[0], v.astype(np.float32).tobytes(), r[0])
                        for r, v in zip(rows, vectors, strict=True)
                    ],
                )
            done += len(rows)
        if done:
            self._bump()
        return done

    # --- search (any thread) -------------------------------------------------

    def _read(self, fn: Callable[[sqlite3.Connection], Any]) -> Any:
        try:
            return self._read_once(fn)
        except sqlite3.DatabaseError as err:
            if corrupt(err) and self.damaged is None:
                self.damaged = str(err)
                _LOGGER.error("rag %s: the index %s is damaged: %s", self.name, self.db_path, err)
            raise

    def _read_once(self, fn: Callable[[sqlite3.Connection], Any]) -> Any:
        with guarded(self._read_lock):
            if self._reader is None:
                raise sqlite3.ProgrammingError(f"database {self.name} is closed")
            try:
                return fn(self._reader)
            except sqlite3.OperationalError as err:
                if _busy(err):
                    raise
                # Another process may have changed what this connection had
                # prepared (schema, FTS5 state): read once more on a fresh one.
                _LOGGER.info("rag %s: re-opening the reader after %s", self.name, err)
                stale, self._reader = self._reader, connect(self.db_path)
                with contextlib.suppress(sqlite3.Error):
                    stale.close()
                return fn(self._reader)

    def small_enough(self, max_chunks: int, *, vectors: bool = True) -> bool:
        """Whether a search may run on the event loop: few chunks (and, for a search by
        meaning, their vectors current in memory).

        The loop never waits for the read lock: a search held up by another thread's
        read moves to a thread (``inline.inline_or_thread``).
        """
        if not vectors:
            return self.chunk_count <= max_chunks
        cached = self._matrix
        return (
            cached is not None
            and cached[0] == self._generation
            and cached[2].shape[0] <= max_chunks
        )

    def file_path(self, rel: str) -> str:
        """The absolute path of an indexed file, as a string (no Path objects per hit)."""
        return self._root_prefix + rel

    def _alive(self, hits: list[Hit]) -> list[Hit]:
        """Drop hits whose file vanished and is not yet pruned."""
        prefix = self._root_prefix
        gone = {p for p in {h.path for h in hits} if not os.path.exists(prefix + p)}  # noqa: PTH110
        return [h for h in hits if h.path not in gone] if gone else hits

    def search_keyword(self, query: str, limit: int) -> list[Hit]:
        """BM25 over the FTS5 index; every word is a literal, OR-ed, with the thesaurus's
        synonyms and, for a word the index never holds, the spellings one slip away."""
        if fts_query(query) is None:
            return []

        def run(conn: sqlite3.Connection) -> list[Hit]:
            expr = fts_query(query, self._stand_ins(conn, query))
            rows = conn.execute(
                "SELECT c.id, f.path, c.ord, c.heading, c.content, m.rank FROM "
                "(SELECT rowid, rank FROM chunks_fts WHERE chunks_fts MATCH ? "
                "ORDER BY rank LIMIT ?) AS m "
                "JOIN chunks c ON c.id = m.rowid JOIN files f ON f.id = c.file_id "
                "ORDER BY m.rank",
                (expr, limit),
            ).fetchall()
            return [Hit(r[0], r[1], r[2], r[3], r[4], -float(r[5])) for r in rows]

        return self._alive(self._read(run))

    @staticmethod
    def _stems(conn: sqlite3.Connection, terms: list[str]) -> dict[int, str]:
        """The index's stem of each term (by FTS5's own tokenizer), by 1-based position."""
        conn.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab "
            "USING fts5vocab(main, chunks_fts, row)"
        )
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_words USING fts5(w, {TOKENIZER})"
        )
        conn.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_stems "
            "USING fts5vocab(temp, query_words, instance)"
        )
        conn.execute("DELETE FROM temp.query_words")
        conn.executemany(
            "INSERT INTO temp.query_words(rowid, w) VALUES (?, ?)",
            [(i, t) for i, t in enumerate(terms, start=1)],
        )
        stems: dict[int, str] = {}
        for doc, term in conn.execute("SELECT doc, term FROM temp.query_stems"):
            stems.setdefault(int(doc), str(term))
        return stems

    def _stand_ins(self, conn: sqlite3.Connection, query: str) -> list[str]:
        """For each question word the index never holds: the thesaurus's synonyms and the
        stems one typing slip away ("pasword" → "password", "consumer unit" → "fuse box").

        Words the index holds are searched as they are: widening them would only
        dilute the ranking (the Python documentation's keyword recall drops by 0.06).
        """
        tokens = [t for t in query_tokens(query) if t.isalpha()]
        if not tokens:
            return []
        stems = self._stems(conn, tokens)
        if not stems:
            return []
        marks = ",".join("?" * len(stems))
        known = {
            str(r[0])
            for r in conn.execute(
                f"SELECT term FROM temp.chunks_vocab WHERE term IN ({marks})",  # noqa: S608
                list(stems.values()),
            )
        }
        out: list[str] = []
        for i, token in enumerate(tokens, start=1):
            s = stems.get(i, "")
            if not s or s in known:
                continue
            out.extend(relevance.synonym_words(query, token))
            if len(token) >= relevance.TYPO_MIN and len(s) >= relevance.TYPO_MIN - 1:
                out.extend(vocabulary_slips(conn, "temp.chunks_vocab", s) or ())
        out = out[:16]
        if joins_compounds(foreign(query)):
            endings = self._endings(conn)
            out.extend(compound_terms(endings, list(stems.values())))
            out.extend(compound_heads(endings, list(stems.values())))
        return list(dict.fromkeys(out))

    def _endings(self, conn: sqlite3.Connection) -> Endings:
        """The index's terms backwards (``Endings``), read once per change of the index:
        a scan of a large vocabulary per question word cost 15 ms per 60,000 terms."""
        generation = self.generation
        cached = self._ends
        if cached is not None and cached[0] == generation:
            return cached[1]
        terms = conn.execute("SELECT term, doc FROM temp.chunks_vocab")
        rows = sorted((str(t)[::-1], int(d)) for t, d in terms)
        endings: Endings = ([r[0] for r in rows], [r[1] for r in rows])
        self._ends = (generation, endings)
        return endings

    def spellings(self, words: list[str]) -> Spellings:
        """For each word: None when the index holds it, else the words it holds one typing
        slip away ("recyling" → ["recycling"])."""

        def run(conn: sqlite3.Connection) -> Spellings:
            stems = self._stems(conn, words)
            out: Spellings = {}
            for i, word in enumerate(words, start=1):
                s = stems.get(i, "")
                slips = vocabulary_slips(conn, "temp.chunks_vocab", s) if s else None
                if slips is None:
                    out[word] = None
                    continue
                # Stems are short ("recyl", "recal"): the words themselves must be a slip apart.
                spelled = [self._spelled(conn, t) for t in slips]
                out[word] = [w for w in spelled if w and relevance.one_edit(word, fold(w))]
            return out

        if not words:
            return {}
        out: Spellings = self._read(run)
        return out

    def _spelled(self, conn: sqlite3.Connection, term: str) -> str:
        """A word of the documents that the index stems to ``term`` (it stores stems)."""
        row = conn.execute(
            "SELECT content FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1",
            ('"' + term.replace('"', '""') + '"',),
        ).fetchone()
        if row is None:
            return ""
        candidates = list(dict.fromkeys(w.lower() for w in re.findall(r"[^\W\d_]+", row[0])))
        stems = self._stems(conn, candidates)
        return next((w for i, w in enumerate(candidates, start=1) if stems.get(i) == term), "")

    def term_counts(self, terms: list[str]) -> tuple[dict[str, int], int]:
        """How many chunks hold each term (as the index stems it), and how many chunks there are.

        The words are stemmed by FTS5 itself (a scratch table with the index's
        tokenizer), so "dishwasher" is looked up as the index stores it.
        """

        def run(conn: sqlite3.Connection) -> tuple[dict[str, int], int]:
            stems = self._stems(conn, terms)
            wanted = sorted(set(stems.values()))
            marks = ",".join("?" * len(wanted))
            found = dict(
                conn.execute(
                    f"SELECT term, doc FROM temp.chunks_vocab WHERE term IN ({marks})",  # noqa: S608
                    wanted,
                ).fetchall()
            )
            total = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
            out = {t: int(found.get(stems.get(i, ""), 0)) for i, t in enumerate(terms, start=1)}
            return {t: n for t, n in out.items() if n}, int(total)

        if not terms:
            return {}, 0
        out: tuple[dict[str, int], int] = self._read(run)
        return out

    def _vectors(self) -> tuple[str, np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        generation = self.generation
        cached = self._matrix
        if cached is not None and cached[0] == generation:
            return cached[1], cached[2], cached[3]

        def load(conn: sqlite3.Connection) -> tuple[str, list[int], list[bytes]]:
            meta = dict(conn.execute("SELECT key, value FROM meta WHERE key = 'embedder'"))
            rows = conn.execute("SELECT chunk_id, vec FROM vectors ORDER BY chunk_id").fetchall()
            return meta.get("embedder", ""), [r[0] for r in rows], [r[1] for r in rows]

        name, ids, blobs = self._read(load)
        if blobs:
            # Copy into an aligned, writable array: BLAS is far slower on the bytes buffer.
            matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1).copy()
        else:
            matrix = np.zeros((0, 1), dtype=np.float32)
        id_arr = np.asarray(ids, dtype=np.int64)
        self._matrix = (generation, name, matrix, id_arr)
        return name, matrix, id_arr

    def embedder_name(self) -> str:
        """The embedder the stored vectors came from ('' before any)."""
        row = self._w().execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
        return str(row[0]) if row else ""

    def embedded_with(self) -> tuple[str, int]:
        """The embedder name the stored vectors came from, and how many there are."""
        name, matrix, _ = self._vectors()
        return name, int(matrix.shape[0])

    def search_vector(self, embedder_name: str, vec: Vector, limit: int) -> list[Hit]:
        """Cosine similarity against the stored vectors (exact, in memory)."""
        name, matrix, ids = self._vectors()
        if name != embedder_name or matrix.shape[0] == 0 or matrix.shape[1] != vec.shape[0]:
            return []
        # einsum stays on this thread; BLAS would fan out threads that spin on a busy box.
        sims = np.einsum("ij,j->i", matrix, vec)
        k = min(limit, sims.shape[0])
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top])]
        picked = [(int(ids[i]), float(sims[i])) for i in top if sims[i] > 0]
        if not picked:
            return []
        score = dict(picked)

        def run(conn: sqlite3.Connection) -> list[Hit]:
            marks = ",".join("?" * len(picked))
            rows = conn.execute(
                "SELECT c.id, f.path, c.ord, c.heading, c.content FROM chunks c "  # noqa: S608
                f"JOIN files f ON f.id = c.file_id WHERE c.id IN ({marks})",
                [cid for cid, _ in picked],
            ).fetchall()
            return [Hit(r[0], r[1], r[2], r[3], r[4], score[r[0]]) for r in rows]

        hits = sorted(self._read(run), key=lambda h: h.score, reverse=True)
        return self._alive(hits)

    def status(self) -> dict[str, Any]:
        """Files indexed, failures with reasons, chunk count and last update."""

        def run(conn: sqlite3.Connection) -> dict[str, Any]:
            files, chunks = conn.execute(
                "SELECT count(*), coalesce(sum(chunks), 0) FROM files WHERE error IS NULL"
            ).fetchone()
            failed = [
                {"path": p, "error": e}
                for p, e in conn.execute(
                    "SELECT path, error FROM files WHERE error IS NOT NULL ORDER BY path LIMIT 200"
                )
            ]
            n_failed = conn.execute("SELECT count(*) FROM files WHERE error IS NOT NULL").fetchone()
            meta = dict(conn.execute("SELECT key, value FROM meta"))
            vectors = conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
            cut = [
                {"path": p, "reason": r}
                for p, r in conn.execute(
                    "SELECT f.path, c.reason FROM file_cuts c JOIN files f ON f.id = c.file_id "
                    "ORDER BY f.path LIMIT 200"
                )
            ]
            n_cut = conn.execute("SELECT count(*) FROM file_cuts").fetchone()[0]
            self.files_indexed = int(files)
            return {
                "files_indexed": files,
                "chunks": chunks,
                "files_failed": n_failed[0],
                "failures": failed,
                "files_cut": n_cut,
                "cut": cut,
                "last_update": float(meta["last_update"]) if "last_update" in meta else None,
                "embedder": {
                    "name": meta.get("embedder"),
                    "dim": int(meta["dim"]) if "dim" in meta else None,
                    "vectors": vectors,
                },
            }

        out: dict[str, Any] = self._read(run)
        return out

    def read_text(self, rel: str) -> str:
        """Text of one indexed file, re-read from disk (for source bundles)."""
        from .parsing import document_text

        real = self._admissible(self.root / rel)
        if real is None:
            raise FileNotFoundError(rel)
        with real.open("rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
        return document_text(real.name, raw)
