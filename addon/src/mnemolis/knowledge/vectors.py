"""Embedders turn text into vectors for semantic search; a hashing fallback needs no model."""

from __future__ import annotations

import asyncio
import inspect
import re
import zlib
from collections import OrderedDict
from collections.abc import Sequence
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
        if vec.shape[0] != dim:
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
        return as_unit_vectors(sync(texts), int(embedder.dim))
    if loop is None or loop.is_closed():
        raise RuntimeError(f"embedder {embedder.name} needs a running event loop")
    future = asyncio.run_coroutine_threadsafe(embedder.embed(texts), loop)
    return as_unit_vectors(future.result(timeout), int(embedder.dim))


async def embed_async(embedder: Any, texts: list[str]) -> list[Vector]:
    """Embed from the event loop without blocking it: a model is awaited on its own
    thread, the hashing fallback's CPU work runs on a worker thread."""
    if not texts:
        return []
    sync = getattr(embedder, "embed_sync", None)
    if callable(sync) and (isinstance(embedder, HashingEmbedder) or not _awaitable(embedder)):
        rows = await asyncio.to_thread(sync, texts)
        return as_unit_vectors(rows, int(embedder.dim))
    return as_unit_vectors(await embedder.embed(texts), int(embedder.dim))


def _awaitable(embedder: Any) -> bool:
    return inspect.iscoroutinefunction(getattr(embedder, "embed", None))


QUERY_MEMO = 256  # question vectors kept: one question is ranked by several stages
_QUERY_VECTORS: OrderedDict[tuple[str, str], Vector] = OrderedDict()


async def embed_query(embedder: Any, text: str) -> Vector:
    """One question's unit vector, from the event loop without ever waiting on the model
    there; of ``query_text`` only, remembered for the other stages asking it."""
    asked = query_text(text)
    key = (str(getattr(embedder, "name", "")), asked)
    hit = _QUERY_VECTORS.get(key)
    if hit is not None:
        _QUERY_VECTORS.move_to_end(key)
        return hit
    if isinstance(embedder, HashingEmbedder):  # no model: a few microseconds of hashing
        vec = embedder.embed_sync([asked])[0]
    else:
        vec = (await embed_async(embedder, [asked]))[0]
    _QUERY_VECTORS[key] = vec
    if len(_QUERY_VECTORS) > QUERY_MEMO:
        _QUERY_VECTORS.popitem(last=False)
    return vec


FALLBACK = HashingEmbedder()


def current_embedder(model: Embedder | None) -> Embedder:
    """The published model embedder when there is one, else the hashing fallback."""
    if model is not None and getattr(model, "name", None) and getattr(model, "dim", 0):
        return model
    return FALLBACK
