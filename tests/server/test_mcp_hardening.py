"""What outside MCP clients tripped over (issue 17): auth challenge, caps, ids, batches, stdio."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient
from mcp.shared.memory import create_connected_server_and_client_session

from mnemolis.mcp.gateway import MCP_GATE
from mnemolis.mcp.server import build_server
from mnemolis.rest import keys

from .mcp_client_fixture import spawn_stdio
from .test_mcp_wire import ACCEPT, init_msg, initialize, rpc

KEY = "full-key-Zq81xv"
WELL_KNOWN = [
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-authorization-server",
    "/.well-known/oauth-authorization-server/mcp",
    "/.well-known/openid-configuration",
]


async def test_401_challenge_names_the_key_and_oauth_discovery_is_404(
    make_client: Callable[..., Any],
) -> None:
    """mcp-remote and the SDKs read WWW-Authenticate; OAuth discovery must find nothing."""
    client = await make_client(api_key=KEY)
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        resp = await client.post("/mcp", json=init_msg(), headers={**ACCEPT, **headers})
        assert resp.status == 401
        challenge = resp.headers["WWW-Authenticate"]
        assert challenge.startswith("Bearer ")
        assert 'error="invalid_token"' in challenge and "API key" in challenge
        assert "resource_metadata" not in challenge
        rest = await client.get("/api/sources", headers=headers)
        assert rest.status == 401 and "API key" in rest.headers["WWW-Authenticate"]
    for path in WELL_KNOWN:
        for headers in ({}, {"Authorization": f"Bearer {KEY}"}):
            resp = await client.get(path, headers=headers)
            assert resp.status == 404, (path, resp.status)
            assert (await resp.json())["error"]["code"] == "not_found"
    # Clients without metadata fall back to /register, /authorize and /token and print
    # the body: it must say to send the API key as a header.
    for method, path in (("POST", "/register"), ("GET", "/authorize"), ("POST", "/token")):
        resp = await client.request(method, path, json={} if method == "POST" else None)
        assert resp.status == 404, path
        message = (await resp.json())["error"]["message"]
        assert "API key" in message and "Authorization: Bearer" in message, message


async def test_wrong_keys_are_rate_limited_by_address_before_auth(
    make_client: Callable[..., Any],
) -> None:
    """Guessing runs out of budget; the right key from elsewhere is unaffected."""
    client = await make_client(api_key=KEY, limits={"exempt_loopback": False})
    statuses = []
    for n in range(25):
        resp = await client.get("/api/sources", headers={"X-API-Key": f"guess-{n}"})
        statuses.append(resp.status)
    assert statuses[:20] == [401] * 20
    assert set(statuses[20:]) == {429}, statuses
    limited = await client.get("/api/sources", headers={"X-API-Key": "guess-x"})
    assert int(limited.headers["Retry-After"]) >= 1
    assert "wrong or missing API key" in (await limited.json())["error"]["message"]
    # Made-up keys never named their own buckets in the request limiter either.
    from mnemolis.ratelimit import LIMITER

    assert not any(k.startswith("key:") for k in client.app[LIMITER]._buckets)
    # The health probe stays public.
    assert (await client.get("/api/health")).status == 200


async def test_right_key_never_spends_the_failure_budget(
    make_client: Callable[..., Any],
) -> None:
    client = await make_client(api_key=KEY, limits={"exempt_loopback": False, "rate_per_minute": 0})
    for _ in range(40):
        resp = await client.get("/api/sources", headers={"X-API-Key": KEY})
        assert resp.status == 200


async def test_session_cap_is_exact_under_a_burst(make_client: Callable[..., Any]) -> None:
    client: TestClient[Any, Any] = await make_client()
    store = await client.app[MCP_GATE].sessions()
    store.limit = 5
    seen: list[int] = []
    original = store.create

    async def watched(**kw: Any) -> Any:
        session = await original(**kw)
        seen.append(len(store))
        return session

    store.create = watched  # type: ignore[method-assign]
    replies = await asyncio.gather(
        *(client.post("/mcp", json=init_msg(), headers=ACCEPT) for _ in range(40))
    )
    assert all(r.status == 200 for r in replies)
    assert max(seen) <= 5, seen
    assert len(store) <= 5


async def test_ids_batches_params_and_templates(make_client: Callable[..., Any]) -> None:
    client = await make_client()
    sess = await initialize(client)  # the newest version: no batches
    for bad_id, said in ((None, "null"), ({"a": 1}, "an object"), ([1], "an array")):
        resp = await client.post(
            "/mcp", json={"jsonrpc": "2.0", "id": bad_id, "method": "ping"}, headers=sess
        )
        assert resp.status == 400, bad_id
        body = await resp.json()
        assert body["error"]["code"] == -32600 and body["id"] is None
        assert said in body["error"]["message"]

    batch = await client.post("/mcp", json=[rpc("ping", id=1), rpc("ping", id=2)], headers=sess)
    assert batch.status == 400
    body = await batch.json()
    assert body["error"]["code"] == -32600 and "batch" in body["error"]["message"]

    old = await client.post("/mcp", json=init_msg("2025-03-26"), headers=ACCEPT)
    old_sess = {**ACCEPT, "Mcp-Session-Id": old.headers["Mcp-Session-Id"]}
    old_sess["MCP-Protocol-Version"] = "2025-03-26"
    ok = await client.post("/mcp", json=[rpc("ping", id=1), rpc("ping", id=2)], headers=old_sess)
    assert ok.status == 200 and isinstance(await ok.json(), list)

    no_name = await client.post(
        "/mcp", json=rpc("tools/call", {"arguments": {}}, id=8), headers=sess
    )
    error = (await no_name.json())["error"]
    assert error["code"] == -32602
    assert "params.name" in error["message"] and "tools/list" in error["message"]

    templates = await client.post(
        "/mcp", json=rpc("resources/templates/list", {}, id=9), headers=sess
    )
    listed = (await templates.json())["result"]["resourceTemplates"]
    assert [t["uriTemplate"] for t in listed] == ["mnemolis://docs/{page}"]
    page = await client.post(
        "/mcp", json=rpc("resources/read", {"uri": "mnemolis://docs/security"}, id=10), headers=sess
    )
    assert "API key" in (await page.json())["result"]["contents"][0]["text"]


async def test_lone_surrogates_and_nul_over_mcp(make_client: Callable[..., Any]) -> None:
    client = await make_client()
    sess = await initialize(client)
    for args in (
        {"query": "a\ud800"},
        {"query": "garage", "fusion_sources": ["\udfff"]},
        {"content": "x", "tags": ["ok", "b\ud800d"]},
    ):
        tool = "remember" if "content" in args else "search"
        raw = json.dumps(rpc("tools/call", {"name": tool, "arguments": args}, id=3))
        resp = await client.post(
            "/mcp", data=raw.encode(), headers={**sess, "Content-Type": "application/json"}
        )
        assert resp.status == 200
        result = (await resp.json())["result"]
        assert result["isError"] is True
        assert "lone surrogate" in result["content"][0]["text"], result
    nul = rpc("resources/read", {"uri": "mnemolis://docs/a\u0000b"}, id=4)
    error = (await (await client.post("/mcp", json=nul, headers=sess)).json())["error"]
    assert error["code"] == -32602 and "NUL" in error["message"]


async def test_a_message_without_a_level_only_reads(make_client: Callable[..., Any]) -> None:
    """A transport that forgets to say who is calling gets read access, not write."""
    client = await make_client()
    server = build_server(client.app[keys.CORE])
    async with create_connected_server_and_client_session(server) as session:
        refused = await session.call_tool("remember", {"content": "the code is 1234"})
        assert refused.isError and "full API key" in refused.content[0].text  # type: ignore[union-attr]
        found = await session.call_tool("docs", {})
        assert not found.isError


async def test_stdio_answers_in_flight_requests_and_batches_with_an_array(
    tmp_path: Path,
) -> None:
    proc = await spawn_stdio(tmp_path / "d")
    remember = rpc("tools/call", {"name": "remember", "arguments": {"content": "Bins: Tuesday"}})
    remember["id"] = 5
    lines = [
        json.dumps(init_msg("2025-03-26")),
        json.dumps(rpc("notifications/initialized", id=None)),
        json.dumps([rpc("ping", id=2), rpc("nope", id=3), rpc("tools/list", {}, id=4)]),
        json.dumps(remember),  # stdin closes right after: it must still be answered
    ]
    out, err = await asyncio.wait_for(
        proc.communicate(("\n".join(lines) + "\n").encode()), timeout=90
    )
    assert proc.returncode == 0, err.decode()[-2000:]
    replies = [json.loads(line) for line in out.decode().splitlines()]
    assert replies[0]["result"]["protocolVersion"] == "2025-03-26"
    batch = replies[1]
    assert isinstance(batch, list), replies
    by_id = {item["id"]: item for item in batch}
    assert by_id[2]["result"] == {} and by_id[3]["error"]["code"] == -32601
    assert by_id[4]["result"]["tools"]
    assert replies[2]["id"] == 5, replies
    assert replies[2]["result"]["isError"] is False, replies[2]


async def test_legacy_sse_batches_follow_the_negotiated_version(
    make_client: Callable[..., Any],
) -> None:
    from .test_mcp_wire import read_event

    client = await make_client()
    for version, allowed in (("2024-11-05", True), ("2025-06-18", False)):
        stream = await client.get("/mcp/sse", headers={"Accept": "text/event-stream"})
        url = f"/mcp/{(await read_event(stream))[1]}"
        assert (await client.post(url, json=init_msg(version))).status == 202
        assert json.loads((await read_event(stream))[1])["result"]["protocolVersion"] == version
        await client.post(url, json=rpc("notifications/initialized", id=None))
        assert (await client.post(url, json=[rpc("ping", id=5), rpc("ping", id=6)])).status == 202
        reply = json.loads((await read_event(stream))[1])
        if allowed:
            assert reply["id"] in (5, 6) and reply["result"] == {}, reply
        else:
            assert reply["error"]["code"] == -32600 and "batch" in reply["error"]["message"]
        stream.close()
