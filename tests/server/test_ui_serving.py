"""How the UI is served: the page, its assets, and HA ingress rules in the add-on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import yaml

from mnemolis.rest import ui
from mnemolis.settings import Settings

from .conftest import REPO

Client = Callable[..., Any]
PREFIX = "/api/hassio_ingress/Zk3x_9-AbC"


async def test_page_and_assets_are_public_even_with_keys(make_client: Client) -> None:
    client = await make_client(api_key="full-key-123")
    page = await client.get("/")
    assert page.status == 200
    assert page.headers["Content-Type"].startswith("text/html")
    csp = page.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp
    html = await page.text()
    assert "<base" not in html
    assert 'src="ui/app.js"' in html and 'href="ui/app.css"' in html
    assert 'data-ingress="false"' in html
    js = await client.get("/ui/app.js")
    assert js.status == 200
    assert js.headers["Content-Type"].startswith("text/javascript")
    assert "X-Mnemolis-Client" in await js.text()
    etag = js.headers["ETag"]
    again = await client.get("/ui/app.js", headers={"If-None-Match": etag})
    assert again.status == 304
    assert (await client.get("/ui/app.css")).headers["Content-Type"].startswith("text/css")
    assert (await client.get("/ui/icon.svg")).headers["Content-Type"] == "image/svg+xml"
    # The API behind the page still needs the key.
    assert (await client.get("/api/sources")).status == 401


@pytest.mark.parametrize(
    "path", ["/ui/index.html", "/ui/nope.js", "/ui/..%2Fsettings.py", "/ui/%2e%2e%2fcore.py"]
)
async def test_only_shipped_files_are_served(make_client: Client, path: str) -> None:
    client = await make_client()
    resp = await client.get(path)
    assert resp.status == 404
    assert (await resp.json())["error"]["code"] == "not_found"


async def test_ingress_prefix_becomes_the_base_href(make_client: Client) -> None:
    client = await make_client()
    resp = await client.get("/", headers={"X-Ingress-Path": PREFIX})
    html = await resp.text()
    assert f'<base href="{PREFIX}/">' in html
    assert 'data-ingress="true"' in html
    bad = await client.get("/", headers={"X-Ingress-Path": '/x"><script>alert(1)</script>'})
    assert bad.status == 400
    assert "X-Ingress-Path" in (await bad.json())["error"]["message"]


async def test_outside_the_addon_ingress_headers_grant_nothing(make_client: Client) -> None:
    client = await make_client(api_key="full-key-123")
    resp = await client.get("/api/sources", headers={"X-Ingress-Path": PREFIX})
    assert resp.status == 401


async def test_addon_refuses_ingress_traffic_not_from_the_supervisor(make_client: Client) -> None:
    client = await make_client(addon=True)
    for path in ("/", "/api/sources", "/ui/app.js"):
        resp = await client.get(path, headers={"X-Ingress-Path": PREFIX})
        assert resp.status == 403, path
        body = await resp.json()
        assert body["error"]["code"] == "forbidden"
        assert "Supervisor" in body["error"]["message"]
    # Direct traffic (port 8888) is unaffected.
    assert (await client.get("/api/sources")).status == 200


async def test_addon_trusts_ingress_from_the_supervisor(
    make_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HA has authenticated the user; the browser's Host and Origin are HA's own."""
    monkeypatch.setattr(ui, "SUPERVISOR_ADDRESS", "127.0.0.1")
    client = await make_client(addon=True, api_key="full-key-123", read_api_key="read-456")
    ha_browser = {
        "X-Ingress-Path": PREFIX,
        "Host": "myhome.ui.nabu.casa",
        "Origin": "https://myhome.ui.nabu.casa",
    }
    resp = await client.get("/api/sources", headers=ha_browser)
    assert resp.status == 200
    resp = await client.post("/api/memories", json={"content": "via ingress"}, headers=ha_browser)
    assert resp.status == 201, await resp.text()
    # The same request without the ingress header is an outsider again.
    plain = {k: v for k, v in ha_browser.items() if k != "X-Ingress-Path"}
    assert (await client.get("/api/sources", headers=plain)).status == 403
    no_host = {"Origin": "https://myhome.ui.nabu.casa"}
    assert (await client.get("/api/sources", headers=no_host)).status in (401, 403)


def test_addon_shows_the_ui_in_the_sidebar_through_ingress() -> None:
    """ingress on the port the server listens on, with a sidebar panel."""
    cfg = yaml.safe_load((REPO / "addon" / "config.yaml").read_text(encoding="utf-8"))
    assert cfg["ingress"] is True
    assert cfg["ingress_port"] == Settings().port == 8888
    assert cfg["panel_icon"].startswith("mdi:")
    assert cfg["panel_title"] == "Mnemolis"
    assert "8888/tcp" in cfg["ports"]
    for key in ("retention_days", "max_rows", "store_text"):
        assert key in cfg["options"]["querylog"] and key in cfg["schema"]["querylog"]
