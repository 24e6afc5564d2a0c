"""The REST client's edge cases: what a server that misbehaves looks like to HA."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from custom_components.mnemolis.api import (
    MnemolisClient,
    MnemolisConnectionError,
    MnemolisResponseError,
    MnemolisStats,
    normalize_url,
)

Handler = Callable[[web.Request], web.StreamResponse]


@pytest.fixture
async def serve(socket_enabled: None) -> AsyncIterator[Callable[..., object]]:
    """Start a one-route loopback server; returns a client for it."""
    servers: list[TestServer] = []
    sessions: list[aiohttp.ClientSession] = []

    async def factory(method: str, path: str, handler: Handler, **kw: object) -> MnemolisClient:
        app = web.Application()
        app.router.add_route(method, path, handler)
        server = TestServer(app, host="127.0.0.1")
        await server.start_server()
        servers.append(server)
        session = aiohttp.ClientSession()
        sessions.append(session)
        return MnemolisClient(session, str(server.make_url("")), **kw)  # type: ignore[arg-type]

    yield factory
    for session in sessions:
        await session.close()
    for server in servers:
        await server.close()


async def test_timeout_is_a_connection_error(serve: Callable[..., object]) -> None:
    """A server that hangs is reported as unreachable, within the timeout."""

    async def hang(request: web.Request) -> web.Response:
        await asyncio.sleep(5)
        return web.json_response({})

    client = await serve("GET", "/api/stats", hang, timeout=0.2)
    with pytest.raises(MnemolisConnectionError, match="timeout"):
        await client.stats()


async def test_non_json_and_wrong_shapes(serve: Callable[..., object]) -> None:
    """HTML, broken JSON or a list where an object belongs: response errors, not crashes."""

    async def html(request: web.Request) -> web.Response:
        return web.Response(text="<html>router login</html>", content_type="text/html")

    client = await serve("GET", "/api/stats", html)
    with pytest.raises(MnemolisResponseError, match="did not return JSON"):
        await client.stats()

    async def broken(request: web.Request) -> web.Response:
        return web.Response(text="{not json", content_type="application/json")

    client = await serve("GET", "/api/list", broken)
    with pytest.raises(MnemolisResponseError, match="did not return JSON"):
        await client.databases()

    async def a_list(request: web.Request) -> web.Response:
        return web.json_response(["a"])

    client = await serve("POST", "/api/memories", a_list)
    with pytest.raises(MnemolisResponseError, match="memory did not return a JSON object"):
        await client.remember("x")

    async def plain_error(request: web.Request) -> web.Response:
        return web.Response(status=502, text="bad gateway")

    client = await serve("POST", "/search", plain_error)
    with pytest.raises(MnemolisResponseError, match=r"failed \(502\): Bad Gateway") as err:
        await client.search("q")
    assert err.value.status == 502 and err.value.code is None


async def test_recall_list_body_and_databases_fallback(serve: Callable[..., object]) -> None:
    """A bare list of memories is wrapped; databases fall back to `loaded` names."""

    async def memories(request: web.Request) -> web.Response:
        return web.json_response([{"id": "m1", "content": "x"}])

    client = await serve("POST", "/api/memories/search", memories)
    assert await client.recall("x") == {"results": [{"id": "m1", "content": "x"}]}

    async def listing(request: web.Request) -> web.Response:
        return web.json_response({"loaded": ["notes"], "registered": []})

    client = await serve("GET", "/api/list", listing)
    assert await client.databases() == ["notes"]


async def test_database_names_are_quoted(serve: Callable[..., object]) -> None:
    """A database name with a slash or space stays one path segment."""
    seen: list[str] = []

    async def reindex(request: web.Request) -> web.Response:
        seen.append(request.match_info["db"])
        return web.json_response({"ok": True})

    client = await serve("POST", "/api/rag/{db}/reindex", reindex)
    await client.reindex("my notes/2026")
    assert seen == ["my notes/2026"]


async def test_rephrase_needs_a_message(serve: Callable[..., object]) -> None:
    """A completion without text is an error, so the agent keeps the router's words."""
    replies = iter([{"choices": []}, {"choices": [{"message": {"content": "  "}}]}])

    async def chat(request: web.Request) -> web.Response:
        return web.json_response(next(replies))

    client = await serve("POST", "/v1/chat/completions", chat)
    with pytest.raises(MnemolisResponseError, match="without a message"):
        await client.rephrase("q", "a", 1)
    with pytest.raises(MnemolisResponseError, match="was empty"):
        await client.rephrase("q", "a", 1)


def test_stats_parsing() -> None:
    """Missing optional fields default; a missing instance id is an error."""
    stats = MnemolisStats.from_dict({"instance_id": "abc", "version": "0.1.0"})
    assert (stats.queries_total, stats.latency_ms_avg, stats.sources) == (0, None, {})
    with pytest.raises(MnemolisResponseError):
        MnemolisStats.from_dict({"version": "0.1.0"})
    with pytest.raises(MnemolisResponseError):
        MnemolisStats.from_dict(["not", "a", "dict"])


def test_normalize_url() -> None:
    """What users type becomes one canonical base URL."""
    assert normalize_url(" homeassistant.local:8888/ ") == "http://homeassistant.local:8888"
    assert normalize_url("https://mnemolis.example/") == "https://mnemolis.example"
