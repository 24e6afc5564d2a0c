"""Graceful shutdown: a SIGTERM while a slow /search is in flight still delivers its answer."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import aiohttp
import pytest

from .conftest import ServerProcess
from .faultproxy import BackgroundLoop, FaultProxy
from .stubs.searxng import searxng_app

DELAY = 2.0


@pytest.fixture
def slow_searxng() -> Iterator[FaultProxy]:
    """The SearXNG stub behind a proxy that holds every answer back ``DELAY`` seconds."""
    loop = BackgroundLoop()
    try:
        parts = urlsplit(loop.serve_app(searxng_app()))
        assert parts.hostname is not None and parts.port is not None
        proxy = loop.proxy(parts.hostname, parts.port)
        proxy.delay = DELAY
        proxy.set("slow")
        yield proxy
    finally:
        loop.close()


async def test_sigterm_finishes_in_flight_search(
    start_server: Callable[..., ServerProcess], slow_searxng: FaultProxy
) -> None:
    server = start_server(env={"MNEMOLIS_WEB__SEARXNG_URL": slow_searxng.url})
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
        request = asyncio.create_task(
            http.post(f"{server.url}/search", json={"query": "what is MQTT", "source": "web"})
        )
        # Wait until the server has asked the backend, then stop it.
        async with asyncio.timeout(10):
            while slow_searxng.connections == 0:
                await asyncio.sleep(0.02)
        server.proc.send_signal(signal.SIGTERM)
        async with await request as resp:
            assert resp.status == 200
            body = await resp.json()
    assert body["source_used"] == "web", body
    assert body["sources"][0]["status"] == "ok"
    assert "MQTT" in body["result"]
    assert body["elapsed_ms"] >= DELAY * 1000
    code = await asyncio.to_thread(server.proc.wait, 20)
    assert code == 0, server.logs()[-3000:]
