"""A body shorter than its Content-Length gets 408, not a held connection (issue 29 item 3)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from .conftest import ServerProcess

# How long the test waits for an answer at most (a bound, not a figure it checks).
BOUND_S = 30


async def _short_body(port: int, path: str) -> tuple[str, dict[str, str], bytes]:
    """Announce 200 bytes, send 10, and read whatever the server answers."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        'Content-Length: 200\r\n\r\n{"query":'.encode()
    )
    await writer.drain()
    try:
        # The answer as a client reads it: its head, then the body its Content-Length says.
        # (Reading until the server closes while still holding the write side open would
        # wait out aiohttp's ten-second lingering read of the bytes never sent.)
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), BOUND_S)
        status, *lines = head.decode().strip().split("\r\n")
        headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
        size = int(headers.get("content-length", "0"))
        body = await asyncio.wait_for(reader.readexactly(size), BOUND_S)
        # Then the line is let go, not held: once the client sends no more, the server
        # closes it (nothing more comes but the end).
        writer.write_eof()
        rest = await asyncio.wait_for(reader.read(), BOUND_S)
        assert rest == b"" and reader.at_eof(), rest[:200]
    finally:
        writer.close()
    return status, headers, body


async def test_a_short_body_is_answered_408_and_the_server_keeps_serving(
    start_server: Callable[..., ServerProcess],
) -> None:
    server = start_server(env={"MNEMOLIS_LIMITS__BODY_TIMEOUT": "1"})
    for path in ("/search", "/mcp", "/api/memories"):
        status, headers, body = await _short_body(server.port, path)
        assert status.startswith("HTTP/1.1 408"), (path, status, body)
        assert headers.get("connection", "").lower() == "close", headers
        error = json.loads(body)["error"]
        assert error["code"] == "request_timeout", error
        assert "200 bytes announced" in error["message"]
        assert "limits.body_timeout" in error["message"]
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(
        f"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        "Connection: close\r\n\r\n".encode()
    )
    answer = await asyncio.wait_for(reader.read(), BOUND_S)
    writer.close()
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    assert "Traceback" not in server.logs()
