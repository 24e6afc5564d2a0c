"""Per-client rate and concurrency limits: 429 with Retry-After, never a lost server."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from mnemolis.models import SourceAnswer
from mnemolis.ratelimit import LIMITER
from mnemolis.rest import keys
from mnemolis.sources.base import QueryContext, Source


class SlowSource(Source):
    """Answers after a gate opens, so requests pile up in flight."""

    name = "web"

    def __init__(self, deps: Any, gate: asyncio.Event) -> None:
        super().__init__(deps)
        self.gate = gate

    @property
    def configured(self) -> bool:
        return True

    async def query(self, question: str, ctx: QueryContext) -> SourceAnswer:
        await self.gate.wait()
        return SourceAnswer(source=self.name, answer="done")


async def test_rate_limit_answers_429_with_retry_after(make_client: Callable[..., Any]) -> None:
    client = await make_client(limits={"rate_per_minute": 4, "exempt_loopback": False})
    statuses = [(await client.get("/api/sources")).status for _ in range(3)]
    assert statuses == [200, 200, 429]
    resp = await client.get("/api/sources")
    assert resp.status == 429
    assert int(resp.headers["Retry-After"]) >= 1
    body = await resp.json()
    assert body["error"]["code"] == "rate_limited"
    assert (await client.get("/api/health")).status == 200  # probes are never limited


async def test_clients_are_limited_separately(make_client: Callable[..., Any]) -> None:
    client = await make_client(
        limits={"rate_per_minute": 2, "exempt_loopback": False},
        api_key="full-key-1",
        read_api_key="read-key-2",
    )
    first = await client.get("/api/sources", headers={"X-API-Key": "full-key-1"})
    second = await client.get("/api/sources", headers={"X-API-Key": "full-key-1"})
    other = await client.get("/api/sources", headers={"X-API-Key": "read-key-2"})
    assert (first.status, second.status, other.status) == (200, 429, 200)


async def test_concurrency_cap_per_client(make_client: Callable[..., Any]) -> None:
    client = await make_client(
        limits={"concurrency_per_client": 2, "rate_per_minute": 0, "exempt_loopback": False}
    )
    core = client.app[keys.CORE]
    gate = asyncio.Event()
    core.sources["web"] = SlowSource(core.sources["web"].deps, gate)
    body = {"query": "anything", "source": "web"}
    slow = [asyncio.create_task(client.post("/search", json=body)) for _ in range(2)]
    for _ in range(500):  # wait until both are in flight (bounded)
        await asyncio.sleep(0.01)
        if client.app[LIMITER].in_flight() == 2:
            break
    refused = await client.post("/search", json=body)
    assert refused.status == 429, await refused.text()
    assert "in flight" in (await refused.json())["error"]["message"]
    gate.set()
    answers = await asyncio.gather(*slow)
    assert [r.status for r in answers] == [200, 200]
    assert (await client.post("/search", json=body)).status == 200


async def test_loopback_exempt_by_default(make_client: Callable[..., Any]) -> None:
    client = await make_client(limits={"rate_per_minute": 2})
    statuses = {(await client.get("/api/sources")).status for _ in range(5)}
    assert statuses == {200}


async def test_query_length_follows_the_setting(make_client: Callable[..., Any]) -> None:
    """limits.max_query_chars applies to REST and MCP alike, not a fixed 4000."""
    from mnemolis.tools import call_tool

    client = await make_client(limits={"max_query_chars": 10})
    resp = await client.post("/search", json={"query": "x" * 11, "source": "web"})
    assert resp.status == 400
    assert "the limit is 10" in (await resp.json())["error"]["message"]
    assert (await client.post("/search", json={"query": "x" * 10, "source": "web"})).status == 200
    result = await call_tool(client.app[keys.CORE], "search", {"query": "x" * 11})
    assert result.is_error and "the limit is 10" in result.text
