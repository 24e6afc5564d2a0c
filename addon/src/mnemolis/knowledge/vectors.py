"""Embedders turn text into vectors for semantic search; a hashing fallback needs no model."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import re
import weakref
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from .text import query_text

Vector = npt.NDArray[np.float32]

_WORD = re.compile(r"\w+", re.UNICODE)


class _HashCache(dict[str, int]):
    """crc32 of each word, computed once (natural text repeats its words a lot)."""

    def __missing__(self, word: str) -> int:
        value = zlib.crc32(word.encode("utf-8"))
        self[word] = value
        return value


@runtime_checkable
class Embedder(Protocol):
    """What semantic search needs from a model: a stable name, a size, and vectors."""

    name: str
    dim: int

    async def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order."""
        ...


class HashingEmbedder:
    """Feature hashing of words and word pairs: no model, honest name, stable vectors.

    It only finds texts that share words (or word pairs) with the query, so it is
    a fallback until a real embedding model is loaded; results say which one ran.
    """

    name = "hashing-fallback"
    # Below this cosine, two texts share little more than hash collisions.
    min_similarity = 0.08

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self._cache = _HashCache()

    def _word_hashes(self, words: list[str]) -> npt.NDArray[np.uint64]:
        if len(self._cache) > 500_000:
            self._cache.clear()
        return np.fromiter(map(self._cache.__getitem__, words), dtype=np.uint64, count=len(words))

    def embed_sync(self, texts: Sequence[str]) -> list[Vector]:
        """Vectors computed on the calling thread (used by the indexing thread)."""
        out: list[Vector] = []
        for text in texts:
            words = _WORD.findall(text.lower())
            if not words:
                out.append(np.zeros(self.dim, dtype=np.float32))
                continue
            uni = self._word_hashes(words)
            # Word pairs hash from their words' hashes: no strings built per pair.
            pairs = ((uni[:-1] * np.uint64(1_000_003)) ^ uni[1:]) & np.uint64(0xFFFFFFFF)
            feats = np.concatenate((uni, pairs))
            signs = np.where(feats & np.uint64(0x80000000), -1.0, 1.0)
            vec = np.bincount(
                (feats % np.uint64(self.dim)).astype(np.intp), weights=signs, minlength=self.dim
            ).astype(np.float32)
            norm = float(np.linalg.norm(vec))
            if norm > 0:
                vec /= norm
            out.append(vec)
        return out

    async def embed(self, texts: list[str]) -> list[list[float]]:
        """Async form of the protocol."""
        return [v.tolist() for v in self.embed_sync(texts)]


def as_unit_vectors(rows: Sequence[Sequence[float]] | Sequence[Vector], dim: int) -> list[Vector]:
    """Normalise embedder output to unit float32 vectors of the declared size."""
    out: list[Vector] = []
    for row in rows:
        vec = np.asarray(row, dtype=np.float32).reshape(-1)
        if dim > 0 and vec.shape[0] != dim:
            raise ValueError(f"embedder returned {vec.shape[0]} dimensions, declared {dim}")
        norm = float(np.linalg.norm(vec))
        out.append(vec / norm if norm > 0 else vec)
    return out


def embed_blocking(
    embedder: Any, texts: list[str], loop: asyncio.AbstractEventLoop | None, timeout: float = 120
) -> list[Vector]:
    """Embed from a worker thread: directly when possible, else on the event loop."""
    if not texts:
        return []
    sync = getattr(embedder, "embed_sync", None)
    if callable(sync):
        return as_unit_vectors(sync(texts), _dim(embedder))
    if loop is None or loop.is_closed():
        raise RuntimeError(f"embedder {embedder.name} needs a running event loop")
    future = asyncio.run_coroutine_threadsafe(embedder.embed(texts), loop)
    return as_unit_vectors(future.result(timeout), _dim(embedder))


async def embed_async(embedder: Any, texts: list[str]) -> list[Vector]:
    """Embed from the event loop without blocking it: a model is awaited on its own
    thread, the hashing fallback's CPU work runs on a worker thread."""
    if not texts:
        return []
    sync = getattr(embedder, "embed_sync", None)
    if callable(sync) and (isinstance(embedder, HashingEmbedder) or not _awaitable(embedder)):
        rows = await asyncio.to_thread(sync, texts)
        return as_unit_vectors(rows, _dim(embedder))
    return as_unit_vectors(await embedder.embed(texts), _dim(embedder))


def _dim(embedder: Any) -> int:
    """The declared size (0: not declared, any size is taken)."""
    return int(getattr(embedder, "dim", 0) or 0)


def _awaitable(embedder: Any) -> bool:
    return inspect.iscoroutinefunction(getattr(embedder, "embed", None))


QUERY_MEMO = 256  # question vectors kept across requests, per model

_Key = tuple[str, str]


@dataclass(slots=True)
class _QueryMemo:
    """One model's question vectors: the last QUERY_MEMO, and those being computed."""

    done: OrderedDict[str, Vector] = field(default_factory=OrderedDict)
    pending: dict[str, tuple[asyncio.Future[list[Vector]], int]] = field(default_factory=dict)

    def get(self, key: str) -> Vector | None:
        hit = self.done.get(key)
        if hit is not None:
            with contextlib.suppress(KeyError):  # evicted meanwhile by another thread
                self.done.move_to_end(key)
        return hit

    def put(self, key: str, vec: Vector) -> None:
        self.done[key] = vec
        self.done.move_to_end(key)
        while len(self.done) > QUERY_MEMO:
            self.done.popitem(last=False)


# Per model object, so a reloaded (or test) model never sees another's vectors.
_MEMOS: weakref.WeakKeyDictionary[Any, _QueryMemo] = weakref.WeakKeyDictionary()
_MEMOS_BY_NAME: dict[str, _QueryMemo] = {}  # models that cannot be weakly referenced
#: The vectors of the request being answered (set by the router): a question keeps its
#: vector for the life of its request, whatever the memo evicts meanwhile.
REQUEST_VECTORS: ContextVar[dict[_Key, Vector] | None] = ContextVar(
    "mnemolis_request_vectors", default=None
)


def _memo(embedder: Any) -> _QueryMemo:
    try:
        memo = _MEMOS.get(embedder)
        if memo is None:
            memo = _MEMOS[embedder] = _QueryMemo()
        return memo
    except TypeError:
        return _MEMOS_BY_NAME.setdefault(str(getattr(embedder, "name", "")), _QueryMemo())


def forget_queries() -> None:
    """Drop every remembered question vector (benchmarks measuring a cold question)."""
    for memo in [*_MEMOS.values(), *_MEMOS_BY_NAME.values()]:
        memo.done.clear()


_ENDS = " \t\r\n?!.,;:"


def query_key(text: str) -> str:
    """What a question is embedded as: its ``query_text`` with spaces normalised and no
    end punctuation, so the router's part ("… hiding") and the source's question
    ("… hiding?") share one vector."""
    return " ".join(query_text(text).split()).strip(_ENDS) or text


def known_query(embedder: Any, text: str) -> Vector | None:
    """A question's vector when this request or the memo already has it (no model call)."""
    key = query_key(text)
    request = REQUEST_VECTORS.get()
    rkey = (str(getattr(embedder, "name", "")), key)
    if request is not None and rkey in request:
        return request[rkey]
    vec = _memo(embedder).get(key)
    if vec is not None and request is not None:
        request[rkey] = vec
    return vec


def remember_query(embedder: Any, text: str, vec: Vector) -> None:
    """Keep a question's vector for this request and the next ones."""
    key = query_key(text)
    _memo(embedder).put(key, vec)
    request = REQUEST_VECTORS.get()
    if request is not None:
        request[(str(getattr(embedder, "name", "")), key)] = vec


async def embed_queries(embedder: Any, texts: list[str]) -> list[Vector]:
    """Questions' unit vectors, each computed once per model: from this request, the memo,
    or a computation already under way; the rest in one call to the model, off the loop."""
    keys = [query_key(t) for t in texts]
    memo = _memo(embedder)
    found: dict[str, Vector] = {}
    waits: dict[str, tuple[asyncio.Future[list[Vector]], int]] = {}
    for key in keys:
        vec = known_query(embedder, key)
        if vec is not None:
            found[key] = vec
        elif key in memo.pending:
            waits[key] = memo.pending[key]
    todo = [k for k in dict.fromkeys(keys) if k not in found and k not in waits]
    if todo and isinstance(embedder, HashingEmbedder):  # no model: microseconds of hashing
        for key, vec in zip(todo, embedder.embed_sync(todo), strict=True):
            remember_query(embedder, key, vec)
            found[key] = vec
    elif todo:
        # Its own task: a request given up on never cancels what another one awaits.
        task = asyncio.ensure_future(_compute(embedder, memo, todo))
        task.add_done_callback(_retrieved)
        for i, key in enumerate(todo):
            waits[key] = memo.pending[key] = (task, i)
    for key, (future, i) in waits.items():
        vec = (await asyncio.shield(future))[i]
        remember_query(embedder, key, vec)
        found[key] = vec
    return [found[k] for k in keys]


async def _compute(embedder: Any, memo: _QueryMemo, todo: list[str]) -> list[Vector]:
    try:
        vecs = await embed_async(embedder, todo)
        for key, vec in zip(todo, vecs, strict=True):
            memo.put(key, vec)
        return vecs
    finally:
        for key in todo:
            memo.pending.pop(key, None)


def _retrieved(task: asyncio.Future[list[Vector]]) -> None:
    if not task.cancelled():
        task.exception()  # whoever asked saw it; never "exception was never retrieved"


async def embed_query(embedder: Any, text: str) -> Vector:
    """One question's unit vector, from the event loop without ever waiting on the model
    there; computed once per model and shared by every stage that asks (issue 30)."""
    return (await embed_queries(embedder, [text]))[0]


def embed_queries_sync(embedder: Any, texts: list[str]) -> list[Vector]:
    """Blocking form of ``embed_queries`` for a worker thread (the sync router)."""
    keys = [query_key(t) for t in texts]
    found = {k: v for k in keys if (v := known_query(embedder, k)) is not None}
    todo = [k for k in dict.fromkeys(keys) if k not in found]
    if todo:
        for key, vec in zip(todo, embed_blocking(embedder, todo, None), strict=True):
            remember_query(embedder, key, vec)
            found[key] = vec
    return [found[k] for k in keys]


FALLBACK = HashingEmbedder()


def current_embedder(model: Embedder | None) -> Embedder:
    """The published model embedder when there is one, else the hashing fallback."""
    if model is not None and getattr(model, "name", None) and getattr(model, "dim", 0):
        return model
    return FALLBACK
