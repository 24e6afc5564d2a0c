"""Real server processes: the remote backend against Mnemolis's own ``/v1``, and a broken model."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient

from mnemolis.llm import LLMService
from mnemolis.llm.remote import RemoteBackend, normalise_base_url
from mnemolis.models import Evidence
from mnemolis.rest import keys
from mnemolis.tools import call_tool

from .conftest import ServerProcess, free_port
from .test_llm import QUESTION, parse_sse

pytestmark = pytest.mark.slow
KEY = "remote-secret-key"


async def wait_model(
    http: aiohttp.ClientSession, server: ServerProcess, headers: dict[str, str], timeout: float
) -> dict[str, Any]:
    """Poll readiness until the model component has finished loading (either way)."""
    deadline = time.monotonic() + timeout
    while True:
        async with http.get(f"{server.url}/api/health/readiness", headers=headers) as resp:
            body: dict[str, Any] = await resp.json()
        model: dict[str, Any] = body["components"]["model"]
        if not model["detail"].startswith("loading"):
            return body
        assert time.monotonic() < deadline, f"model never loaded:\n{server.logs()}"
        await asyncio.sleep(0.2)


@pytest.fixture
async def model_server(
    start_server: Callable[..., ServerProcess], chat_model: Path, http: aiohttp.ClientSession
) -> ServerProcess:
    """A real ``mnemolis serve`` with the chat model and an API key."""
    server = start_server(
        env={
            "MNEMOLIS_LLM__MODEL": str(chat_model),
            "MNEMOLIS_LLM__EMBEDDING_MODEL": "off",
            "MNEMOLIS_API_KEY": KEY,
        }
    )
    body = await wait_model(http, server, {"Authorization": f"Bearer {KEY}"}, 120)
    assert body["components"]["model"]["status"] == "ok", body
    return server


def service_of(client: TestClient[Any, Any]) -> LLMService:
    """The app's inference service."""
    service: LLMService = client.app[keys.CORE].services.llm
    return service


def test_base_url_normalisation() -> None:
    assert normalise_base_url("http://box:8080") == "http://box:8080/v1"
    assert normalise_base_url("http://box:8080/") == "http://box:8080/v1"
    assert normalise_base_url("http://box:11434/v1/") == "http://box:11434/v1"
    assert normalise_base_url("http://box:8000/api/v1") == "http://box:8000/api/v1"


async def test_remote_backend_through_our_own_v1(
    make_client: Callable[..., Any], model_server: ServerProcess, chat_model: Path
) -> None:
    client: TestClient[Any, Any] = await make_client(
        llm={"base_url": model_server.url, "api_key": KEY}
    )
    service = service_of(client)
    assert isinstance(service.backend, RemoteBackend)
    assert service.available

    models = await (await client.get("/v1/models")).json()
    assert [m["id"] for m in models["data"]] == [chat_model.stem]

    plain = await client.post(
        "/v1/chat/completions", json={"messages": QUESTION, "max_tokens": 12, "temperature": 0}
    )
    assert plain.status == 200
    body = await plain.json()
    assert "Paris" in body["choices"][0]["message"]["content"]
    assert body["model"] == chat_model.stem
    # Usage is the remote server's own count.
    assert body["usage"]["prompt_tokens"] > 5
    assert body["usage"]["completion_tokens"] > 0

    streamed = await client.post(
        "/v1/chat/completions",
        json={"messages": QUESTION, "max_tokens": 12, "temperature": 0, "stream": True},
    )
    events, done = parse_sse(await streamed.text())
    assert done
    text = "".join(e["choices"][0]["delta"].get("content", "") for e in events if e["choices"])
    assert text == body["choices"][0]["message"]["content"]

    ready = await (await client.get("/api/health/readiness")).json()
    assert ready["components"]["model"]["status"] == "ok"
    assert model_server.url in ready["components"]["model"]["detail"]

    answer = await service.compose(
        "How high is Mount Everest?",
        [Evidence(source="kiwix", title="Mount Everest", text="Its elevation is 8,849 metres.")],
    )
    assert answer is not None and "8,849" in answer

    tool = await call_tool(
        client.app[keys.CORE],
        "chat",
        {"messages": QUESTION, "max_tokens": 12, "temperature": 0},
    )
    assert not tool.is_error and "Paris" in tool.text

    # A prompt too long for the remote model: its 400 comes back as ours, with its words.
    huge = await client.post(
        "/v1/chat/completions",
        json={"messages": [{"role": "user", "content": "house " * 6000}], "max_tokens": 8},
    )
    assert huge.status == 400
    assert "exceeds the model's context" in (await huge.json())["error"]["message"]


async def test_remote_errors_are_clear(
    make_client: Callable[..., Any], model_server: ServerProcess
) -> None:
    wrong_key: TestClient[Any, Any] = await make_client(
        llm={"base_url": model_server.url, "api_key": "not-the-key", "model": "x"}
    )
    resp = await wrong_key.post("/v1/chat/completions", json={"messages": QUESTION})
    assert resp.status == 503
    message = (await resp.json())["error"]["message"]
    assert "answered 401" in message
    assert "not-the-key" not in message

    dead: TestClient[Any, Any] = await make_client(
        llm={"base_url": f"http://127.0.0.1:{free_port()}"}
    )
    resp = await dead.post("/v1/chat/completions", json={"messages": QUESTION})
    assert resp.status == 503
    assert "unreachable" in (await resp.json())["error"]["message"]
    assert (await dead.get("/api/health")).status == 200
    ready = await (await dead.get("/api/health/readiness")).json()
    assert ready["components"]["model"]["status"] == "degraded"
    assert await service_of(dead).compose("q", [Evidence("web", "t", "x")]) is None


async def test_truncated_model_keeps_the_server_up(
    start_server: Callable[..., ServerProcess],
    chat_model: Path,
    tmp_path: Path,
    http: aiohttp.ClientSession,
) -> None:
    broken = tmp_path / "models" / "half.gguf"
    broken.parent.mkdir()
    with chat_model.open("rb") as src:
        broken.write_bytes(src.read(40 * 1024 * 1024))  # header intact, tensors cut off
    server = start_server(
        env={"MNEMOLIS_LLM__MODELS_DIR": str(broken.parent), "MNEMOLIS_LLM__MODEL": "half"}
    )
    body = await wait_model(http, server, {}, 120)
    assert body["status"] == "down"
    assert body["components"]["model"]["status"] == "down"
    assert "cannot load half.gguf" in body["components"]["model"]["detail"]
    async with http.get(f"{server.url}/api/health/readiness") as resp:
        assert resp.status == 503
    async with http.get(f"{server.url}/api/health") as resp:
        assert resp.status == 200
    async with http.post(f"{server.url}/v1/chat/completions", json={"messages": QUESTION}) as resp:
        assert resp.status == 503
        assert "cannot load half.gguf" in (await resp.json())["error"]["message"]
    assert server.proc.poll() is None, "the server must keep running"
