"""Lone surrogates where JSON-RPC puts text: id, method, argument key (issue 29 item 1).

JSON can spell a lone UTF-16 surrogate that no UTF-8 writer accepts. Each transport
answers it with an error naming the field (never echoing it back), and the session
answers the next request as if nothing happened: Streamable HTTP, legacy SSE and a
real ``mnemolis mcp`` process.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .mcp_client_fixture import spawn_stdio
from .test_mcp_wire import JSON, init_msg, initialize, read_event, rpc

# Raw JSON lines: json.dumps would refuse to write these (that is the point).
BAD_ID = '{"jsonrpc":"2.0","id":"a\\ud800","method":"ping"}'
BAD_METHOD = '{"jsonrpc":"2.0","id":2,"method":"ping\\ud800"}'
BAD_KEY = (
    '{"jsonrpc":"2.0","id":3,"method":"tools/call",'
    '"params":{"name":"search","arguments":{"query\\ud800":"x"}}}'
)
PING = '{"jsonrpc":"2.0","id":4,"method":"ping"}'


def check(replies: list[dict[str, Any]]) -> None:
    """The three bad messages answered clearly, then the ping."""
    bad_id, bad_method, bad_key, ping = replies
    assert bad_id["id"] is None and bad_id["error"]["code"] == -32600, bad_id
    assert "id contains a lone surrogate (\\ud800)" in bad_id["error"]["message"]
    assert bad_method["id"] == 2 and bad_method["error"]["code"] == -32600, bad_method
    message = bad_method["error"]["message"]
    assert "method contains a lone surrogate" in message and "ping\ud800" not in message
    result = bad_key["result"]
    assert bad_key["id"] == 3 and result["isError"] is True, bad_key
    assert "a key in arguments contains a lone surrogate" in result["content"][0]["text"]
    assert ping == {"jsonrpc": "2.0", "id": 4, "result": {}}


async def test_streamable_http(make_client: Callable[..., Any]) -> None:
    client = await make_client()
    sess = await initialize(client)
    replies = []
    for raw in (BAD_ID, BAD_METHOD, BAD_KEY, PING):
        resp = await client.post("/mcp", data=raw.encode(), headers={**sess, **JSON})
        assert resp.status in (200, 400), await resp.text()
        replies.append(await resp.json())
    check(replies)


async def test_legacy_sse(make_client: Callable[..., Any]) -> None:
    client = await make_client()
    stream = await client.get("/mcp/sse", headers={"Accept": "text/event-stream"})
    url = f"/mcp/{(await read_event(stream))[1]}"
    assert (await client.post(url, json=init_msg("2024-11-05"))).status == 202
    await read_event(stream)
    await client.post(url, json=rpc("notifications/initialized", id=None))
    replies = []
    for raw in (BAD_ID, BAD_METHOD, BAD_KEY, PING):
        assert (await client.post(url, data=raw.encode(), headers=JSON)).status == 202
        event, data = await read_event(stream)
        assert event == "message", (event, data)
        replies.append(json.loads(data))
    check(replies)
    stream.close()


async def test_stdio_process_keeps_serving(tmp_path: Path) -> None:
    proc = await spawn_stdio(tmp_path / "d")
    lines = [
        json.dumps(init_msg()),
        json.dumps(rpc("notifications/initialized", id=None)),
        BAD_ID,
        BAD_METHOD,
        BAD_KEY,
        PING,
    ]
    out, err = await asyncio.wait_for(
        proc.communicate(("\n".join(lines) + "\n").encode()), timeout=90
    )
    assert proc.returncode == 0, err.decode()[-2000:]
    replies = [json.loads(line) for line in out.decode().splitlines()]
    assert replies[0]["result"]["serverInfo"]["name"] == "mnemolis"
    check(replies[1:])
    assert "Traceback" not in err.decode()
