"""The official MCP client over all three transports against real Mnemolis processes.

Every transport gets the same assertions: initialize, list tools (names,
annotations, outputSchema), call ``search`` (answer plus provenance in
structuredContent, equal to REST's), call ``docs``, tool errors as isError
results, and ``mcp.disabled_tools`` removing a tool from listing and calls.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from mcp.shared.exceptions import McpError
from mcp.types import LATEST_PROTOCOL_VERSION
from pydantic import AnyUrl

from .conftest import SERVER_BIN, ServerProcess, free_port, server_env
from .mcp_client_fixture import TRANSPORTS, Connect

FEED = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel>
<title>Village Gazette</title><link>http://gazette.example/</link>
<description>Local news</description>
<item><title>Library opens a repair cafe on Saturdays</title>
<link>http://gazette.example/repair-cafe</link>
<description>Volunteers fix lamps, bikes and toasters at the library.</description>
<pubDate>Sun, 29 Nov 2026 08:00:00 GMT</pubDate></item>
<item><title>New bus line to the station</title>
<link>http://gazette.example/bus</link>
<description>Line 12 now runs every twenty minutes.</description>
<pubDate>Sat, 28 Nov 2026 08:00:00 GMT</pubDate></item>
</channel></rss>"""


@pytest.fixture
async def feed_url() -> AsyncIterator[str]:
    """A real RSS document served over HTTP, so the news source answers locally."""

    async def feed(_request: web.Request) -> web.Response:
        return web.Response(text=FEED, content_type="application/rss+xml")

    app = web.Application()
    app.router.add_get("/feed.xml", feed)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    site = web.TCPSite(runner, "127.0.0.1", port)
    await site.start()
    yield f"http://127.0.0.1:{port}/feed.xml"
    await runner.cleanup()


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_same_answers_on_every_transport(
    connect: Connect, feed_url: str, transport: str
) -> None:
    env = {"MNEMOLIS_NEWS__FEEDS": json.dumps([feed_url])}
    async with connect(transport, env) as (session, server):
        init = await session.initialize()
        expected_version = "2024-11-05" if transport == "sse" else LATEST_PROTOCOL_VERSION
        assert init.protocolVersion in (expected_version, LATEST_PROTOCOL_VERSION)
        assert init.serverInfo.name == "mnemolis"
        assert init.instructions and "search" in init.instructions
        assert "list_rag" in init.instructions

        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert {"search", "docs"} <= set(tools)
        search = tools["search"]
        assert search.annotations is not None
        assert search.annotations.readOnlyHint is True
        assert search.annotations.openWorldHint is True
        assert search.outputSchema is not None
        assert {"source_used", "fallback", "sources", "citations"} <= set(
            search.outputSchema["required"]
        )
        assert search.inputSchema["required"] == ["query"]
        assert "fusion" in search.inputSchema["properties"]["source"]["enum"]
        assert tools["docs"].annotations is not None
        assert tools["docs"].annotations.idempotentHint is True

        result = await session.call_tool(
            "search", {"query": "what's in the news about the library?", "source": "news"}
        )
        assert result.isError is False, result.content
        data = result.structuredContent
        assert data is not None
        assert {"result", "source_used", "fallback", "sources", "citations", "parts"} <= set(data)
        assert "condition" in data
        assert data["source_used"] == "news"
        assert data["fallback"] is False
        assert [run["name"] for run in data["sources"] if run["status"] == "ok"] == ["news"]
        titles = [c["title"] for c in data["citations"]]
        assert "Library opens a repair cafe on Saturdays" in titles
        assert "repair cafe" in result.content[0].text  # type: ignore[union-attr]

        if server is not None:  # REST gives the same provenance for the same question
            question = {"query": "what's in the news about the library?", "source": "news"}
            async with (
                aiohttp.ClientSession() as http,
                http.post(f"{server.url}/search", json=question) as resp,
            ):
                rest = await resp.json()
            assert rest["source_used"] == data["source_used"]
            assert rest["citations"] == data["citations"]
            assert rest["result"] == data["result"]

        listing = await session.call_tool("docs", {})
        assert listing.isError is False
        pages = {p["page"] for p in (listing.structuredContent or {})["pages"]}
        assert {"mcp", "readme", "configuration"} <= pages
        page = await session.call_tool("docs", {"page": "mcp"})
        assert page.isError is False
        text = page.content[0].text  # type: ignore[union-attr]
        assert "### `search`" in text and "### `docs`" in text

        resources = {str(r.uri): r for r in (await session.list_resources()).resources}
        assert "mnemolis://docs/mcp" in resources
        assert resources["mnemolis://docs/readme"].mimeType == "text/markdown"
        read = await session.read_resource(AnyUrl("mnemolis://docs/mcp"))
        assert read.contents[0].text == text  # type: ignore[union-attr]
        with pytest.raises(McpError) as missing_page:
            await session.read_resource(AnyUrl("mnemolis://docs/nonexistent"))
        assert missing_page.value.error.code == -32002

        unknown = await session.call_tool("teleport", {"to": "mars"})
        assert unknown.isError is True
        assert "unknown tool 'teleport'" in unknown.content[0].text  # type: ignore[union-attr]
        missing = await session.call_tool("search", {})
        assert missing.isError is True
        assert "query is required" in missing.content[0].text  # type: ignore[union-attr]
        bad = await session.call_tool("search", {"query": "x", "source": "moon"})
        assert bad.isError is True
        assert "unknown source 'moon'" in bad.content[0].text  # type: ignore[union-attr]
        no_page = await session.call_tool("docs", {"page": "nonexistent"})
        assert no_page.isError is True
        assert "no docs page" in no_page.content[0].text  # type: ignore[union-attr]

        # The session is still healthy after every error.
        assert (await session.send_ping()) is not None


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_disabled_tool_is_absent_and_uncallable(connect: Connect, transport: str) -> None:
    env = {"MNEMOLIS_MCP__DISABLED_TOOLS": json.dumps(["docs"])}
    async with connect(transport, env) as (session, _server):
        await session.initialize()
        names = [t.name for t in (await session.list_tools()).tools]
        assert "docs" not in names and "search" in names
        result = await session.call_tool("docs", {})
        assert result.isError is True
        assert "unknown tool 'docs'" in result.content[0].text  # type: ignore[union-attr]
        # The docs resources go too; the databases' status stays.
        listed = [str(r.uri) for r in (await session.list_resources()).resources]
        assert listed == ["mnemolis://databases"], listed


@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
async def test_http_transports_need_the_api_key(connect: Connect, transport: str) -> None:
    env = {"MNEMOLIS_API_KEY": "s3cret-full-key"}
    headers = {"Authorization": "Bearer s3cret-full-key"}
    async with connect(transport, env, headers) as (session, server):
        await session.initialize()
        assert "search" in [t.name for t in (await session.list_tools()).tools]
        assert server is not None
        async with (
            aiohttp.ClientSession() as http,
            http.get(f"{server.url}/mcp/sse") as resp,
        ):
            assert resp.status == 401
        assert "s3cret-full-key" not in server.logs()


async def test_stdio_keeps_stdout_for_the_protocol(tmp_path: Path) -> None:
    """Only JSON-RPC lines on stdout, even with debug logging on."""
    import asyncio

    env = server_env()
    proc = await asyncio.create_subprocess_exec(
        str(SERVER_BIN),
        "mcp",
        "--data-dir",
        str(tmp_path / "d"),
        "--log-level",
        "debug",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    lines = [
        json.dumps(init),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        "{not json",
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/explode"}),
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
    ]
    out, err = await asyncio.wait_for(
        proc.communicate(("\n".join(lines) + "\n").encode()), timeout=60
    )
    assert proc.returncode == 0, err.decode()
    replies = [json.loads(line) for line in out.decode().splitlines()]
    assert replies[0]["result"]["protocolVersion"] == "2025-06-18"
    assert replies[1]["error"]["code"] == -32700 and replies[1]["id"] is None
    assert replies[2] == {
        "jsonrpc": "2.0",
        "id": 2,
        "error": {"code": -32601, "message": "Method not found: tools/explode"},
    }
    assert replies[3]["id"] == 3 and replies[3]["result"]["tools"]
    assert len(replies) == 4
    assert b"DEBUG" in err  # logs went to stderr


async def test_server_stops_cleanly_with_open_streams(
    start_server: Callable[..., ServerProcess],
) -> None:
    """SIGTERM with a legacy SSE stream and a session GET stream open: a clean exit."""
    server = start_server()
    async with aiohttp.ClientSession() as http:
        legacy = await http.get(f"{server.url}/mcp/sse")
        assert (await legacy.content.readline()).startswith(b"event: endpoint")
        async with http.post(
            f"{server.url}/mcp",
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": LATEST_PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            },
        ) as init:
            session_id = init.headers["Mcp-Session-Id"]
        stream = await http.get(
            f"{server.url}/mcp",
            headers={"Mcp-Session-Id": session_id, "Accept": "text/event-stream"},
        )
        assert stream.status == 200
        assert server.stop() == 0, server.logs()
        legacy.close()
        stream.close()
    assert "Traceback" not in server.logs()


def test_stdio_start_failure_is_one_line_on_stderr(tmp_path: Path) -> None:
    """A data dir that cannot be created: exit 2, a clear line on stderr, stdout untouched."""
    import subprocess

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    env = server_env()
    proc = subprocess.run(
        [str(SERVER_BIN), "mcp", "--data-dir", str(blocker / "data")],
        input="",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "data_dir" in proc.stderr and "Traceback" not in proc.stderr
