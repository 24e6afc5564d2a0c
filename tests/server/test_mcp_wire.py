"""MCP HTTP wire rules, spoken raw: sessions, status codes, JSON-RPC errors, security."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.shared.version import SUPPORTED_PROTOCOL_VERSIONS
from mcp.types import LATEST_PROTOCOL_VERSION
from pydantic import BaseModel

from mnemolis.tools import TOOLS, Tool, ToolResult

ACCEPT = {"Accept": "application/json, text/event-stream"}
JSON = {"Content-Type": "application/json"}
VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]


def rpc(method: str, params: dict[str, Any] | None = None, id: int | None = 1) -> dict[str, Any]:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    if id is not None:
        msg["id"] = id
    return msg


def init_msg(version: str = LATEST_PROTOCOL_VERSION) -> dict[str, Any]:
    return rpc(
        "initialize",
        {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    )


async def initialize(
    client: TestClient[Any, Any], headers: dict[str, str] | None = None
) -> dict[str, str]:
    """Initialize a session; returns the headers later requests must send."""
    resp = await client.post("/mcp", json=init_msg(), headers={**ACCEPT, **(headers or {})})
    assert resp.status == 200, await resp.text()
    session = resp.headers["Mcp-Session-Id"]
    sess = {
        **ACCEPT,
        **(headers or {}),
        "Mcp-Session-Id": session,
        "MCP-Protocol-Version": LATEST_PROTOCOL_VERSION,
    }
    done = await client.post("/mcp", json=rpc("notifications/initialized", id=None), headers=sess)
    assert done.status == 202
    return sess


@pytest.fixture
async def client(make_client: Callable[..., Any]) -> TestClient[Any, Any]:
    return await make_client()  # type: ignore[no-any-return]


def test_sdk_supports_the_promised_versions() -> None:
    assert set(VERSIONS) <= set(SUPPORTED_PROTOCOL_VERSIONS)


@pytest.mark.parametrize("version", VERSIONS)
async def test_initialize_negotiates_each_version(
    client: TestClient[Any, Any], version: str
) -> None:
    resp = await client.post("/mcp", json=init_msg(version), headers=ACCEPT)
    assert resp.status == 200
    assert resp.content_type == "application/json"
    assert len(resp.headers["Mcp-Session-Id"]) >= 32
    body = await resp.json()
    assert body["id"] == 1
    result = body["result"]
    assert result["protocolVersion"] == version
    assert result["serverInfo"]["name"] == "mnemolis"
    assert "search" in result["instructions"] and "list_rag" in result["instructions"]
    assert "tools" in result["capabilities"]


async def test_unknown_version_gets_the_newest(client: TestClient[Any, Any]) -> None:
    resp = await client.post("/mcp", json=init_msg("1999-01-01"), headers=ACCEPT)
    assert (await resp.json())["result"]["protocolVersion"] == LATEST_PROTOCOL_VERSION


async def test_notification_is_202_and_session_rules(client: TestClient[Any, Any]) -> None:
    sess = await initialize(client)
    listed = await client.post("/mcp", json=rpc("tools/list", {}), headers=sess)
    assert listed.status == 200
    names = [t["name"] for t in (await listed.json())["result"]["tools"]]
    assert {"search", "docs"} <= set(names)

    no_session = {k: v for k, v in sess.items() if k != "Mcp-Session-Id"}
    missing = await client.post("/mcp", json=rpc("tools/list", {}), headers=no_session)
    assert missing.status == 400
    assert "Mcp-Session-Id" in (await missing.json())["error"]["message"]

    unknown = await client.post(
        "/mcp", json=rpc("tools/list", {}), headers={**sess, "Mcp-Session-Id": "f" * 32}
    )
    assert unknown.status == 404


async def test_protocol_version_header_rules(client: TestClient[Any, Any]) -> None:
    sess = await initialize(client)
    bad = await client.post(
        "/mcp", json=rpc("ping"), headers={**sess, "MCP-Protocol-Version": "1999-01-01"}
    )
    assert bad.status == 400
    assert "1999-01-01" in (await bad.json())["error"]["message"]
    older = await client.post(
        "/mcp", json=rpc("ping"), headers={**sess, "MCP-Protocol-Version": "2025-03-26"}
    )
    assert older.status == 200
    without = {k: v for k, v in sess.items() if k != "MCP-Protocol-Version"}
    assert (await client.post("/mcp", json=rpc("ping"), headers=without)).status == 200


async def test_json_rpc_error_codes(client: TestClient[Any, Any]) -> None:
    sess = await initialize(client)
    bad_json = await client.post(
        "/mcp", data=b'{"jsonrpc": "2.0", "id": 1,', headers={**sess, **JSON}
    )
    assert bad_json.status == 400
    body = await bad_json.json()
    assert body["error"]["code"] == -32700 and body["id"] is None

    not_rpc = await client.post("/mcp", json={"hello": "world"}, headers=sess)
    assert (await not_rpc.json())["error"]["code"] == -32600

    unknown = await client.post("/mcp", json=rpc("tools/explode", {}, id=7), headers=sess)
    body = await unknown.json()
    assert body == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32601, "message": "Method not found: tools/explode"},
    }

    no_name = await client.post(
        "/mcp", json=rpc("tools/call", {"arguments": {}}, id=8), headers=sess
    )
    body = await no_name.json()
    assert body["id"] == 8 and body["error"]["code"] == -32602

    # The session survived every fault.
    ok = await client.post("/mcp", json=rpc("tools/list", {}, id=9), headers=sess)
    assert ok.status == 200 and "tools" in (await ok.json())["result"]


async def test_batch_gets_an_array(client: TestClient[Any, Any]) -> None:
    # Batching exists up to protocol 2025-03-26 (later versions refuse it, see
    # test_mcp_hardening).
    init = await client.post("/mcp", json=init_msg("2025-03-26"), headers=ACCEPT)
    sess = {**ACCEPT, "Mcp-Session-Id": init.headers["Mcp-Session-Id"]}
    sess["MCP-Protocol-Version"] = "2025-03-26"
    resp = await client.post(
        "/mcp",
        json=[rpc("ping", id=1), rpc("nope", id=2), rpc("tools/list", {}, id=3)],
        headers=sess,
    )
    body = await resp.json()
    assert isinstance(body, list)
    by_id = {item["id"]: item for item in body}
    assert by_id[1]["result"] == {}
    assert by_id[2]["error"]["code"] == -32601
    assert by_id[3]["result"]["tools"]


async def test_tool_errors_are_results(client: TestClient[Any, Any]) -> None:
    sess = await initialize(client)
    resp = await client.post(
        "/mcp", json=rpc("tools/call", {"name": "nope", "arguments": {}}), headers=sess
    )
    result = (await resp.json())["result"]
    assert result["isError"] is True
    assert "unknown tool 'nope'" in result["content"][0]["text"]
    assert "search" in result["content"][0]["text"]

    resp = await client.post(
        "/mcp",
        json=rpc("tools/call", {"name": "search", "arguments": {"query": "x", "source": "moon"}}),
        headers=sess,
    )
    result = (await resp.json())["result"]
    assert result["isError"] is True
    assert "unknown source 'moon'" in result["content"][0]["text"]


async def test_sse_response_when_client_only_takes_sse(client: TestClient[Any, Any]) -> None:
    sess = await initialize(client)
    resp = await client.post(
        "/mcp",
        json=rpc("tools/list", {}, id=5),
        headers={**sess, "Accept": "text/event-stream"},
    )
    assert resp.status == 200
    assert resp.content_type == "text/event-stream"
    text = await resp.text()
    event = next(line for line in text.splitlines() if line.startswith("data: "))
    assert json.loads(event[6:])["id"] == 5


async def test_accept_and_content_type_rules(client: TestClient[Any, Any]) -> None:
    sess = await initialize(client)
    wrong_accept = await client.post(
        "/mcp", json=rpc("ping"), headers={**sess, "Accept": "text/html"}
    )
    assert wrong_accept.status == 406
    wrong_type = await client.post(
        "/mcp", data="ping", headers={**sess, "Content-Type": "text/plain"}
    )
    assert wrong_type.status == 415


async def test_get_stream_and_delete(client: TestClient[Any, Any]) -> None:
    sess = await initialize(client)
    no_session = await client.get("/mcp", headers={"Accept": "text/event-stream"})
    assert no_session.status == 400
    not_sse = await client.get("/mcp", headers={**sess, "Accept": "application/json"})
    assert not_sse.status == 406

    stream = await client.get("/mcp", headers={**sess, "Accept": "text/event-stream"})
    assert stream.status == 200
    assert stream.content_type == "text/event-stream"
    second = await client.get("/mcp", headers={**sess, "Accept": "text/event-stream"})
    assert second.status == 409

    deleted = await client.delete("/mcp", headers=sess)
    assert deleted.status == 204
    # The session's stream ends with it.
    assert await asyncio.wait_for(stream.content.read(), 10) == b""
    gone = await client.post("/mcp", json=rpc("ping"), headers=sess)
    assert gone.status == 404
    assert (await client.delete("/mcp", headers=sess)).status == 404


async def test_other_methods_are_405_with_allow(client: TestClient[Any, Any]) -> None:
    resp = await client.put("/mcp", json={})
    assert resp.status == 405
    assert set(resp.headers["Allow"].split(",")) >= {"GET", "POST", "DELETE"}


async def read_event(stream: Any) -> tuple[str, str]:
    """The next SSE event (name, data) from an aiohttp response body."""
    name, data = "message", ""
    while True:
        line = (await asyncio.wait_for(stream.content.readline(), 10)).decode().rstrip("\r\n")
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            data = line[6:]
        elif line == "" and data:
            return name, data


@pytest.fixture
async def sse(client: TestClient[Any, Any]) -> AsyncIterator[tuple[Any, str]]:
    stream = await client.get("/mcp/sse", headers={"Accept": "text/event-stream"})
    assert stream.status == 200
    name, endpoint = await read_event(stream)
    assert name == "endpoint"
    yield stream, endpoint
    stream.close()


async def test_legacy_sse_endpoint_is_relative(
    client: TestClient[Any, Any], sse: tuple[Any, str]
) -> None:
    stream, endpoint = sse
    assert endpoint.startswith("messages/?session_id=")
    url = f"/mcp/{endpoint}"
    posted = await client.post(url, json=init_msg("2024-11-05"))
    assert posted.status == 202
    name, data = await read_event(stream)
    assert name == "message"
    assert json.loads(data)["result"]["protocolVersion"] == "2024-11-05"
    await client.post(url, json=rpc("notifications/initialized", id=None))
    await client.post(url, json=rpc("tools/list", {}, id=2))
    assert json.loads((await read_event(stream))[1])["result"]["tools"]

    bad = await client.post(url, data=b"{nope", headers=JSON)
    assert bad.status == 400
    assert (await bad.json())["error"]["code"] == -32700
    await client.post(url, json=rpc("tools/explode", {}, id=3))
    assert json.loads((await read_event(stream))[1])["error"]["code"] == -32601


async def test_legacy_sse_session_rules_and_cleanup(
    client: TestClient[Any, Any], sse: tuple[Any, str]
) -> None:
    stream, endpoint = sse
    assert (await client.post("/mcp/messages/", json=rpc("ping"))).status == 400
    unknown = await client.post("/mcp/messages/?session_id=" + "0" * 32, json=rpc("ping"))
    assert unknown.status == 404
    url = f"/mcp/{endpoint}"
    assert (await client.post(url, json=init_msg())).status == 202
    stream.close()
    for _ in range(100):  # the server notices the closed stream within its poll interval
        if (await client.post(url, json=rpc("ping"))).status == 404:
            break
        await asyncio.sleep(0.1)
    else:
        pytest.fail("legacy SSE session outlived its stream")


# --- security --------------------------------------------------------------------


async def test_api_key_on_both_transports(make_client: Callable[..., Any]) -> None:
    client = await make_client(api_key="full-secret-key", read_api_key="read-only-key")
    for path, method in (("/mcp", "POST"), ("/mcp/sse", "GET"), ("/mcp/messages/", "POST")):
        missing = await client.request(method, path, json=init_msg(), headers=ACCEPT)
        assert missing.status == 401, path
        wrong = await client.request(
            method, path, json=init_msg(), headers={**ACCEPT, "Authorization": "Bearer nope"}
        )
        assert wrong.status == 401, path
    ok = await client.post(
        "/mcp", json=init_msg(), headers={**ACCEPT, "X-API-Key": "read-only-key"}
    )
    assert ok.status == 200


async def test_origin_and_host_checks(make_client: Callable[..., Any]) -> None:
    client = await make_client(allowed_origins=["http://trusted.example"])
    evil = await client.post(
        "/mcp", json=init_msg(), headers={**ACCEPT, "Origin": "http://evil.example"}
    )
    assert evil.status == 403
    trusted = await client.post(
        "/mcp", json=init_msg(), headers={**ACCEPT, "Origin": "http://trusted.example"}
    )
    assert trusted.status == 200
    rebound = await client.get("/mcp/sse", headers={"Host": "attacker.example:8888"})
    assert rebound.status == 403


async def test_oversized_body_is_413(make_client: Callable[..., Any]) -> None:
    client = await make_client(limits={"max_body_bytes": 4096})
    big = init_msg()
    big["params"]["clientInfo"]["name"] = "x" * 10_000
    assert (await client.post("/mcp", json=big, headers=ACCEPT)).status == 413

    async def chunks() -> AsyncIterator[bytes]:
        yield json.dumps(big).encode()

    chunked = await client.post(
        "/mcp", data=chunks(), headers={**ACCEPT, "Content-Type": "application/json"}
    )
    assert chunked.status == 413


async def test_read_key_searches_but_cannot_write(make_client: Callable[..., Any]) -> None:
    client = await make_client(api_key="full-secret-key", read_api_key="read-only-key")
    reader = await initialize(client, {"Authorization": "Bearer read-only-key"})
    call = rpc("tools/call", {"name": "remember", "arguments": {"content": "Bins go out Monday"}})
    denied = (await (await client.post("/mcp", json=call, headers=reader)).json())["result"]
    assert denied["isError"] is True
    assert "full API key" in denied["content"][0]["text"]

    search = rpc("tools/call", {"name": "search", "arguments": {"query": "hello"}})
    searched = (await (await client.post("/mcp", json=search, headers=reader)).json())["result"]
    assert "full API key" not in searched["content"][0]["text"]
    assert "source_used" in searched["structuredContent"]

    writer = await initialize(client, {"Authorization": "Bearer full-secret-key"})
    allowed = (await (await client.post("/mcp", json=call, headers=writer)).json())["result"]
    assert allowed["isError"] is False, allowed
    recall = rpc("tools/call", {"name": "recall", "arguments": {"query": "bins"}})
    found = (await (await client.post("/mcp", json=recall, headers=reader)).json())["result"]
    assert "Bins go out Monday" in json.dumps(found)


async def test_disabled_tools_are_gone(make_client: Callable[..., Any]) -> None:
    client = await make_client(mcp={"enabled_tools": ["*"], "disabled_tools": ["do*"]})
    sess = await initialize(client)
    listed = await (await client.post("/mcp", json=rpc("tools/list", {}), headers=sess)).json()
    names = [t["name"] for t in listed["result"]["tools"]]
    assert "search" in names and not [n for n in names if n.startswith("do")]
    call = rpc("tools/call", {"name": "docs", "arguments": {}})
    result = (await (await client.post("/mcp", json=call, headers=sess)).json())["result"]
    assert result["isError"] is True and "unknown tool 'docs'" in result["content"][0]["text"]


async def test_session_limit_evicts_idle_then_refuses(client: TestClient[Any, Any]) -> None:
    from mnemolis.mcp.gateway import MCP_GATE

    (await client.app[MCP_GATE].sessions()).limit = 2
    first = await initialize(client)
    await initialize(client)
    await initialize(client)  # a third evicts the least recently used idle one
    assert (await client.post("/mcp", json=rpc("ping"), headers=first)).status == 404

    streams = [await client.get("/mcp/sse") for _ in range(2)]
    assert all(s.status == 200 for s in streams)
    refused = await client.get("/mcp/sse")
    assert refused.status == 503
    assert "too many open MCP sessions" in (await refused.json())["error"]["message"]
    for stream in streams:
        stream.close()


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)
_messages = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "1.0"])},
    optional={
        "id": st.none() | st.integers() | st.text(max_size=8) | st.floats(allow_nan=False),
        "method": st.sampled_from(
            ["initialize", "tools/list", "tools/call", "ping", "notifications/initialized"]
        )
        | st.text(max_size=12),
        "params": _json,
        "result": _json,
        "error": _json,
    },
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(payload=_messages | _json)
async def test_garbage_never_breaks_the_session(
    make_client: Callable[..., Any], payload: Any
) -> None:
    """Any JSON at all gets a JSON-RPC answer or a 4xx; the session keeps working."""
    client = await make_client()
    sess = await initialize(client)
    resp = await client.post("/mcp", data=json.dumps(payload), headers={**sess, **JSON})
    assert resp.status in (200, 202, 400), (payload, resp.status)
    if resp.status != 202:
        body = await resp.json()
        replies = body if isinstance(body, list) else [body]
        for reply in replies:
            assert reply["jsonrpc"] == "2.0" and ("result" in reply or "error" in reply)
    ping = await client.post("/mcp", json=rpc("ping", id="after"), headers=sess)
    assert (await ping.json()) == {"jsonrpc": "2.0", "id": "after", "result": {}}


async def test_browser_clients_get_cors_for_allowed_origins(
    make_client: Callable[..., Any],
) -> None:
    client = await make_client(api_key="full-secret-key", allowed_origins=["http://app.example"])
    preflight = await client.options(
        "/mcp",
        headers={
            "Origin": "http://app.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, mcp-session-id",
        },
    )
    assert preflight.status == 204
    assert preflight.headers["Access-Control-Allow-Origin"] == "http://app.example"
    assert "Mcp-Session-Id" in preflight.headers["Access-Control-Allow-Headers"]
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]

    init = await client.post(
        "/mcp",
        json=init_msg(),
        headers={**ACCEPT, "Origin": "http://app.example", "X-API-Key": "full-secret-key"},
    )
    assert init.status == 200
    assert init.headers["Access-Control-Allow-Origin"] == "http://app.example"
    assert "Mcp-Session-Id" in init.headers["Access-Control-Expose-Headers"]

    evil = await client.options("/mcp", headers={"Origin": "http://evil.example"})
    assert evil.status == 403
    assert "Access-Control-Allow-Origin" not in evil.headers


async def test_docs_tool_describes_only_offered_tools(make_client: Callable[..., Any]) -> None:
    client = await make_client(mcp={"disabled_tools": ["search"]})
    sess = await initialize(client)
    call = rpc("tools/call", {"name": "docs", "arguments": {"page": "mcp"}})
    result = (await (await client.post("/mcp", json=call, headers=sess)).json())["result"]
    assert result["isError"] is False
    text = result["structuredContent"]["text"]
    assert "### `docs`" in text and "### `search`" not in text


@pytest.mark.parametrize("accept", ["application/json", "text/event-stream"])
async def test_failed_initialize_leaves_no_session(
    client: TestClient[Any, Any], accept: str
) -> None:
    from mnemolis.mcp.gateway import MCP_GATE

    bad = rpc("initialize", {"protocolVersion": 20250618})
    resp = await client.post("/mcp", json=bad, headers={"Accept": accept})
    text = await resp.text()
    reply = json.loads(text.split("data: ", 1)[1] if accept == "text/event-stream" else text)
    assert reply["error"]["code"] == -32602
    assert len(await client.app[MCP_GATE].sessions()) == 0


@pytest.mark.parametrize(
    ("enabled", "disabled", "expected"),
    [
        (["search"], [], ["search"]),
        (["search", "docs"], ["docs"], ["search"]),  # disabled wins
        (["*rag"], [], ["list_rag", "search_rag"]),
        (["*"], ["*"], []),
    ],
)
async def test_enabled_tools_patterns(
    make_client: Callable[..., Any], enabled: list[str], disabled: list[str], expected: list[str]
) -> None:
    client = await make_client(mcp={"enabled_tools": enabled, "disabled_tools": disabled})
    sess = await initialize(client)
    listed = await (await client.post("/mcp", json=rpc("tools/list", {}), headers=sess)).json()
    assert sorted(t["name"] for t in listed["result"]["tools"]) == expected


async def test_sessions_belong_to_the_key_that_opened_them(
    make_client: Callable[..., Any],
) -> None:
    client = await make_client(api_key="full-secret-key", read_api_key="read-only-key")
    owner = await initialize(client, {"X-API-Key": "read-only-key"})
    same = await client.post("/mcp", json=rpc("ping"), headers=owner)
    assert same.status == 200
    other = {**owner, "X-API-Key": "full-secret-key"}
    hijack = await client.post("/mcp", json=rpc("ping"), headers=other)
    assert hijack.status == 404
    assert (await client.delete("/mcp", headers=other)).status == 404

    stream = await client.get("/mcp/sse", headers={"X-API-Key": "read-only-key"})
    _name, endpoint = await read_event(stream)
    posted = await client.post(
        f"/mcp/{endpoint}", json=init_msg(), headers={"X-API-Key": "full-secret-key"}
    )
    assert posted.status == 404
    stream.close()


class _Wait(BaseModel):
    seconds: float = 30


@pytest.fixture
def slow_tool() -> Iterator[asyncio.Event]:
    """A tool that blocks until released: a request still in flight."""
    started = asyncio.Event()

    async def handler(_core: Any, args: _Wait) -> ToolResult:
        started.set()
        await asyncio.sleep(args.seconds)
        return ToolResult(text="done")

    TOOLS["wait_a_while"] = Tool(
        name="wait_a_while",
        title="Wait",
        description="Sleeps.",
        input_model=_Wait,
        handler=handler,
    )
    yield started
    TOOLS.pop("wait_a_while", None)


async def test_ending_a_session_answers_its_pending_requests(
    client: TestClient[Any, Any], slow_tool: asyncio.Event
) -> None:
    sess = await initialize(client)
    call = rpc("tools/call", {"name": "wait_a_while", "arguments": {}}, id=42)
    pending = asyncio.create_task(client.post("/mcp", json=call, headers=sess))
    await asyncio.wait_for(slow_tool.wait(), 10)
    assert (await client.delete("/mcp", headers=sess)).status == 204
    resp = await asyncio.wait_for(pending, 10)
    body = await resp.json()
    assert body["id"] == 42
    assert body["error"]["code"] == -32603
    assert "session was closed" in body["error"]["message"]
