"""MCP over stdio (``mnemolis mcp``): JSON-RPC lines on stdin/stdout, logs on stderr."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import logging
import sys
from typing import Any, TextIO

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from ..settings import Settings
from .protocol import Outgoing, decode, dump, parse_json, rpc_error
from .server import build_server, initialization_options

_LOGGER = logging.getLogger(__name__)


async def serve_stdio(settings: Settings, stdin: TextIO, stdout: TextIO) -> None:
    """Serve one client on the given text streams until stdin closes."""
    from ..core import Mnemolis

    core = Mnemolis(settings)
    core.watch_files = False  # SPEC §7: stdio opens the databases without a watcher
    await core.start()
    try:
        server = build_server(core)
        in_send: MemoryObjectSendStream[SessionMessage | Exception]
        in_recv: MemoryObjectReceiveStream[SessionMessage | Exception]
        out_send: MemoryObjectSendStream[SessionMessage]
        out_recv: MemoryObjectReceiveStream[SessionMessage]
        in_send, in_recv = anyio.create_memory_object_stream(64)
        out_send, out_recv = anyio.create_memory_object_stream(64)
        reader = anyio.wrap_file(stdin)
        writer = anyio.wrap_file(stdout)
        lock = anyio.Lock()

        async def write(item: Outgoing) -> None:
            line = json.dumps(item) if isinstance(item, dict) else dump(item)
            async with lock:
                await writer.write(line + "\n")
                await writer.flush()

        async def read_loop() -> None:
            async with in_send:
                async for line in reader:
                    if not line.strip():
                        continue
                    try:
                        payload: Any = parse_json(line)
                    except ValueError as err:
                        await write(rpc_error(None, -32700, str(err)))
                        continue
                    items = payload if isinstance(payload, list) else [payload]
                    for d in (decode(item) for item in items):
                        if d.error is not None:
                            await write(d.error)
                        elif d.message is not None:
                            await in_send.send(SessionMessage(d.message))

        drained = anyio.Event()

        async def write_loop() -> None:
            async with out_recv:
                async for item in out_recv:
                    await write(item.message)
            drained.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(read_loop)
            tg.start_soon(write_loop)
            await server.run(in_recv, out_send, initialization_options(server))
            with anyio.move_on_after(5):  # let the last replies reach stdout
                await drained.wait()
            tg.cancel_scope.cancel()
    finally:
        await core.stop()


def run_mcp_command(settings: Settings, _args: argparse.Namespace) -> int:
    """``mnemolis mcp``: stdout carries only protocol; anything else goes to stderr."""
    protocol_out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n")
    protocol_in = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    sys.stdout = sys.stderr  # a stray print() must not corrupt the protocol stream
    with contextlib.suppress(KeyboardInterrupt, BrokenPipeError):
        asyncio.run(serve_stdio(settings, protocol_in, protocol_out))
    return 0
