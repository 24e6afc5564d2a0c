"""The official MCP client connected to a fresh Mnemolis over one transport (a fixture).

Imported at the end of conftest.py (it uses what conftest defines).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamablehttp_client

from .conftest import SERVER_BIN, ServerProcess, server_env

TRANSPORTS = ["streamable-http", "sse", "stdio"]

Connect = Callable[..., Any]


@pytest.fixture
def connect(start_server: Callable[..., ServerProcess], tmp_path: Path) -> Iterator[Connect]:
    """Open a ClientSession to a fresh Mnemolis over one transport, with extra env (and
    the ClientSession's own keyword arguments: callbacks)."""

    @asynccontextmanager
    async def factory(
        transport: str, env: dict[str, str], headers: dict[str, str] | None = None, **client: Any
    ) -> AsyncIterator[tuple[ClientSession, ServerProcess | None]]:
        if transport == "stdio":
            full_env = server_env()
            params = StdioServerParameters(
                command=str(SERVER_BIN),
                args=["mcp", "--data-dir", str(tmp_path / "stdio-data")],
                env={**full_env, **env},
            )
            with (tmp_path / "stdio-stderr.log").open("w") as errlog:
                async with (
                    stdio_client(params, errlog=errlog) as (read, write),
                    ClientSession(read, write, **client) as session,
                ):
                    yield session, None
            return
        server = start_server(env=env)
        if transport == "sse":
            async with (
                sse_client(f"{server.url}/mcp/sse", headers=headers) as (read, write),
                ClientSession(read, write, **client) as session,
            ):
                yield session, server
        else:
            async with (
                streamablehttp_client(f"{server.url}/mcp", headers=headers) as (read, write, _),
                ClientSession(read, write, **client) as session,
            ):
                yield session, server

    yield factory


async def spawn_stdio(data_dir: Path) -> asyncio.subprocess.Process:
    """A real ``mnemolis mcp`` process with pipes, for raw JSON-RPC lines."""
    return await asyncio.create_subprocess_exec(
        str(SERVER_BIN),
        "mcp",
        "--data-dir",
        str(data_dir),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=server_env(),
    )
