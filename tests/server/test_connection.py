"""GET /api/connection: what the web UI shows to connect an MCP client, and to whom."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from mnemolis.app import create_app
from mnemolis.rest import ui
from mnemolis.settings import GENERATED_KEY_FILE, Settings, apply_generated_api_key

Client = Callable[..., Any]
FULL = "full-key-of-enough-length-0123456789"
READ = "read-key-456"


async def test_only_full_access_sees_the_keys(make_client: Client) -> None:
    client = await make_client(api_key=FULL, read_api_key=READ)
    assert (await client.get("/api/connection")).status == 401
    refused = await client.get("/api/connection", headers={"Authorization": f"Bearer {READ}"})
    assert refused.status == 403
    resp = await client.get("/api/connection", headers={"Authorization": f"Bearer {FULL}"})
    assert resp.status == 200
    body = await resp.json()
    assert body["api_key"] == FULL and body["read_api_key"] == READ
    assert body["key_origin"] == "option" and body["key_file"] is None
    assert (body["port"], body["mcp_path"], body["sse_path"]) == (8888, "/mcp", "/mcp/sse")


async def test_an_open_server_says_it_has_no_key(make_client: Client) -> None:
    client = await make_client()
    body = await (await client.get("/api/connection")).json()
    assert body["api_key"] is None and body["read_api_key"] is None
    assert body["key_origin"] == "none"


async def test_the_addon_shows_its_own_key_through_ingress(
    make_settings: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Home Assistant signed the user in; the sidebar page may show the key it needs for MCP."""
    monkeypatch.setattr(ui, "SUPERVISOR_ADDRESS", "127.0.0.1")
    settings = make_settings(addon=True)
    key_file = apply_generated_api_key(settings)
    assert key_file is not None and key_file.name == GENERATED_KEY_FILE
    client: TestClient[Any, Any] = TestClient(TestServer(create_app(settings)))
    await client.start_server()
    try:
        # From the LAN without the key: nothing.
        assert (await client.get("/api/connection")).status == 401
        resp = await client.get(
            "/api/connection",
            headers={"X-Ingress-Path": "/api/hassio_ingress/abc", "Host": "homeassistant.local"},
        )
        assert resp.status == 200, await resp.text()
        body = await resp.json()
        assert body["api_key"] == key_file.read_text(encoding="utf-8").strip()
        assert body["key_origin"] == "generated"
        assert body["key_file"] == str(key_file)
    finally:
        await client.close()
