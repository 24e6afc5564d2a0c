"""Every outside source fails cleanly: timeout, refused connection, garbage, cut-off body."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .conftest import free_port
from .search_helpers import search
from .stubs import failing_app, serve

Client = Callable[..., Any]

SOURCE_TIMEOUT = 0.5


def settings_for(source: str, url: str) -> dict[str, Any]:
    """Settings pointing one source at ``url``."""
    return {
        "news": {"news": {"feeds": [f"{url}/feed.xml"]}},
        "web": {"web": {"searxng_url": url}},
        "kiwix": {"kiwix": {"url": url}},
        "uptime": {"uptime": {"url": url, "slug": "home"}},
    }[source]


SOURCES = ["news", "web", "kiwix", "uptime"]


async def ask(client: Any, source: str) -> dict[str, Any]:
    body = await search(client, "is the NAS up?", source)
    assert body["source_used"] == "none"
    assert body["citations"] == []
    assert body["result"].strip()
    # The requested source runs first; the router may then try its fallbacks.
    assert body["sources"][0]["name"] == source
    return body


async def sources_entry(client: Any, source: str) -> dict[str, Any]:
    listed = (await (await client.get("/api/sources")).json())["sources"]
    entry: dict[str, Any] = next(s for s in listed if s["name"] == source)
    return entry


@pytest.mark.parametrize("source", SOURCES)
async def test_timeout(make_client: Client, source: str) -> None:
    async with serve(failing_app("timeout")) as url:
        client = await make_client(
            routing={"source_timeout": SOURCE_TIMEOUT}, **settings_for(source, url)
        )
        body = await ask(client, source)
        run = body["sources"][0]
        assert run["status"] == "timeout"
        assert "did not answer within" in run["error"]
        assert run["ms"] < 5000
        entry = await sources_entry(client, source)
        assert entry["configured"] is True
        assert entry["healthy"] is False
        assert "did not answer" in entry["last_error"]


@pytest.mark.parametrize("source", SOURCES)
async def test_connection_refused(make_client: Client, source: str) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    client = await make_client(**settings_for(source, url))
    body = await ask(client, source)
    run = body["sources"][0]
    assert run["status"] == "error"
    assert "unreachable" in run["error"]
    assert "127.0.0.1" in run["error"]
    entry = await sources_entry(client, source)
    assert entry["healthy"] is False
    assert "unreachable" in entry["last_error"]


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("kind", ["garbage", "truncated"])
async def test_unreadable_response(make_client: Client, source: str, kind: str) -> None:
    async with serve(failing_app(kind)) as url:
        client = await make_client(**settings_for(source, url))
        body = await ask(client, source)
        run = body["sources"][0]
        assert run["status"] == "error"
        assert run["error"].startswith("bad_response:"), run["error"]
        assert "Traceback" not in body["result"]
        # The server keeps serving after the failure.
        assert (await client.get("/api/health")).status == 200
