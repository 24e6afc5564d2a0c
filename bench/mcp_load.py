"""MCP `tools/call search` throughput and latency over Streamable HTTP.

Mnemolis (`mnemolis serve`, MCP on aiohttp) against a reference server built
with the SDK's own high-level server (FastMCP, streamable-http on uvicorn)
exposing the same `search` tool backed by the same Mnemolis service layer, so
both give the same answer and only the MCP serving stack differs. The source
is local: the news source reading an RSS feed served by this script (after
the first fetch, answers come from memory).

    .venv/server/bin/python bench/mcp_load.py [--seconds 5] [--levels 1,10,50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web
from mcp.types import CallToolResult  # module level: FastMCP evaluates the annotation

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadgen import free_port, rss_mb

REPO = Path(__file__).resolve().parents[1]
QUERY = {"query": "what's in the news about the library?", "source": "news"}
FEED = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Village Gazette</title><link>http://gazette.example/</link>
<description>Local news</description>
<item><title>Library opens a repair cafe on Saturdays</title>
<link>http://gazette.example/repair-cafe</link>
<description>Volunteers fix lamps, bikes and toasters at the library.</description>
<pubDate>Sun, 29 Nov 2026 08:00:00 GMT</pubDate></item>
<item><title>New bus line to the station</title><link>http://gazette.example/bus</link>
<description>Line 12 now runs every twenty minutes.</description>
<pubDate>Sat, 28 Nov 2026 08:00:00 GMT</pubDate></item>
</channel></rss>"""
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


# --- the reference server (run in a child process) --------------------------------


def run_reference(port: int) -> None:
    """FastMCP (streamable-http on uvicorn) with the same `search` tool as Mnemolis."""
    import logging

    import uvicorn
    from mcp.server.fastmcp import FastMCP

    from mnemolis.core import Mnemolis
    from mnemolis.mcp.identity import INSTRUCTIONS
    from mnemolis.mcp.server import to_call_result
    from mnemolis.settings import load_settings
    from mnemolis.tools import call_tool

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    core = Mnemolis(load_settings())
    server: FastMCP[Any] = FastMCP(
        "reference", instructions=INSTRUCTIONS, host="127.0.0.1", port=port, log_level="WARNING"
    )

    @server.tool(name="search", description="Same tool, same service layer as Mnemolis.")
    async def search(
        query: str, source: str = "auto", fusion_sources: list[str] | None = None
    ) -> CallToolResult:
        args: dict[str, Any] = {"query": query, "source": source}
        if fusion_sources:
            args["fusion_sources"] = fusion_sources
        return to_call_result(await call_tool(core, "search", args))

    async def serve() -> None:
        # What FastMCP.run("streamable-http") does, with the core started once
        # (FastMCP's own `lifespan` runs per MCP session).
        await core.start()
        try:
            config = uvicorn.Config(
                server.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning"
            )
            await uvicorn.Server(config).serve()
        finally:
            await core.stop()

    asyncio.run(serve())


# --- load generation -------------------------------------------------------------


@dataclass
class Run:
    """One (server, concurrency) measurement."""

    server: str
    clients: int
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: int = 0

    def row(self) -> str:
        lat = sorted(self.latencies) or [0.0]

        def pct(p: float) -> float:
            return lat[min(len(lat) - 1, int(p * len(lat)))] * 1000

        rate = len(self.latencies) / self.seconds if self.seconds else 0.0
        return (
            f"| {self.server} | {self.clients} | {len(self.latencies)} | {rate:,.0f} "
            f"| {pct(0.50):.1f} | {pct(0.95):.1f} | {pct(0.99):.1f} "
            f"| {statistics.fmean(lat) * 1000:.1f} | {self.errors} |"
        )


def _parse(content_type: str, text: str) -> dict[str, Any]:
    if content_type.startswith("text/event-stream"):
        for line in text.splitlines():
            if line.startswith("data: "):
                msg = json.loads(line[6:])
                if "id" in msg:
                    return msg  # type: ignore[no-any-return]
        raise ValueError("no response event in the SSE body")
    return json.loads(text)  # type: ignore[no-any-return]


class Client:
    """A raw Streamable HTTP MCP client: one session, sequential calls."""

    def __init__(self, http: aiohttp.ClientSession, url: str) -> None:
        self.http = http
        self.url = url
        self.headers = dict(ACCEPT)
        self.next_id = 0

    async def rpc(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}}
        async with self.http.post(self.url, json=body, headers=self.headers) as resp:
            text = await resp.text()
            if resp.status != 200:
                raise RuntimeError(f"{method}: HTTP {resp.status} {text[:200]}")
            if sid := resp.headers.get("Mcp-Session-Id"):
                self.headers["Mcp-Session-Id"] = sid
            return _parse(resp.content_type, text)

    async def open(self) -> None:
        init = await self.rpc(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "mcp_load", "version": "1"},
            },
        )
        self.headers["MCP-Protocol-Version"] = init["result"]["protocolVersion"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        async with self.http.post(self.url, json=note, headers=self.headers) as resp:
            await resp.read()

    async def search(self) -> dict[str, Any]:
        reply = await self.rpc("tools/call", {"name": "search", "arguments": QUERY})
        result: dict[str, Any] = reply["result"]
        return result

    async def close(self) -> None:
        async with self.http.delete(self.url, headers=self.headers) as resp:
            await resp.read()


async def measure(name: str, url: str, clients: int, seconds: float) -> Run:
    """`clients` sessions calling search back to back for `seconds`."""
    run = Run(name, clients)
    connector = aiohttp.TCPConnector(limit=0, force_close=False)
    async with aiohttp.ClientSession(connector=connector) as http:
        sessions = [Client(http, url) for _ in range(clients)]
        await asyncio.gather(*(s.open() for s in sessions))
        deadline = time.perf_counter() + seconds

        async def worker(client: Client) -> None:
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                try:
                    result = await client.search()
                except (aiohttp.ClientError, RuntimeError, ValueError):
                    run.errors += 1
                    continue
                run.latencies.append(time.perf_counter() - started)
                if result.get("isError"):
                    run.errors += 1

        began = time.perf_counter()
        await asyncio.gather(*(worker(s) for s in sessions))
        run.seconds = time.perf_counter() - began
        await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
    return run


# --- orchestration ----------------------------------------------------------------


def _wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server on port {port} exited with {proc.returncode}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit(f"server on port {port} did not start")


def _strip_timing(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip_timing(v) for k, v in node.items() if k not in ("ms", "elapsed_ms")}
    if isinstance(node, list):
        return [_strip_timing(v) for v in node]
    return node


async def main(args: argparse.Namespace) -> None:
    feed_app = web.Application()

    async def feed(_request: web.Request) -> web.Response:
        return web.Response(text=FEED, content_type="application/rss+xml")

    feed_app.router.add_get("/feed.xml", feed)
    runner = web.AppRunner(feed_app, access_log=None)
    await runner.setup()
    feed_port = free_port()
    await web.TCPSite(runner, "127.0.0.1", feed_port).start()

    tmp = Path(tempfile.mkdtemp(prefix="mcp-load-"))
    bindir = Path(sys.executable).parent
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMOLIS_")}
    env["MNEMOLIS_NEWS__FEEDS"] = json.dumps([f"http://127.0.0.1:{feed_port}/feed.xml"])
    env["MNEMOLIS_LOG_LEVEL"] = "warning"
    env["MNEMOLIS_LIMITS__RATE_PER_MINUTE"] = "0"
    env["MNEMOLIS_LIMITS__CONCURRENCY_PER_CLIENT"] = "0"
    ports = {"mnemolis": free_port(), "reference (FastMCP)": free_port()}
    procs = {
        "mnemolis": subprocess.Popen(
            [
                str(bindir / "mnemolis"),
                "serve",
                "--port",
                str(ports["mnemolis"]),
                "--data-dir",
                str(tmp / "mnemolis"),
            ],
            env=env,
        ),
        "reference (FastMCP)": subprocess.Popen(
            [sys.executable, __file__, "--reference", str(ports["reference (FastMCP)"])],
            env={**env, "MNEMOLIS_DATA_DIR": str(tmp / "reference")},
        ),
    }
    try:
        for name, proc in procs.items():
            _wait_port(ports[name], proc)
        urls = {name: f"http://127.0.0.1:{port}/mcp" for name, port in ports.items()}

        answers = {}
        async with aiohttp.ClientSession() as http:
            for name, url in urls.items():
                client = Client(http, url)
                await client.open()
                answers[name] = await client.search()
                await client.close()
        first, second = (_strip_timing(a.get("structuredContent")) for a in answers.values())
        same = first == second and not any(a.get("isError") for a in answers.values())
        source = answers["mnemolis"]["structuredContent"]["source_used"]
        for name, url in urls.items():  # warm-up: feed fetched, caches and pools primed
            await measure(name, url, 10, 1.0)

        runs: list[Run] = []
        for level in args.levels:
            for name, url in urls.items():
                runs.append(await measure(name, url, level, args.seconds))
        memory = {name: rss_mb(proc.pid) for name, proc in procs.items()}
    finally:
        for proc in procs.values():
            proc.terminate()
        for proc in procs.values():
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
        await runner.cleanup()

    cores = os.cpu_count()
    print(f"\n`tools/call search` ({source} source), {args.seconds:g} s per level, cores: {cores}")
    print(f"same answer from both servers: {'yes' if same else 'NO'}\n")
    print("| server | clients | calls | calls/s | p50 ms | p95 ms | p99 ms | mean ms | errors |")
    print("|---|---|---|---|---|---|---|---|---|")
    for run in runs:
        print(run.row())
    print("\n| server | RSS after run (MiB) | peak RSS (MiB) |")
    print("|---|---|---|")
    for name, (rss, peak) in memory.items():
        print(f"| {name} | {rss:.0f} | {peak:.0f} |")
    for level in args.levels:
        ours, ref = (r for r in runs if r.clients == level)
        ratio = (len(ours.latencies) / ours.seconds) / max(len(ref.latencies) / ref.seconds, 1e-9)
        print(f"{level} clients: Mnemolis/reference throughput = {ratio:.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="measurement per level")
    parser.add_argument(
        "--levels",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[1, 10, 50],
        help="concurrent clients, comma-separated",
    )
    parser.add_argument("--reference", type=int, metavar="PORT", help=argparse.SUPPRESS)
    cli = parser.parse_args()
    if cli.reference:
        run_reference(cli.reference)
    else:
        asyncio.run(main(cli))
