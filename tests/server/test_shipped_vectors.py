"""Issue 30: the bundled docs' vectors come with the package, not from the user's CPU."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np

from mnemolis.knowledge.shipped import PROBE, embed_with_shipped, table
from mnemolis.knowledge.shipped_build import bundled_texts, stale
from mnemolis.knowledge.vectors import HashingEmbedder, Vector
from mnemolis.llm import bundled
from mnemolis.llm.catalog import read_metadata
from mnemolis.llm.embedding_model import LocalEmbedder
from mnemolis.settings import load_settings


async def test_every_bundled_chunk_has_a_shipped_vector() -> None:
    """Fails when the docs or their chunking changed without `make docs`."""
    shipped = table()
    assert shipped is not None, "bundled_docs/vectors.npz is missing: run make docs"
    assert shipped.model == bundled.NAME
    missing = stale(await bundled_texts(), shipped)
    assert not missing, f"{len(missing)} chunk(s) without a shipped vector: run make docs"


class _SameName:
    """Another model that took the default model's name (a user's own file)."""

    name = bundled.NAME
    dim = 384

    def __init__(self) -> None:
        self.embedded: list[str] = []
        self._words = HashingEmbedder(self.dim)

    def embed(self, texts: list[str]) -> list[Vector]:
        self.embedded.extend(texts)
        return self._words.embed_sync(texts)


async def test_a_different_model_with_the_same_name_embeds_every_chunk() -> None:
    texts = (await bundled_texts())[:5]
    model = _SameName()
    vectors = embed_with_shipped(model, texts, model.embed)
    assert model.embedded == [PROBE, *texts]
    assert all(np.allclose(v, w) for v, w in zip(vectors, model.embed(texts), strict=True))


async def test_the_default_model_takes_the_shipped_vectors(embedding_model: Path) -> None:
    texts = (await bundled_texts())[:4] + ["A note of the user's own, never shipped."]
    settings = load_settings(environ={}, overrides={"data_dir": "/tmp/mnemolis-shipped"})
    model = LocalEmbedder(read_metadata(embedding_model), settings.llm)
    await model.wait_loaded()
    try:
        asked: list[str] = []

        def embed(todo: list[str]) -> list[Vector]:
            asked.extend(todo)
            return [np.asarray(v, dtype=np.float32) for v in model.embed_sync(todo)]

        vectors = await asyncio.to_thread(embed_with_shipped, model, texts, embed)
        assert asked == [PROBE, texts[-1]]  # the probe once, then only the unshipped text
        own = await asyncio.to_thread(model.embed_sync, texts)
        for shipped, computed in zip(vectors, own, strict=True):
            assert float(np.dot(shipped, np.asarray(computed))) > 0.995
    finally:
        await asyncio.to_thread(model.close)
