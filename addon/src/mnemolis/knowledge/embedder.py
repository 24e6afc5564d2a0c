"""Embedders turn text into vectors for semantic search; a hashing fallback needs no model."""

from __future__ import annotations

import asyncio
import itertools
import re
import zlib
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]

_WORD = re.compile(r"\w+", re.UNICODE)


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

    def embed_sync(self, texts: Sequence[str]) -> list[Vector]:
        """Vectors computed on the calling thread (used by the indexing thread)."""
        out: list[Vector] = []
        for text in texts:
            words = [w.lower() for w in _WORD.findall(text)]
            feats = words + [f"{a} {b}" for a, b in itertools.pairwise(words)]
            vec = np.zeros(self.dim, dtype=np.float32)
            if feats:
                hashes = np.fromiter(
                    (zlib.crc32(f.encode("utf-8")) for f in feats),
                    dtype=np.uint32,
                    count=len(feats),
                )
                signs = np.where(hashes & 0x80000000, -1.0, 1.0).astype(np.float32)
                np.add.at(vec, (hashes % self.dim).astype(np.intp), signs)
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
    """Embed from the event loop without blocking it for the fallback's CPU work."""
    if not texts:
        return []
    sync = getattr(embedder, "embed_sync", None)
    if callable(sync):
        rows = await asyncio.to_thread(sync, texts)
        return as_unit_vectors(rows, int(embedder.dim))
    return as_unit_vectors(await embedder.embed(texts), int(embedder.dim))


FALLBACK = HashingEmbedder()


def current_embedder(services: dict[str, Any] | None) -> Any:
    """The published model embedder when there is one, else the hashing fallback."""
    found = (services or {}).get("embedder")
    if found is not None and getattr(found, "name", None) and getattr(found, "dim", 0):
        return found
    return FALLBACK
