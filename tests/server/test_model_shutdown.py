"""Closing a model while it works: the job stops, and weights are never freed under it.

A server stopping during indexing (SIGTERM mid-reindex, a test's teardown) used to
free the embedding model after a 30 s join timed out while its thread was still
decoding, and the process died in llama.cpp (a segfault in its matrix code).
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from mnemolis.errors import Unavailable
from mnemolis.llm.catalog import read_metadata
from mnemolis.llm.embedding_model import LocalEmbedder
from mnemolis.settings import LLMSettings

from .model_fixture import embedding_model  # noqa: F401  (fixture)


async def test_close_during_a_long_embedding_stops_it_and_frees_safely(
    embedding_model: Path,  # noqa: F811
) -> None:
    embedder = LocalEmbedder(read_metadata(embedding_model), LLMSettings(threads=1))
    await embedder.wait_loaded()
    assert embedder.ready, (embedder.state, embedder.error)
    texts = [f"passage {i} about the boiler, the garage door and the lights" for i in range(5000)]
    outcome: list[BaseException | int] = []

    def index() -> None:
        try:
            outcome.append(len(embedder.embed_sync(texts)))
        except BaseException as err:  # the test reports what happened
            outcome.append(err)

    worker = threading.Thread(target=index)
    worker.start()
    while not embedder.worker.busy:
        await asyncio.sleep(0.01)
    await asyncio.to_thread(embedder.close)
    await asyncio.to_thread(worker.join, 60)
    assert not worker.is_alive()
    # The long job gave up at the next text instead of running to its end...
    assert len(outcome) == 1 and isinstance(outcome[0], Unavailable), outcome
    assert "shutting down" in str(outcome[0])
    # ...so the thread had stopped and the weights could be freed.
    assert embedder.worker.stopped, "the model thread is still running"
    assert embedder.state == "closed"
    with pytest.raises(Unavailable):
        embedder.embed_sync(["after close"])
