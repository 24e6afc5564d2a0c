"""Wire-format stubs for backends that cannot run here (SearXNG, Uptime Kuma, feeds, FreshRSS)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer

from mnemolis.settings import Settings
from mnemolis.sources import QueryContext, Source, SourceDeps


@asynccontextmanager
async def serve(app: web.Application) -> AsyncIterator[str]:
    """Run an aiohttp app on a free local port; yields its base URL."""
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        yield str(server.make_url("")).rstrip("/")
    finally:
        await server.close()


RELEASE = web.AppKey("release", asyncio.Event)


async def sleep_forever(request: web.Request) -> web.Response:
    """A backend that never answers in time; released when the stub shuts down."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(request.app[RELEASE].wait(), 30)
    return web.Response(text="too late")


async def garbage(request: web.Request) -> web.Response:
    """A backend that answers 200 with something no parser accepts."""
    return web.Response(
        body=b"\x00\x17 <<< this is not what you asked for {{{ \xff\xfe",
        content_type="application/json",
    )


async def truncated(request: web.Request) -> web.StreamResponse:
    """A backend that promises a body and drops the connection half-way."""
    resp = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
    resp.content_length = 4096
    await resp.prepare(request)
    await resp.write(b'{"results": [{"url": "https://example.org", "title": "cut')
    transport = request.transport
    if transport is not None:
        transport.close()
    return resp


def failing_app(kind: str) -> web.Application:
    """An app answering every GET and POST with one failure mode."""
    handler = {"timeout": sleep_forever, "garbage": garbage, "truncated": truncated}[kind]
    app = web.Application()
    app[RELEASE] = asyncio.Event()

    async def on_shutdown(app: web.Application) -> None:
        app[RELEASE].set()

    app.on_shutdown.append(on_shutdown)
    app.router.add_route("*", "/{tail:.*}", handler)
    return app


@asynccontextmanager
async def open_source[S: Source](cls: type[S], settings: Settings) -> AsyncIterator[S]:
    """A connector on its own HTTP session, for tests of its structured API."""
    async with aiohttp.ClientSession() as session:
        yield cls(SourceDeps(settings=settings, session=session))


def ctx() -> QueryContext:
    """A query context at the current time."""
    return QueryContext(now=datetime.now(UTC))
