"""Local inference through the OpenAI-compatible API, with the real Gemma 3 270M GGUF."""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient

from mnemolis.llm import LLMService
from mnemolis.llm.engine import LocalEngine
from mnemolis.llm.service import missing_features
from mnemolis.rest import keys

pytestmark = pytest.mark.slow

QUESTION = [{"role": "user", "content": "What is the capital of France?"}]
# Gemma's end-of-generation tokens (<eos>, <end_of_turn>): banned to force long outputs.
NO_EOS = {"1": -100, "106": -100}
COUNTING = [{"role": "user", "content": "Count from one to one thousand: 1, 2, 3, 4, 5,"}]


def service_of(client: TestClient[Any, Any]) -> LLMService:
    """The app's inference service."""
    service: LLMService = client.app[keys.CORE].services.llm
    return service


async def start_long_stream(client: TestClient[Any, Any]) -> ClientResponse:
    """A streamed 400-token completion that cannot end early: keeps the one context busy."""
    return await client.post(
        "/v1/chat/completions",
        json={
            "messages": COUNTING,
            "max_tokens": 400,
            "temperature": 0,
            "stream": True,
            "logit_bias": NO_EOS,
        },
    )


def engine_of(client: TestClient[Any, Any]) -> LocalEngine:
    """The app's local engine."""
    backend = service_of(client).backend
    assert isinstance(backend, LocalEngine)
    return backend


@pytest.fixture
async def llm_client(
    make_client: Callable[..., Any], chat_model: Path, embedding_model: Path
) -> TestClient[Any, Any]:
    """An in-process server with the chat and embedding models loaded."""
    client: TestClient[Any, Any] = await make_client(
        llm={"model": str(chat_model), "embedding_model": str(embedding_model), "queue": 2}
    )
    await asyncio.wait_for(service_of(client).wait_ready(), 120)
    return client


def parse_sse(text: str) -> tuple[list[dict[str, Any]], bool]:
    """The JSON payloads of ``data:`` lines and whether ``[DONE]`` closed the stream."""
    events: list[dict[str, Any]] = []
    done = False
    for block in text.split("\n\n"):
        line = block.strip()
        if not line:
            continue
        assert line.startswith("data: "), line
        data = line[len("data: ") :]
        if data == "[DONE]":
            done = True
            continue
        assert not done, "data after [DONE]"
        events.append(json.loads(data))
    return events, done


async def test_models_and_readiness(llm_client: TestClient[Any, Any], chat_model: Path) -> None:
    resp = await llm_client.get("/v1/models")
    assert resp.status == 200
    body = await resp.json()
    ids = [m["id"] for m in body["data"]]
    assert ids == [chat_model.stem, "all-MiniLM-L6-v2"]
    assert body["data"][0]["meta"]["kind"] == "chat"
    assert body["data"][0]["meta"]["template"] == "fallback:transcript"
    assert body["data"][1]["meta"]["dimensions"] == 384
    ready = await llm_client.get("/api/health/readiness")
    assert ready.status == 200
    model = (await ready.json())["components"]["model"]
    assert model["status"] == "ok"
    assert "loaded" in model["detail"] and "all-MiniLM-L6-v2" in model["detail"]


async def test_short_completion(llm_client: TestClient[Any, Any]) -> None:
    resp = await llm_client.post(
        "/v1/chat/completions",
        json={"model": "anything", "messages": QUESTION, "max_tokens": 16, "temperature": 0},
    )
    assert resp.status == 200
    body = await resp.json()
    assert body["object"] == "chat.completion"
    choice = body["choices"][0]
    assert choice["message"]["role"] == "assistant"
    assert "Paris" in choice["message"]["content"]
    assert choice["finish_reason"] in ("stop", "length")
    usage = body["usage"]
    assert usage["prompt_tokens"] > 5
    assert 0 < usage["completion_tokens"] <= 16
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


async def test_max_tokens_ends_with_length(llm_client: TestClient[Any, Any]) -> None:
    resp = await llm_client.post(
        "/v1/chat/completions",
        json={"messages": COUNTING, "max_tokens": 5, "temperature": 0, "logit_bias": NO_EOS},
    )
    body = await resp.json()
    assert body["choices"][0]["finish_reason"] == "length"
    assert body["usage"]["completion_tokens"] == 5


async def test_streaming_chunks_match_the_whole_answer(llm_client: TestClient[Any, Any]) -> None:
    request = {"messages": QUESTION, "max_tokens": 16, "temperature": 0, "seed": 7}
    whole = await (await llm_client.post("/v1/chat/completions", json=request)).json()
    resp = await llm_client.post(
        "/v1/chat/completions",
        json={**request, "stream": True, "stream_options": {"include_usage": True}},
    )
    assert resp.status == 200
    assert resp.headers["Content-Type"].startswith("text/event-stream")
    events, done = parse_sse(await resp.text())
    assert done
    assert events[0]["object"] == "chat.completion.chunk"
    assert events[0]["choices"][0]["delta"]["role"] == "assistant"
    assert len({e["id"] for e in events}) == 1
    content_chunks = [e for e in events if e["choices"] and e["choices"][0]["delta"].get("content")]
    assert len(content_chunks) >= 2, "the answer must arrive in pieces"
    text = "".join(e["choices"][0]["delta"]["content"] for e in content_chunks)
    assert text == whole["choices"][0]["message"]["content"]
    finals = [e for e in events if e["choices"] and e["choices"][0]["finish_reason"]]
    assert [f["choices"][0]["finish_reason"] for f in finals] == [
        whole["choices"][0]["finish_reason"]
    ]
    usage_event = events[-1]
    assert usage_event["choices"] == []
    assert usage_event["usage"] == whole["usage"]


async def test_too_long_prompt_is_a_clear_400(llm_client: TestClient[Any, Any]) -> None:
    huge = [{"role": "user", "content": "house " * 6000}]
    resp = await llm_client.post("/v1/chat/completions", json={"messages": huge, "max_tokens": 64})
    assert resp.status == 400
    error = (await resp.json())["error"]
    assert error["type"] == "invalid_request_error"
    assert error["code"] == "invalid_argument"
    assert "max_tokens is 64" in error["message"]
    assert "context of 4096 tokens" in error["message"]
    # Nothing was queued and the model still answers.
    ok = await llm_client.post("/v1/chat/completions", json={"messages": QUESTION, "max_tokens": 4})
    assert ok.status == 200


@pytest.mark.parametrize(
    ("body", "param", "fragment"),
    [
        ({}, "messages", "messages is required"),
        ({"messages": []}, "messages", "at least 1"),
        ({"messages": [{"role": "wizard", "content": "hi"}]}, "messages.0.role", "role"),
        ({"messages": QUESTION, "n": 2}, "n", "less than or equal to 1"),
        ({"messages": QUESTION, "temperature": 3}, "temperature", "less than or equal to 2"),
        ({"messages": QUESTION, "logit_bias": {"x": 1}}, "logit_bias", "not a token id"),
        (
            {"messages": [{"role": "user", "content": [{"type": "image_url"}]}]},
            "messages.0.content",
            "image_url",
        ),
    ],
)
async def test_bad_requests_answer_in_openai_shape(
    llm_client: TestClient[Any, Any], body: dict[str, Any], param: str, fragment: str
) -> None:
    resp = await llm_client.post("/v1/chat/completions", json=body)
    assert resp.status == 400
    error = (await resp.json())["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["param"] is not None and error["param"].startswith(param.split(".")[0])
    assert fragment in error["message"]


async def test_malformed_json_is_400(llm_client: TestClient[Any, Any]) -> None:
    resp = await llm_client.post(
        "/v1/chat/completions", data=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert resp.status == 400
    assert "malformed JSON" in (await resp.json())["error"]["message"]


async def test_concurrent_requests_queue_without_interleaving(
    llm_client: TestClient[Any, Any],
) -> None:
    prompts = [
        "What is the capital of France?",
        "What is the capital of Italy?",
        "Name a colour of the sky.",
    ]

    async def ask(text: str) -> str:
        resp = await llm_client.post(
            "/v1/chat/completions",
            json={
                "messages": [{"role": "user", "content": text}],
                "max_tokens": 8,
                "temperature": 0,
            },
        )
        assert resp.status == 200
        content: str = (await resp.json())["choices"][0]["message"]["content"]
        return content

    engine = engine_of(llm_client)
    solo = [await ask(p) for p in prompts]
    before = len(engine.history)
    together = await asyncio.gather(*(ask(p) for p in prompts))
    assert together == solo
    records = list(engine.history)[before:]
    assert len(records) == 3
    spans = sorted((r.started, r.started + r.seconds) for r in records)
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert start >= end, "two generations ran at once on one context"


async def test_full_queue_is_429(llm_client: TestClient[Any, Any]) -> None:
    engine = engine_of(llm_client)
    long = await start_long_stream(llm_client)
    await long.content.readuntil(b"\n\n")  # the stream has started: the model is busy
    waiting = [
        asyncio.create_task(
            llm_client.post("/v1/chat/completions", json={"messages": QUESTION, "max_tokens": 3})
        )
        for _ in range(2)
    ]
    deadline = time.monotonic() + 30
    while engine.worker.waiting < 2:
        assert time.monotonic() < deadline, "queued requests never reached the queue"
        await asyncio.sleep(0.05)
    refused = await llm_client.post(
        "/v1/chat/completions", json={"messages": QUESTION, "max_tokens": 3}
    )
    assert refused.status == 429
    assert refused.headers["Retry-After"] == "1"
    error = (await refused.json())["error"]
    assert error["type"] == "rate_limit_error"
    assert "llm.queue=2" in error["message"]
    long.close()  # frees the model; the queued requests are served
    for task in waiting:
        resp = await asyncio.wait_for(task, 120)
        assert resp.status == 200


async def test_client_disconnect_stops_generation(llm_client: TestClient[Any, Any]) -> None:
    engine = engine_of(llm_client)
    before = len(engine.history)
    resp = await start_long_stream(llm_client)
    for _ in range(4):
        await resp.content.readuntil(b"\n\n")
    resp.close()  # the client goes away mid-stream
    deadline = time.monotonic() + 60
    while len(engine.history) == before:
        assert time.monotonic() < deadline, "the generation never ended"
        await asyncio.sleep(0.05)
    record = engine.history[-1]
    assert record.finish_reason == "cancelled"
    assert 3 <= record.completion_tokens < 100
    # The next request is served at once, by a free model.
    nxt = await llm_client.post(
        "/v1/chat/completions", json={"messages": QUESTION, "max_tokens": 6, "temperature": 0}
    )
    assert nxt.status == 200
    assert engine.history[-1].finish_reason in ("stop", "length")
    assert engine.history[-1].completion_tokens <= 6


async def test_embeddings_shape_determinism_and_meaning(llm_client: TestClient[Any, Any]) -> None:
    texts = [
        "The kitchen light is on.",
        "A lamp is switched on in the kitchen.",
        "Stock markets fell sharply on Monday.",
    ]
    resp = await llm_client.post("/v1/embeddings", json={"model": "x", "input": texts})
    assert resp.status == 200
    body = await resp.json()
    assert body["model"] == "all-MiniLM-L6-v2"
    assert [d["index"] for d in body["data"]] == [0, 1, 2]
    vecs = np.array([d["embedding"] for d in body["data"]])
    assert vecs.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    sims = vecs @ vecs.T
    assert sims[0, 1] > 0.5
    assert sims[0, 1] > sims[0, 2] + 0.3
    assert body["usage"]["prompt_tokens"] > 10
    # Deterministic: the same text gives the same vector, alone or in a batch.
    again = await (await llm_client.post("/v1/embeddings", json={"input": texts[0]})).json()
    assert again["data"][0]["embedding"] == body["data"][0]["embedding"]
    repeat = await (await llm_client.post("/v1/embeddings", json={"input": texts})).json()
    assert repeat["data"] == body["data"]
    b64 = await (
        await llm_client.post(
            "/v1/embeddings", json={"input": [texts[0]], "encoding_format": "base64"}
        )
    ).json()
    decoded = np.frombuffer(base64.b64decode(b64["data"][0]["embedding"]), dtype="<f4")
    assert np.allclose(decoded, vecs[0], atol=1e-6)


async def test_embedding_errors(llm_client: TestClient[Any, Any]) -> None:
    resp = await llm_client.post("/v1/embeddings", json={"input": ""})
    assert resp.status == 400
    assert (await resp.json())["error"]["param"] == "input"
    resp = await llm_client.post("/v1/embeddings", json={"input": ["a"], "dimensions": 1024})
    assert resp.status == 400
    assert "384-dimensional" in (await resp.json())["error"]["message"]


async def test_embedder_is_published_for_the_knowledge_store(
    llm_client: TestClient[Any, Any],
) -> None:
    embedder = llm_client.app[keys.CORE].services.embedder
    assert (embedder.name, embedder.dim) == ("all-MiniLM-L6-v2", 384)
    vectors = await embedder.embed(["hello world", "hello world"])
    assert len(vectors) == 2 and vectors[0] == vectors[1]
    # The indexing thread's blocking form goes through the same queue.
    sync = await asyncio.to_thread(embedder.embed_sync, ["hello world"])
    assert np.allclose(sync[0], vectors[0], atol=1e-6)


async def test_no_model_is_503_with_a_clear_message(make_client: Callable[..., Any]) -> None:
    client: TestClient[Any, Any] = await make_client()
    resp = await client.post("/v1/chat/completions", json={"messages": QUESTION})
    assert resp.status == 503
    error = (await resp.json())["error"]
    assert error["type"] == "service_unavailable"
    assert "llm.model" in error["message"] and "llm.base_url" in error["message"]
    emb = await client.post("/v1/embeddings", json={"input": "x"})
    assert emb.status == 503
    assert "embedding model" in (await emb.json())["error"]["message"]
    models = await (await client.get("/v1/models")).json()
    assert models == {"object": "list", "data": []}
    ready = await (await client.get("/api/health/readiness")).json()
    assert ready["components"]["model"]["status"] == "ok"
    assert "no chat model configured" in ready["components"]["model"]["detail"]


async def test_auto_picks_models_from_the_folder(
    make_client: Callable[..., Any], models_folder: Path, chat_model: Path
) -> None:
    (models_folder / "notes.txt").write_text("not a model")
    client: TestClient[Any, Any] = await make_client(
        llm={"model": "auto", "embedding_model": "auto", "models_dir": str(models_folder)}
    )
    service = service_of(client)
    await asyncio.wait_for(service.wait_ready(), 120)
    assert service.available
    assert isinstance(service.backend, LocalEngine)
    assert service.backend.model_id == chat_model.stem
    assert client.app[keys.CORE].services.embedder.name == "all-MiniLM-L6-v2"


async def test_model_by_file_name_and_path_escape(
    make_client: Callable[..., Any], models_folder: Path, chat_model: Path
) -> None:
    client: TestClient[Any, Any] = await make_client(
        llm={"model": chat_model.stem, "models_dir": str(models_folder), "embedding_model": "off"}
    )
    await asyncio.wait_for(service_of(client).wait_ready(), 120)
    assert service_of(client).available
    escaped: TestClient[Any, Any] = await make_client(
        llm={"model": "../../etc/passwd", "models_dir": str(models_folder)}
    )
    ready = await escaped.get("/api/health/readiness")
    assert ready.status == 503
    detail = (await ready.json())["components"]["model"]["detail"]
    assert "outside the models folder" in detail


async def test_corrupt_model_is_a_readiness_failure(
    make_client: Callable[..., Any], tmp_path: Path
) -> None:
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF\x03\x00\x00\x00" + b"\x00" * 7)
    client: TestClient[Any, Any] = await make_client(llm={"model": str(bad)})
    assert (await client.get("/api/health")).status == 200
    ready = await client.get("/api/health/readiness")
    assert ready.status == 503
    model = (await ready.json())["components"]["model"]
    assert model["status"] == "down"
    assert "broken.gguf is unusable" in model["detail"]
    assert "truncated" in model["detail"]
    chat = await client.post("/v1/chat/completions", json={"messages": QUESTION})
    assert chat.status == 503
    assert "broken.gguf" in (await chat.json())["error"]["message"]


async def test_missing_model_file_is_a_readiness_failure(
    make_client: Callable[..., Any], tmp_path: Path
) -> None:
    client: TestClient[Any, Any] = await make_client(
        llm={"model": "nope.gguf", "models_dir": str(tmp_path)}
    )
    ready = await client.get("/api/health/readiness")
    assert ready.status == 503
    detail = (await ready.json())["components"]["model"]["detail"]
    assert "nope.gguf not found" in detail


async def test_json_schema_response_format(llm_client: TestClient[Any, Any]) -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string", "enum": ["Paris", "Rome", "Oslo"]}},
        "required": ["city"],
    }
    resp = await llm_client.post(
        "/v1/chat/completions",
        json={
            "messages": QUESTION,
            "max_tokens": 16,
            "temperature": 0,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "city", "schema": schema},
            },
        },
    )
    assert resp.status == 200
    content = (await resp.json())["choices"][0]["message"]["content"]
    assert json.loads(content)["city"] in ("Paris", "Rome", "Oslo")


async def test_non_streaming_client_that_leaves_stops_generation(
    llm_client: TestClient[Any, Any],
) -> None:
    engine = engine_of(llm_client)
    before = len(engine.history)
    request = asyncio.create_task(
        llm_client.post(
            "/v1/chat/completions",
            json={
                "messages": COUNTING,
                "max_tokens": 400,
                "temperature": 0,  # sampled text could hit a stop string before the cancel
                "logit_bias": NO_EOS,
            },
        )
    )
    deadline = time.monotonic() + 60
    while not engine.worker.busy:
        assert time.monotonic() < deadline, "the generation never started"
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    request.cancel()  # the client gives up and closes its connection
    while len(engine.history) == before:
        assert time.monotonic() < deadline, "the generation never ended"
        await asyncio.sleep(0.05)
    assert engine.history[-1].finish_reason == "cancelled"
    assert engine.history[-1].completion_tokens < 400


def test_cpu_check_names_missing_instruction_sets() -> None:
    built = "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | FMA = 1 | BMI2 = 0 | OPENMP = 1 |"
    old_cpu = "processor\t: 0\nflags\t\t: fpu sse sse2 pni ssse3 avx fma\n"
    verdict = missing_features(built, old_cpu)
    assert "lacks: AVX2" in verdict and "GGML_NATIVE=OFF" in verdict
    assert missing_features(built, old_cpu.replace("avx ", "avx avx2 ")) == ""
    # ARM boards list "Features", not x86 flags: nothing to compare.
    assert missing_features(built, "processor\t: 0\nFeatures\t: fp asimd\n") == ""
