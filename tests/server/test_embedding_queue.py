"""A question's embedding never waits behind a document batch (issue 16's decision time).

The embedding model has one thread. Indexing sends it batches of chunks; the
router's meaning stage sends it a question. The question goes first (it
overtakes queued bulk work, never the job running), a bulk call goes in small
jobs, and one question asks the model once however many parts it has.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from mnemolis.llm.catalog import read_metadata
from mnemolis.llm.embedding_model import BULK_JOB, QUERY_TEXTS, LocalEmbedder
from mnemolis.llm.worker import ModelWorker
from mnemolis.settings import load_settings

from .routing_cases import make_home
from .test_router_meaning import _FakeEmbedder


def test_an_urgent_job_overtakes_queued_work_but_not_the_running_one() -> None:
    worker = ModelWorker("test", max_waiting=8)
    started, release = threading.Event(), threading.Event()
    order: list[str] = []

    def running(job: object) -> None:
        started.set()
        release.wait(10)
        order.append("running")

    try:
        worker.submit(running, bounded=False)
        assert started.wait(10)
        bulk = [
            worker.submit(lambda job, i=i: order.append(f"bulk{i}"), bounded=False)
            for i in range(3)
        ]
        question = worker.submit(lambda job: order.append("question"), urgent=True)
        release.set()
        question.future.result(10)
        for job in bulk:
            job.future.result(10)
        assert order == ["running", "question", "bulk0", "bulk1", "bulk2"]
    finally:
        worker.close()


async def test_a_question_is_embedded_before_a_document_batch_ends(embedding_model: Path) -> None:
    settings = load_settings(environ={}, overrides={"data_dir": "/tmp/mnemolis-embed-queue"})
    emb = LocalEmbedder(read_metadata(embedding_model), settings.llm)
    await emb.wait_loaded()
    try:
        assert emb.state == "ready", emb.error
        chunk = "The boiler keeps the house warm; bleed the radiators every autumn. " * 2
        chunks = [f"{i}: {chunk}" for i in range(QUERY_TEXTS + 2)]  # a batch, not a query
        done: list[str] = []

        def index() -> None:
            emb.embed_sync(chunks)
            done.append("documents")

        indexing = threading.Thread(target=index)
        indexing.start()
        await asyncio.sleep(0.05)  # the first bulk jobs are queued or running
        vector = (await emb.embed(["is the kitchen warm enough?"]))[0]
        done.append("question")
        await asyncio.to_thread(indexing.join, 120)
        assert done == ["question", "documents"]
        assert len(vector) == 384
        # the same text gives the same vector on either lane (one thread or the configured)
        again = emb.embed_sync([chunks[0]])[0]
        first = emb.embed_sync(chunks[: BULK_JOB + 1])[0]
        assert max(abs(a - b) for a, b in zip(again, first, strict=True)) < 1e-4
    finally:
        await asyncio.to_thread(emb.close)


def test_one_call_to_the_model_per_question_whatever_its_parts() -> None:
    class Counting(_FakeEmbedder):
        def __init__(self) -> None:
            super().__init__()
            self.batches: list[int] = []

        def embed_sync(self, texts: list[str]) -> list[list[float]]:
            self.batches.append(len(texts))
            return super().embed_sync(texts)

    home = make_home()
    emb = Counting()
    home.core.services.embedder = emb
    home.core.router.meaning.warm_sync(emb)  # the profiles' vectors, once per model
    profiles = list(emb.batches)
    assert len(profiles) == 1 and profiles[0] > 100
    decision = home.core.route("Will the sky be kind to us? Is the house behaving?")
    assert [p["sources"] for p in decision["parts"]] == [["forecast"], ["ha"]], decision
    assert all("by meaning" in p["reason"] for p in decision["parts"]), decision
    assert emb.batches[len(profiles) :] == [2]  # both parts' questions in one call
