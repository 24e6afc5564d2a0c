"""MCP sessions: one lowlevel-server task per client, fed through anyio memory streams."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import OrderedDict
from typing import Any

import anyio
import mcp.types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.lowlevel import Server
from mcp.shared.message import ServerMessageMetadata, SessionMessage

from ..errors import Unavailable
from .protocol import Outgoing, RequestId
from .server import initialization_options

_LOGGER = logging.getLogger(__name__)

_CLOSED = object()


class McpSession:
    """A client's conversation with the server definition.

    Requests go in with the caller's access level attached; responses come out
    routed by request id to the HTTP request waiting for them, everything else
    (server notifications, legacy-SSE traffic) to ``outbox`` for a stream.
    """

    def __init__(self, server: Server[Any, Any], *, route_responses: bool) -> None:
        self.id = secrets.token_hex(16)
        self.protocol_version: str | None = None
        self.last_used = time.monotonic()
        self.streams = 0  # open GET/SSE streams; a session with one never idles out
        # Digest of the API key that opened the session: only that key may use it.
        self.owner: str | None = None
        #: The level the client asked for with ``logging/setLevel`` (None: no log messages).
        self.log_level: str | None = None
        self.outbox: asyncio.Queue[Outgoing] = asyncio.Queue(maxsize=256)
        self.closed = asyncio.Event()
        self._route = route_responses
        self._waiters: dict[RequestId, asyncio.Queue[Any]] = {}
        self._server = server
        to_server: tuple[
            MemoryObjectSendStream[SessionMessage | Exception],
            MemoryObjectReceiveStream[SessionMessage | Exception],
        ] = anyio.create_memory_object_stream(64)
        from_server: tuple[
            MemoryObjectSendStream[SessionMessage],
            MemoryObjectReceiveStream[SessionMessage],
        ] = anyio.create_memory_object_stream(64)
        self._in_send, self._in_recv = to_server
        self._out_send, self._out_recv = from_server
        self._task = asyncio.create_task(self._run(), name=f"mcp-session-{self.id[:8]}")

    async def _run(self) -> None:
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._pump)
                await self._server.run(
                    self._in_recv, self._out_send, initialization_options(self._server)
                )
                tg.cancel_scope.cancel()
        except Exception:
            _LOGGER.exception("MCP session %s ended with an error", self.id[:8])
        finally:
            self._finish()

    async def _pump(self) -> None:
        async for item in self._out_recv:
            root = item.message.root
            if isinstance(root, types.JSONRPCResponse) and self.protocol_version is None:
                version = root.result.get("protocolVersion")  # the initialize answer
                if isinstance(version, str):
                    self.protocol_version = version
            target: RequestId | None = None
            if self._route:
                if isinstance(root, types.JSONRPCResponse | types.JSONRPCError):
                    target = root.id
                elif isinstance(item.metadata, ServerMessageMetadata):
                    target = item.metadata.related_request_id
            waiter = self._waiters.get(target) if target is not None else None
            if waiter is not None:
                waiter.put_nowait(item.message)
            elif self._route:
                with contextlib.suppress(asyncio.QueueFull):
                    self.outbox.put_nowait(item.message)  # nobody listening: drop
            else:
                await self.outbox.put(item.message)

    def _finish(self) -> None:
        self.closed.set()
        for waiter in self._waiters.values():
            waiter.put_nowait(_CLOSED)
        self._waiters.clear()

    def touch(self) -> None:
        """Mark the session as used now."""
        self.last_used = time.monotonic()

    async def send(self, message: types.JSONRPCMessage, level: str) -> None:
        """Hand one client message to the server, with the caller's access level."""
        self.touch()
        root = message.root
        if isinstance(root, types.JSONRPCRequest) and root.method == "logging/setLevel":
            asked = (root.params or {}).get("level")
            if isinstance(asked, str):
                self.log_level = asked
        await self._in_send.send(
            SessionMessage(message, metadata=ServerMessageMetadata(request_context=level))
        )

    def expect(self, request_id: RequestId, queue: asyncio.Queue[Any]) -> bool:
        """Route a request's response (and related messages) to ``queue``.

        False when that id is already in flight or the session is over.
        """
        if request_id in self._waiters or self.closed.is_set():
            return False
        self._waiters[request_id] = queue
        return True

    def forget(self, request_id: RequestId) -> None:
        """Stop routing a request's messages (its HTTP request is over)."""
        self._waiters.pop(request_id, None)

    async def cancel_request(self, request_id: RequestId, reason: str) -> None:
        """Tell the server a client gave up on a request, so the tool stops."""
        self.forget(request_id)
        if self.closed.is_set():
            return
        note = types.JSONRPCNotification(
            jsonrpc="2.0",
            method="notifications/cancelled",
            params={"requestId": request_id, "reason": reason},
        )
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._in_send.send_nowait(SessionMessage(types.JSONRPCMessage(note)))

    @staticmethod
    def is_closed_marker(item: object) -> bool:
        """Whether a waiter item says the session ended."""
        return item is _CLOSED

    async def close(self) -> None:
        """End the session and its server task."""
        if not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(self._task), 5)
        self._finish()


class SessionStore:
    """Live sessions by id, bounded in number and idle time."""

    def __init__(
        self,
        server: Server[Any, Any],
        *,
        limit: int = 512,
        idle: float = 3600,
    ) -> None:
        self.server = server
        self.limit = limit
        self.idle = idle
        self._sessions: OrderedDict[str, McpSession] = OrderedDict()
        self._sweeper: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self._sessions)

    async def create(self, *, route_responses: bool, owner: str | None = None) -> McpSession:
        """A new session; evicts the longest-idle stream-less one when full.

        The count check, the eviction and the insert happen without an await in
        between, so a burst of concurrent initializes cannot overshoot the cap;
        the evicted session is closed afterwards.
        """
        victim: McpSession | None = None
        if len(self._sessions) >= self.limit:
            victim = next((s for s in self._sessions.values() if s.streams == 0), None)
            if victim is None:
                raise Unavailable(f"too many open MCP sessions ({self.limit}); close one and retry")
            del self._sessions[victim.id]
        session = McpSession(self.server, route_responses=route_responses)
        session.owner = owner
        self._sessions[session.id] = session
        if victim is not None:
            await victim.close()
        _LOGGER.debug(
            "MCP session %s opened (%s); %d open",
            session.id[:8],
            "streamable" if route_responses else "sse",
            len(self._sessions),
        )
        return session

    def get(self, session_id: str, owner: str | None = None) -> McpSession | None:
        """A live session of this caller, refreshed as most recently used.

        A session presented with another key than the one that opened it does
        not exist for that caller (MCP's session-hijacking guidance).
        """
        session = self._sessions.get(session_id)
        if session is None or session.closed.is_set() or session.owner != owner:
            return None
        self._sessions.move_to_end(session_id)
        session.touch()
        return session

    async def remove(self, session_id: str) -> bool:
        """Close and forget a session; False if it did not exist."""
        session = self._sessions.pop(session_id, None)
        if session is None:
            return False
        await session.close()
        _LOGGER.debug("MCP session %s closed; %d open", session_id[:8], len(self._sessions))
        return True

    def start(self) -> None:
        """Begin sweeping idle sessions."""
        if self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep(), name="mcp-session-sweeper")

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(min(60.0, self.idle / 2))
            now = time.monotonic()
            stale = [
                s.id
                for s in self._sessions.values()
                if s.closed.is_set() or (s.streams == 0 and now - s.last_used > self.idle)
            ]
            for session_id in stale:
                await self.remove(session_id)

    async def close_all(self) -> None:
        """Close every session (server shutdown)."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None
        for session_id in list(self._sessions):
            await self.remove(session_id)
