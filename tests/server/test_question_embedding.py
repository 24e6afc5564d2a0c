"""Issue 30: a question is embedded once, whatever stages and sources read its meaning."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mnemolis.knowledge.vectors import HashingEmbedder, embed_queries, forget_queries
from mnemolis.requestmodels import SearchRequest

from .knowledge_helpers import core_of, store_of, write_docs

Client = Callable[..., Any]


class CountingModel:
    """A stand-in embedding model (hashed words) that counts what it is asked to embed."""

    name = "counting-model"
    dim = 128
    ready = True

    def __init__(self) -> None:
        self._words = HashingEmbedder(self.dim)
        # Every awaited call with the texts it embedded: questions come this way, from
        # the event loop; documents are indexed through embed_sync on the indexing thread.
        self.asked: list[list[str]] = []

    def embed_sync(self, texts: list[str]) -> list[list[float]]:
        return [v.tolist() for v in self._words.embed_sync(texts)]

    async def embed(self, texts: list[str]) -> list[list[float]]:
        self.asked.append(list(texts))
        await asyncio.sleep(0.01)  # a model takes a moment: concurrent askers overlap
        return self.embed_sync(texts)


async def _home_with_model(make_client: Client, tmp_path: Path) -> tuple[Any, CountingModel]:
    write_docs(tmp_path / "roots" / "house")
    client = await make_client(rag={"roots": [str(tmp_path / "roots")], "watch": False})
    resp = await client.post(
        "/api/rag", json={"name": "house", "path": str(tmp_path / "roots" / "house")}
    )
    assert resp.status == 201, await resp.text()
    core, store = core_of(client), store_of(client)
    await store.memory.remember("The spare key is in the blue flower pot", ["house"])
    model = CountingModel()
    core.services.embedder = model
    store.publish(core.services)
    core.router.meaning.warm_sync(model)  # the routing profiles' vectors, once per model
    await core.search(SearchRequest(query="warm up the indexes", source="fusion"))
    await store.wait_idle()  # every chunk and memory has its vector from this model
    model.asked.clear()
    return client, model


async def test_one_model_call_for_a_question_asked_by_meaning_documents_and_memories(
    make_client: Client, tmp_path: Path
) -> None:
    client, model = await _home_with_model(make_client, tmp_path)
    core = core_of(client)
    meaning = core.router.meaning
    ranked: list[str] = []  # the questions the meaning stage compared by their vectors
    embedded = meaning.embedded

    def spy(question: str, candidates: list[str], embedder: Any) -> Any:
        ranking = embedded(question, candidates, embedder)
        if ranking is not None:
            ranked.append(question)
        return ranking

    meaning.embedded = spy  # type: ignore[method-assign]
    question = "Where could the spare key for the front door be hiding?"
    result = await core.search(SearchRequest(query=question))
    assert {"rag", "memory"} <= {r.name for r in result.sources}, result.sources
    assert ranked, "the meaning stage never compared the question by its vector"
    assert model.asked == [[question.rstrip("?")]]
    # The same question again (another request) is not embedded again.
    await core.search(SearchRequest(query=question))
    assert model.asked == [[question.rstrip("?")]]


async def test_concurrent_askers_of_one_question_share_one_call(
    make_client: Client, tmp_path: Path
) -> None:
    _, model = await _home_with_model(make_client, tmp_path)
    forget_queries()
    vectors = await asyncio.gather(*(embed_queries(model, ["Is the boiler ok?"]) for _ in range(5)))
    assert model.asked == [["Is the boiler ok"]]
    assert all((v[0] == vectors[0][0]).all() for v in vectors)
