"""Access control on a real server process: keys, Origin and Host on every surface.

The route list comes from the app's own table (so a new route is checked the
day it lands); requests go to a real ``mnemolis serve`` with both keys set and
every secret configured, at debug log level. Afterwards no secret may appear
anywhere in what the server logged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import aiohttp

from mnemolis.app import create_app
from mnemolis.rest import keys
from mnemolis.settings import load_settings

from .conftest import REPO, ServerProcess

FULL = "full-key-Zq81xv"
READ = "read-key-Hp42mc"
SECRETS = {
    "MNEMOLIS_API_KEY": FULL,
    "MNEMOLIS_READ_API_KEY": READ,
    "MNEMOLIS_HA__TOKEN": "ha-token-Wd73kf",
    "MNEMOLIS_LLM__API_KEY": "llm-key-Rb55tn",
    "MNEMOLIS_NEWS__FRESHRSS_PASSWORD": "freshrss-pw-Ug19sa",
}
UI_CALL = re.compile(r'api\("(GET|POST|PATCH|DELETE)",\s*[`"]([^`"?$]*)')


def endpoints() -> list[Any]:
    """The live route table (built, not started)."""
    app = create_app(load_settings(environ={}, overrides={"api_key": FULL}))
    return list(app[keys.ENDPOINT_LIST])


def concrete(path: str) -> str:
    return path.replace("{", "").replace("}", "")


async def status(
    http: aiohttp.ClientSession, method: str, url: str, headers: dict[str, str], **kw: Any
) -> int:
    async with http.request(method, url, headers=headers, **kw) as resp:
        if resp.status in (401, 403) and "json" in resp.headers.get("Content-Type", ""):
            body = await resp.json()
            assert body["error"]["code"] in ("unauthorized", "forbidden"), body
        return resp.status


async def test_keys_on_every_surface_and_no_secret_in_logs(
    start_server: Callable[..., ServerProcess], tmp_path: Any
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "boiler.md").write_text("# Boiler\n\nReset the boiler with the red button.\n")
    env = {
        **SECRETS,
        "MNEMOLIS_LOG_LEVEL": "debug",
        "MNEMOLIS_HA__URL": "http://127.0.0.1:9",
        "MNEMOLIS_LLM__BASE_URL": "http://127.0.0.1:9/v1",
        "MNEMOLIS_NEWS__FRESHRSS_URL": "http://127.0.0.1:9",
        "MNEMOLIS_NEWS__FRESHRSS_USER": "alice",
        "MNEMOLIS_RAG__ROOTS": f'["{tmp_path}"]',
        "MNEMOLIS_ALLOWED_ORIGINS": '["http://good.example"]',
    }
    server = start_server(env=env)
    table = endpoints()
    wrong = [{}, {"Authorization": "Bearer nope"}, {"X-API-Key": "nope"}, {"X-API-Key": ""}]
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
        for ep in table:
            if ep.access.value == "public":
                continue
            method = ep.method if ep.method != "*" else "GET"
            url = server.url + concrete(ep.path)
            for headers in wrong:
                got = await status(http, method, url, headers)
                assert got == 401, f"{method} {ep.path} with {headers} answered {got}"
            if ep.access.value == "write":
                got = await status(http, method, url, {"X-API-Key": READ})
                assert got == 403, f"{method} {ep.path} with the read key answered {got}"

        # The UI's own API calls all need a key (none of them is a public route).
        script = (REPO / "addon/src/mnemolis/static/app.js").read_text(encoding="utf-8")
        calls = set(UI_CALL.findall(script))
        assert len(calls) >= 8, calls
        for method, path in calls:
            matching = [
                ep for ep in table if ep.method == method and ep.path.startswith("/" + path)
            ]
            assert matching, (method, path)
            assert all(ep.access.value != "public" for ep in matching), (method, path)

        # Both MCP HTTP transports and the OpenAI endpoints, explicitly.
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        accept = {"Accept": "application/json, text/event-stream"}
        for headers in wrong:
            assert await status(http, "POST", f"{server.url}/mcp", {**accept, **headers}) == 401
            assert await status(http, "GET", f"{server.url}/mcp/sse", headers) == 401
            assert await status(http, "GET", f"{server.url}/v1/models", headers) == 401
            got = await status(
                http, "POST", f"{server.url}/v1/chat/completions", headers, json={"messages": []}
            )
            assert got == 401
        ok = {"Authorization": f"Bearer {READ}", **accept}
        async with http.post(f"{server.url}/mcp", json=init, headers=ok) as resp:
            assert resp.status == 200
        async with http.get(f"{server.url}/mcp/sse", headers=ok) as resp:
            assert resp.status == 200
            assert b"endpoint" in await resp.content.readuntil(b"\n\n")

        # Origin and Host rules hold on every surface, even with the full key.
        surfaces = [("GET", "/api/health"), ("GET", "/"), ("POST", "/search")]
        surfaces += [("POST", "/mcp"), ("GET", "/mcp/sse"), ("GET", "/v1/models")]
        keyed = {"X-API-Key": FULL, **accept}
        for method, path in surfaces:
            evil = {**keyed, "Origin": "http://evil.example"}
            assert await status(http, method, server.url + path, evil) == 403, path
            rebinding = {**keyed, "Host": "attacker.example"}
            assert await status(http, method, server.url + path, rebinding) == 403, path
        good = {**keyed, "Origin": "http://good.example"}
        assert await status(http, "GET", f"{server.url}/api/sources", good) == 200

        # The source bundle (full text of local files) only for the full key.
        full = {"X-API-Key": FULL}
        async with http.post(
            f"{server.url}/api/rag", json={"name": "house", "path": str(docs)}, headers=full
        ) as resp:
            assert resp.status == 201, await resp.text()
        bundle = {"sources": [str(docs / "boiler.md")]}
        async with http.post(
            f"{server.url}/api/source-bundle", json=bundle, headers={"X-API-Key": READ}
        ) as resp:
            assert resp.status == 403
        for _ in range(100):
            async with http.post(
                f"{server.url}/api/source-bundle", json=bundle, headers=full
            ) as resp:
                got_bundle = await resp.json()
            if resp.status == 200 and got_bundle["files"]:
                break
        assert "red button" in got_bundle["files"][0]["text"], got_bundle

        # Exercise the surfaces that touch each secret: HA, remote model, FreshRSS.
        for source in ("ha", "news"):
            async with http.post(
                f"{server.url}/search", json={"query": "status", "source": source}, headers=full
            ) as resp:
                assert resp.status == 200
        async with http.get(f"{server.url}/api/sources", headers=full) as resp:
            listing = await resp.text()
        async with http.get(f"{server.url}/api/health/readiness", headers=full) as resp:
            readiness = await resp.text()
    assert server.stop() == 0
    logs = server.logs()
    assert "DEBUG" in logs or "debug" in logs, logs[:2000]
    for name, secret in SECRETS.items():
        assert secret not in logs, f"{name} leaked into the log"
        assert secret not in listing and secret not in readiness, name
