"""``GET /metrics``: parsed with the Prometheus client's own text parser."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from prometheus_client.parser import text_string_to_metric_families

from mnemolis.core import Mnemolis
from mnemolis.models import SearchResult, SourceRun
from mnemolis.rest import keys
from mnemolis.tools import call_tool

from .stubs import serve
from .stubs.searxng import searxng_app

Client = Callable[..., Any]
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@pytest.fixture
async def searx_url() -> AsyncIterator[str]:
    async with serve(searxng_app()) as url:
        yield url


async def scrape(client: Any, headers: dict[str, str] | None = None) -> Samples:
    resp = await client.get("/metrics", headers=headers or {})
    assert resp.status == 200, await resp.text()
    assert resp.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    out: Samples = {}
    for family in text_string_to_metric_families(await resp.text()):
        for sample in family.samples:
            out[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return out


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def names(samples: Samples) -> set[str]:
    return {name for name, _ in samples}


def core_of(client: Any) -> Mnemolis:
    core: Mnemolis = client.app[keys.CORE]
    return core


async def test_requests_counted_per_route_template_and_status(make_client: Client) -> None:
    client = await make_client()
    before = await scrape(client)
    await client.get("/api/health")
    await client.get("/api/health")
    await client.get("/api/queries/12345")
    await client.get("/api/queries/67890")
    await client.get("/no/such/page/8812")
    await client.delete("/search")
    after = await scrape(client)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    health = {"method": "GET", "route": "/api/health"}
    assert delta("mnemolis_http_requests_total", status="200", **health) == 2
    assert delta("mnemolis_http_request_duration_seconds_count", **health) == 2
    assert value(after, "mnemolis_http_request_duration_seconds_bucket", le="+Inf", **health) >= 2
    # Raw ids and unknown paths never become label values.
    by_id = {"method": "GET", "route": "/api/queries/{id}", "status": "404"}
    assert delta("mnemolis_http_requests_total", **by_id) == 2
    unmatched = {"method": "GET", "route": "(unmatched)", "status": "404"}
    assert delta("mnemolis_http_requests_total", **unmatched) == 1
    assert delta("mnemolis_http_requests_total", method="DELETE", route="(unmatched)", status="405")
    routes = {dict(labels).get("route") for _, labels in after}
    assert not any(r and ("12345" in r or "8812" in r) for r in routes)
    # The scrape itself is counted too (seen by the next scrape).
    assert value(
        after, "mnemolis_http_requests_total", method="GET", route="/metrics", status="200"
    )


async def test_queries_and_sources_move_after_searches(make_client: Client, searx_url: str) -> None:
    client = await make_client(web={"searxng_url": searx_url})
    before = await scrape(client)
    resp = await client.post("/search", json={"query": "mqtt broker", "source": "web"})
    assert (await resp.json())["source_used"] == "web"
    await client.post("/search", json={"query": "garage door", "source": "uptime"})
    after = await scrape(client)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("mnemolis_source_requests_total", source="web", status="ok") == 1
    assert delta("mnemolis_source_requests_total", source="uptime", status="skipped") == 1
    assert delta("mnemolis_source_duration_seconds_count", source="web") == 1
    # Skipped runs take no time worth a latency sample.
    assert delta("mnemolis_source_duration_seconds_count", source="uptime") == 0
    answered = {"surface": "rest", "outcome": "answered", "fallback": "false"}
    failed = {"surface": "rest", "outcome": "failed", "fallback": "false"}
    assert delta("mnemolis_queries_total", **answered) == 1
    assert delta("mnemolis_queries_total", **failed) == 1
    assert delta("mnemolis_query_duration_seconds_count", surface="rest") == 2
    assert value(after, "mnemolis_source_configured", source="web") == 1
    assert value(after, "mnemolis_source_healthy", source="web") == 1
    assert value(after, "mnemolis_source_configured", source="uptime") == 0
    assert value(after, "mnemolis_querylog_written") >= 2


async def test_cache_hits_counted_from_the_trace(make_client: Client) -> None:
    client = await make_client()
    core = core_of(client)
    before = await scrape(client)
    core.metrics.record_search(
        SearchResult(
            query="weather",
            result="sunny",
            source_used="forecast",
            sources=[
                SourceRun("forecast", "ok", 0.2, "keyword", cached=True),
                SourceRun("news", "ok", 40.0, "keyword"),
            ],
        ),
        surface="rest",
    )
    after = await scrape(client)
    assert (
        value(after, "mnemolis_cache_hits_total", source="forecast")
        - value(before, "mnemolis_cache_hits_total", source="forecast")
        == 1
    )
    assert value(after, "mnemolis_cache_hits_total", source="news") == 0


async def test_mcp_tools_counted_with_outcome(make_client: Client) -> None:
    client = await make_client()
    core = core_of(client)
    await call_tool(core, "search", {"query": "hello", "source": "ha"})
    await call_tool(core, "search", {"query": ""})
    await call_tool(core, "no_such_tool_xyz", {})
    samples = await scrape(client)
    assert value(samples, "mnemolis_mcp_tool_calls_total", tool="search", outcome="error") == 2
    assert value(samples, "mnemolis_mcp_tool_duration_seconds_count", tool="search") == 2
    assert value(samples, "mnemolis_mcp_tool_calls_total", tool="(unknown)", outcome="error") == 1
    assert not any(dict(labels).get("tool") == "no_such_tool_xyz" for _, labels in samples)
    assert value(
        samples, "mnemolis_queries_total", surface="mcp", outcome="failed", fallback="false"
    )


async def test_indexes_model_memory_and_info(make_client: Client) -> None:
    client = await make_client()
    core = core_of(client)
    samples = await scrape(client)
    # No model is configured here.
    assert value(samples, "mnemolis_llm_loaded") == 0
    assert value(samples, "mnemolis_llm_tokens_per_second") == 0
    assert value(samples, "process_resident_memory_bytes") > 1_000_000
    info = [labels for name, labels in samples if name == "mnemolis_info"]
    assert dict(info[0])["version"] == core.version
    assert dict(info[0])["instance_id"] == core.instance_id

    # A model service as llm.service.LLMService shapes it: speed from the last generation.
    class Generation:
        completion_tokens = 47
        seconds = 2.0

    class Engine:
        history = [Generation()]
        tokens_generated = 512

    class Model:
        available = True
        backend = Engine()

    core.services.llm = Model()
    core.services.documents_indexed = lambda: 1234
    samples = await scrape(client)
    assert value(samples, "mnemolis_llm_loaded") == 1
    assert value(samples, "mnemolis_llm_tokens_per_second") == 23.5
    assert value(samples, "mnemolis_llm_tokens_generated") == 512
    assert value(samples, "mnemolis_documents_indexed") == 1234

    # A service that misbehaves never breaks the scrape.
    class Broken:
        @property
        def tokens_per_second(self) -> float:
            raise RuntimeError("model unloaded")

    core.services.llm = Broken()
    core.services.documents_indexed = lambda: 1 / 0
    samples = await scrape(client)
    assert value(samples, "mnemolis_llm_tokens_per_second") == 0
    assert value(samples, "mnemolis_documents_indexed") == 0


async def test_metrics_need_a_key_when_keys_are_set(make_client: Client) -> None:
    client = await make_client(api_key="full-key-123", read_api_key="read-key-456")
    assert (await client.get("/metrics")).status == 401
    samples = await scrape(client, {"Authorization": "Bearer read-key-456"})
    unauthorised = {"method": "GET", "route": "/metrics", "status": "401"}
    assert value(samples, "mnemolis_http_requests_total", **unauthorised) == 1


async def test_two_servers_in_one_process_keep_separate_counts(make_client: Client) -> None:
    first = await make_client()
    second = await make_client()
    await first.get("/api/health")
    one = await scrape(first)
    two = await scrape(second)
    health = {"method": "GET", "route": "/api/health", "status": "200"}
    assert value(one, "mnemolis_http_requests_total", **health) == 1
    assert value(two, "mnemolis_http_requests_total", **health) == 0
    assert "mnemolis_http_requests_total" in names(one)


@pytest.mark.slow
async def test_real_model_speed_and_tokens(make_client: Client, chat_model: Any) -> None:
    """Gemma 3 270M generates; the scrape shows it loaded, its speed and its tokens."""
    client = await make_client(llm={"model": str(chat_model), "embedding_model": "off"})
    await asyncio.wait_for(core_of(client).services.llm.wait_ready(), 120)
    before = await scrape(client)
    assert value(before, "mnemolis_llm_loaded") == 1
    assert value(before, "mnemolis_llm_tokens_generated") == 0
    resp = await client.post(
        "/v1/chat/completions",
        json={"messages": [{"role": "user", "content": "Name three colours."}], "max_tokens": 24},
    )
    assert resp.status == 200, await resp.text()
    usage = (await resp.json())["usage"]
    after = await scrape(client)
    assert value(after, "mnemolis_llm_tokens_generated") == usage["completion_tokens"]
    assert value(after, "mnemolis_llm_tokens_per_second") > 0
    chat = {"method": "POST", "route": "/v1/chat/completions", "status": "200"}
    assert value(after, "mnemolis_http_requests_total", **chat) == 1


async def test_index_sizes_per_database_and_memories(make_client: Client, tmp_path: Any) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# Boiler\nBleed the radiators in October.\n", encoding="utf-8")
    (folder / "b.txt").write_text("Guest wifi is Meadow-Guest.\n", encoding="utf-8")
    (folder / "c.pdf").write_bytes(b"%PDF-1.7\n\x00 not a pdf")
    client = await make_client(rag={"roots": [str(tmp_path)], "watch": False})
    resp = await client.post("/api/rag", json={"name": "notes", "path": str(folder)})
    assert resp.status == 201, await resp.text()
    store = core_of(client).services.knowledge
    await asyncio.wait_for(store.wait_idle(), 60)
    for content in ("spare key under the pot", "bins on Tuesday"):
        assert (await client.post("/api/memories", json={"content": content})).status == 201
    samples = await scrape(client)
    assert value(samples, "mnemolis_rag_files_indexed", db="notes") == 2
    assert value(samples, "mnemolis_rag_files_failed", db="notes") == 1
    assert value(samples, "mnemolis_rag_chunks", db="notes") >= 2
    assert value(samples, "mnemolis_memories") == 2
    stats = await (await client.get("/api/stats")).json()
    assert value(samples, "mnemolis_documents_indexed") == stats["documents_indexed"]
    # A removed database leaves the scrape.
    assert (await client.delete("/api/rag/notes")).status == 200
    samples = await scrape(client)
    assert ("mnemolis_rag_files_indexed", frozenset({("db", "notes")})) not in samples


@pytest.mark.slow
async def test_real_mcp_client_traffic_is_counted_and_logged(
    start_server: Callable[..., Any], searx_url: str, http: Any
) -> None:
    """The official MCP client over Streamable HTTP against a real server process."""
    server = start_server(env={"MNEMOLIS_WEB__SEARXNG_URL": searx_url})
    async with (
        streamable_http_client(f"{server.url}/mcp") as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        ok = await session.call_tool("search", {"query": "mqtt broker", "source": "web"})
        assert not ok.isError
        bad = await session.call_tool("search", {"source": "web"})
        assert bad.isError
    async with http.get(f"{server.url}/metrics") as resp:
        text = await resp.text()
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    assert value(samples, "mnemolis_mcp_tool_calls_total", tool="search", outcome="ok") == 1
    assert value(samples, "mnemolis_mcp_tool_calls_total", tool="search", outcome="error") == 1
    assert value(samples, "mnemolis_source_requests_total", source="web", status="ok") == 1
    assert value(samples, "mnemolis_http_requests_total", method="POST", route="/mcp", status="200")
    async with http.get(f"{server.url}/api/queries?surface=mcp") as resp:
        page = await resp.json()
    assert [q["query"] for q in page["queries"]] == ["mqtt broker"]
    assert page["queries"][0]["trace"]["source_used"] == "web"
