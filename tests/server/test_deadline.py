"""Long questions never stall the server (issue 29 item 2).

The embedding model's thread held by another job, or a question's plan taking
its time: `/api/health` still answers meanwhile, and `/search` answers by its
deadline with what it could do. What is embedded is capped in length. (How
long things take under load is measured by bench/deadline_bench.py, not here.)
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mnemolis.rest import keys

LONG = ("How do I connect Claude Desktop to Mnemolis over MCP and what does it need? " * 60)[:4000]
# A bound on how long a test waits for what it expects, never a figure it checks.
BOUND_S = 60


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    """An event the test sets once it has seen what it waits for; set anyway after
    BOUND_S (a stalled loop could not set it), which the tests then see as a failure."""
    event = threading.Event()
    timer = threading.Timer(BOUND_S, event.set)
    timer.start()
    yield event
    timer.cancel()
    event.set()


async def _model_ready(client: Any) -> Any:
    core = client.app[keys.CORE]
    for _ in range(BOUND_S * 10):
        if core.services.embedder is not None:
            return core.services.embedder
        await asyncio.sleep(0.1)
    raise AssertionError("the embedding model did not load")


async def test_a_stuck_embedding_model_neither_stalls_the_server_nor_the_deadline(
    make_client: Callable[..., Any], embedding_model: Path, gate: threading.Event
) -> None:
    client = await make_client(
        llm={"embedding_model": str(embedding_model)}, routing={"deadline": 3}
    )
    embedder = await _model_ready(client)
    # The model's only thread is busy until the test says so (a long indexing job would be).
    embedder.worker.submit(lambda job: gate.wait(BOUND_S * 2), bounded=False)
    search = asyncio.create_task(client.post("/search", json={"query": LONG}))
    health = await asyncio.wait_for(client.get("/api/health"), BOUND_S)
    assert health.status == 200
    assert not gate.is_set()
    resp = await asyncio.wait_for(search, BOUND_S)
    # Answered while the model was still stuck: the deadline bounded the stages waiting for it.
    assert not gate.is_set()
    assert resp.status == 200
    body = await resp.json()
    assert body["result"], body
    gate.set()


async def test_planning_a_question_happens_off_the_event_loop(
    make_client: Callable[..., Any], gate: threading.Event
) -> None:
    client = await make_client()
    router = client.app[keys.CORE].router
    plan = router._plan
    loop_thread = threading.get_ident()
    planned_on: list[int] = []

    def slow_plan(*args: Any, **kwargs: Any) -> Any:
        planned_on.append(threading.get_ident())
        gate.wait(BOUND_S * 2)  # as a long question's reading would hold it
        return plan(*args, **kwargs)

    router._plan = slow_plan
    search = asyncio.create_task(client.post("/search", json={"query": LONG}))
    while not planned_on:
        await asyncio.sleep(0.01)
    health = await asyncio.wait_for(client.get("/api/health"), BOUND_S)
    assert health.status == 200 and not gate.is_set()
    gate.set()
    resp = await asyncio.wait_for(search, BOUND_S)
    assert resp.status == 200
    assert planned_on[0] != loop_thread


async def test_what_is_embedded_is_capped(
    make_client: Callable[..., Any], embedding_model: Path
) -> None:
    from mnemolis.knowledge.text import MAX_QUERY_CHARS, query_text

    client = await make_client(llm={"embedding_model": str(embedding_model)})
    embedder = await _model_ready(client)
    seen: list[int] = []
    embed = embedder.embed

    async def recording(texts: list[str]) -> list[list[float]]:
        seen.extend(len(t) for t in texts)
        return await embed(texts)

    embedder.embed = recording
    for query in (LONG, "😀" * 4000, "x" * 4000):
        resp = await client.post("/search", json={"query": query})
        assert resp.status == 200
    assert seen and max(seen) <= MAX_QUERY_CHARS, seen
    # The end of a long question is kept: that is where it says what it asks.
    told = "The boiler has been making a noise since Tuesday. " * 30 + "How do I reset it?"
    assert query_text(told).endswith("How do I reset it?")
