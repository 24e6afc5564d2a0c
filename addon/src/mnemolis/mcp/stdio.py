"""MCP over stdio (``mnemolis mcp``): JSON-RPC lines on stdin/stdout, logs on stderr."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import logging
import sys
from dataclasses import dataclass, field
from typing import Any, TextIO

import anyio
import mcp.types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import ServerMessageMetadata, SessionMessage

from ..settings import Settings
from .protocol import (
    INVALID_REQUEST,
    Decoded,
    Outgoing,
    RequestId,
    batch_refused,
    batching_allowed,
    decode,
    dump,
    parse_json,
    rpc_error,
)
from .server import build_server, initialization_options

_LOGGER = logging.getLogger(__name__)


# How long answers to requests still in flight are awaited after stdin closes.
DRAIN_SECONDS = 120.0


@dataclass(slots=True)
class _Batch:
    """Replies to one JSON array of requests, written as one array when all are in."""

    waiting: set[RequestId]
    replies: list[Outgoing] = field(default_factory=list)


async def serve_stdio(settings: Settings, stdin: TextIO, stdout: TextIO) -> None:
    """Serve one client on the given text streams until stdin closes.

    Requests still running when stdin closes are answered before the server
    stops (a piped ``remember`` must not be stored silently).
    """
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
        in_flight: set[RequestId] = set()
        batches: dict[RequestId, _Batch] = {}
        drain_done: list[anyio.Event | None] = [None]  # set when the last answer is out
        version: list[str | None] = [None]  # the protocol version initialize settled on

        async def write(item: Outgoing | list[Outgoing]) -> None:
            if isinstance(item, list):
                line = "[" + ",".join(_encode(i) for i in item) + "]"
            else:
                line = _encode(item)
            async with lock:
                await writer.write(line + "\n")
                await writer.flush()

        async def read_batch(items: list[Any]) -> None:
            if not items:
                await write(rpc_error(None, INVALID_REQUEST, "Invalid Request: empty batch"))
                return
            if not batching_allowed(version[0]):
                await write(batch_refused(str(version[0])))
                return
            decoded = [decode(item) for item in items]
            batch = _Batch(waiting={d.request_id for d in decoded if d.request_id is not None})
            batch.replies.extend(d.error for d in decoded if d.error is not None)
            for request_id in batch.waiting:
                batches[request_id] = batch
            for d in decoded:
                if d.message is not None:
                    await send(d)
            if not batch.waiting and batch.replies:
                await write(batch.replies)

        async def send(d: Decoded) -> None:
            if d.request_id is not None:
                in_flight.add(d.request_id)
            # A local process started by the user: full access, said explicitly.
            meta = ServerMessageMetadata(request_context="write")
            await in_send.send(SessionMessage(d.message, metadata=meta))  # type: ignore[arg-type]

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
                    if isinstance(payload, list):
                        await read_batch(payload)
                        continue
                    d = decode(payload)
                    if d.error is not None:
                        await write(d.error)
                    elif d.message is not None:
                        await send(d)
                # stdin closed: answer what is still running before the server stops.
                if in_flight:
                    done = drain_done[0] = anyio.Event()
                    with anyio.move_on_after(DRAIN_SECONDS):
                        await done.wait()

        drained = anyio.Event()

        async def write_loop() -> None:
            async with out_recv:
                async for item in out_recv:
                    await deliver(item.message)
            drained.set()

        async def deliver(message: types.JSONRPCMessage) -> None:
            root = message.root
            if isinstance(root, types.JSONRPCResponse | types.JSONRPCError):
                in_flight.discard(root.id)
                if isinstance(root, types.JSONRPCResponse) and "protocolVersion" in root.result:
                    found = root.result["protocolVersion"]
                    version[0] = found if isinstance(found, str) else None
                batch = batches.pop(root.id, None)
                if batch is not None:
                    batch.waiting.discard(root.id)
                    batch.replies.append(message)
                    if not batch.waiting:
                        await write(batch.replies)
                else:
                    await write(message)
                if not in_flight and drain_done[0] is not None:
                    drain_done[0].set()
                return
            await write(message)

        async with anyio.create_task_group() as tg:
            tg.start_soon(read_loop)
            tg.start_soon(write_loop)
            await server.run(in_recv, out_send, initialization_options(server))
            with anyio.move_on_after(5):  # let the last replies reach stdout
                await drained.wait()
            tg.cancel_scope.cancel()
    finally:
        await core.stop()


def _encode(item: Outgoing) -> str:
    return json.dumps(item) if isinstance(item, dict) else dump(item)


def run_mcp_command(settings: Settings, _args: argparse.Namespace) -> int:
    """``mnemolis mcp``: stdout carries only protocol; anything else goes to stderr."""
    protocol_out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n")
    protocol_in = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    sys.stdout = sys.stderr  # a stray print() must not corrupt the protocol stream
    with contextlib.suppress(KeyboardInterrupt, BrokenPipeError):
        asyncio.run(serve_stdio(settings, protocol_in, protocol_out))
    return 0
