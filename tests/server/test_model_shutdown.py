"""Closing a model while it works: the job stops, and weights are never freed under it.

A server stopping during indexing (SIGTERM mid-reindex, a test's teardown) used to
free the embedding model after a 30 s join timed out while its thread was still
decoding, and the process died in llama.cpp (a segfault in its matrix code).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from mnemolis.errors import Unavailable
from mnemolis.knowledge import shipped
from mnemolis.llm.catalog import read_metadata
from mnemolis.llm.embedding_model import LocalEmbedder
from mnemolis.rest import keys
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


async def test_a_model_closed_mid_pass_pauses_the_embedding_without_a_traceback(
    make_client: Callable[..., Any],
    embedding_model: Path,  # noqa: F811
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The model going away mid-pass is said in one line; the vectors come when it is back."""
    # The indexing thread's second slice waits at a gate, so the model is closed while
    # the pass is surely running (racing a status poll, the pass sometimes finished first).
    entered, release = threading.Event(), threading.Event()
    slices: list[int] = []
    real = LocalEmbedder.embed_sync

    def gated(self: LocalEmbedder, texts: list[str]) -> list[list[float]]:
        if threading.current_thread().name.startswith("mnemolis-index"):
            slices.append(len(texts))
            if len(slices) == 2:
                entered.set()
                release.wait(120)
        return real(self, texts)

    monkeypatch.setattr(LocalEmbedder, "embed_sync", gated)
    # The docs are embedded by the model here, as for any model but the one their
    # vectors ship for: with the shipped ones there would be no pass to interrupt.
    monkeypatch.setattr(shipped, "table", lambda path=shipped.SHIPPED: None)
    client: TestClient[Any, Any] = await make_client(
        llm={"embedding_model": str(embedding_model), "threads": 1}
    )
    assert await asyncio.to_thread(entered.wait, 120), "the docs were never embedded"
    caplog.set_level(logging.INFO, logger="mnemolis")
    await client.app[keys.CORE].services.llm.stop()
    release.set()

    def said() -> list[logging.LogRecord]:
        return [r for r in caplog.records if "mnemolis-docs: embedding" in r.getMessage()]

    deadline = asyncio.get_running_loop().time() + 120
    while not said():
        assert asyncio.get_running_loop().time() < deadline, "the pass never said it stopped"
        await asyncio.sleep(0.05)
    assert all(r.exc_info is None for r in said()), [r.getMessage() for r in said()]
    assert any("paused" in r.getMessage() for r in said()), [r.getMessage() for r in said()]
    resp = await client.get("/api/rag/mnemolis-docs")
    assert resp.status == 200  # the store still serves, by keywords


async def test_a_model_closed_while_a_new_folder_is_indexed_keeps_the_index(
    make_client: Callable[..., Any],
    embedding_model: Path,  # noqa: F811
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """The first embedding runs inside the folder's indexing job; the model going away
    then pauses it in one line (it was "indexing failed" with a traceback), and the
    folder stays indexed, searchable by its words."""
    entered, release = threading.Event(), threading.Event()
    real = LocalEmbedder.embed_sync

    def gated(self: LocalEmbedder, texts: list[str]) -> list[list[float]]:
        if any("gatepost" in t for t in texts):
            entered.set()
            release.wait(120)
        return real(self, texts)

    monkeypatch.setattr(LocalEmbedder, "embed_sync", gated)
    folder = tmp_path / "roots" / "house"
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("The gatepost light is on a timer.\n", encoding="utf-8")
    client: TestClient[Any, Any] = await make_client(
        llm={"embedding_model": str(embedding_model), "threads": 1},
        rag={"roots": [str(folder.parent)], "watch": False},
    )
    core = client.app[keys.CORE]
    await core.services.llm.wait_ready()
    caplog.set_level(logging.INFO, logger="mnemolis")
    resp = await client.post("/api/rag", json={"name": "house", "path": str(folder)})
    assert resp.status == 201, await resp.text()
    assert await asyncio.to_thread(entered.wait, 120), "the folder was never embedded"
    await core.services.llm.stop()
    release.set()
    await core.services.knowledge.wait_idle()
    said = [r for r in caplog.records if r.getMessage().startswith("rag house:")]
    assert any("embedding paused" in r.getMessage() for r in said), [r.getMessage() for r in said]
    assert all(r.exc_info is None and r.levelno < logging.ERROR for r in said), [
        r.getMessage() for r in said
    ]
    status = await (await client.get("/api/rag/house")).json()
    assert status["files_indexed"] == 1 and not status["error"], status
