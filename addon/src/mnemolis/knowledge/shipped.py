"""The bundled docs' vectors, computed once with the package, not on the user's machine.

``bundled_docs/vectors.npz`` holds, for the default embedding model, one float16 vector
per chunk of the bundled docs, keyed by a hash of the text the index embeds (heading
and content). Indexing takes a chunk's vector from it when the text's hash is there and
the model is the same one: same name and size, and its vector of a probe sentence equal
to the stored one (checked once per loaded model, one short call). Any other chunk, or
any other model, is embedded as usual. ``make docs`` rebuilds the file
(``shipped_build.py``); a test fails when the docs' chunks and the file drift apart.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .registry import BUNDLED_DIR
from .vectors import Vector

_LOGGER = logging.getLogger(__name__)

SHIPPED = BUNDLED_DIR / "vectors.npz"
PROBE = "Which sources does Mnemolis ask when a question is about the home?"
SAME_MODEL = 0.995  # cosine of the probe's vectors: the same model (float16, threads)


def text_hash(text: str) -> bytes:
    """The key of one embedded text (16 bytes of its SHA-256)."""
    return hashlib.sha256(text.encode("utf-8")).digest()[:16]


@dataclass(slots=True)
class ShippedVectors:
    """The table: which model, its vectors, and the probe that proves it is that model."""

    model: str
    dim: int
    rows: dict[bytes, int]
    vectors: np.ndarray[Any, np.dtype[np.float16]]
    probe: Vector

    def vector(self, text: str) -> Vector | None:
        """The stored unit vector of a text, or None."""
        row = self.rows.get(text_hash(text))
        if row is None:
            return None
        vec: Vector = np.asarray(self.vectors[row], dtype=np.float32)
        norm = float(np.linalg.norm(vec))
        return vec / norm if norm > 0 else vec


@functools.cache
def table(path: Path = SHIPPED) -> ShippedVectors | None:
    """The shipped table, read once (None when missing or unreadable)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            hashes = data["hashes"]
            return ShippedVectors(
                model=str(data["model"]),
                dim=int(data["vectors"].shape[1]),
                rows={bytes(h): i for i, h in enumerate(hashes)},
                vectors=data["vectors"].astype(np.float16),
                probe=data["probe"].astype(np.float32),
            )
    except (OSError, KeyError, ValueError) as err:
        _LOGGER.info("no shipped vectors for the bundled docs (%s)", err)
        return None


_CHECKED: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()
_CHECK_LOCK = threading.Lock()


def _same_model(embedder: Any, shipped: ShippedVectors, embed: Callable[[list[str]], Any]) -> bool:
    """Whether this loaded model is the one the table was built with (checked once)."""
    if getattr(embedder, "name", None) != shipped.model or int(embedder.dim) != shipped.dim:
        return False
    with _CHECK_LOCK:
        try:
            return _CHECKED[embedder]
        except (KeyError, TypeError):
            pass
        try:
            vec = np.asarray(embed([PROBE])[0], dtype=np.float32)
            same = (
                float(vec @ shipped.probe)
                / (float(np.linalg.norm(vec) * np.linalg.norm(shipped.probe)) or 1.0)
                >= SAME_MODEL
            )
        except Exception as err:  # the ordinary path will say what is wrong
            _LOGGER.info("shipped vectors not used: %s", err)
            return False
        if not same:
            _LOGGER.info("model %s differs from the shipped vectors' one", shipped.model)
        with contextlib.suppress(TypeError):  # a model that cannot be weakly referenced
            _CHECKED[embedder] = same
        return same


def embed_with_shipped(
    embedder: Any, texts: list[str], embed: Callable[[list[str]], list[Vector]]
) -> list[Vector]:
    """Vectors for ``texts``: the shipped ones where the model and text match, the rest
    from ``embed`` (in one call)."""
    shipped = table()
    if shipped is None or getattr(embedder, "name", None) != shipped.model:
        return embed(texts)
    found = [shipped.vector(t) for t in texts]
    if all(v is None for v in found) or not _same_model(embedder, shipped, embed):
        return embed(texts)
    todo = [t for t, v in zip(texts, found, strict=True) if v is None]
    computed = iter(embed(todo) if todo else [])
    return [v if v is not None else next(computed) for v in found]
