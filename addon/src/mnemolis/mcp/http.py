"""MCP over HTTP on the app's port: Streamable HTTP at /mcp, legacy HTTP+SSE at /mcp/sse.

Both transports feed the same lowlevel server definition through
``McpSession``; the security middleware has already checked Host, Origin and
the API key (``gateway.py`` registers the routes with ``Access.READ``, and
imports this module on the first MCP request), and each
message carries the caller's level so write tools still need the full key.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from typing import TYPE_CHECKING, Any

import mcp.types as types
from aiohttp import web

from ..errors import NotFound
from ..rest import keys
from ..rest.registry import read_bytes
from ..security import presented_key
from .gateway import SESSION_HEADER, VERSION_HEADER, store_of
from .identity import PROTOCOL_VERSIONS
from .protocol import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    PARSE_ERROR,
    Decoded,
    Outgoing,
    RequestId,
    batch_refused,
    batching_allowed,
    decode,
    dump,
    error_code,
    parse_json,
    rpc_error,
)
from .session import McpSession

if TYPE_CHECKING:
    pass

KEEPALIVE_SECONDS = 15.0
SSE_HEADERS = {
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-cache, no-transform",
    "X-Accel-Buffering": "no",
}


# --- helpers -------------------------------------------------------------------


def _encode(item: Outgoing) -> str:
    return json.dumps(item) if isinstance(item, dict) else dump(item)


def _event(item: Outgoing) -> bytes:
    return f"event: message\ndata: {_encode(item)}\n\n".encode()


def _rpc(body: dict[str, Any], status: int, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(
        text=json.dumps(body), status=status, content_type="application/json", headers=headers
    )


def _accepts(request: web.Request) -> tuple[bool, bool]:
    """Whether the client takes JSON, and whether it takes an SSE stream."""
    accept = request.headers.get("Accept", "").lower()
    if not accept.strip() or "*/*" in accept:
        return True, True
    return (
        "application/json" in accept or "application/*" in accept,
        "text/event-stream" in accept,
    )


def _version_error(request: web.Request) -> web.Response | None:
    version = request.headers.get(VERSION_HEADER)
    if version is None or version in PROTOCOL_VERSIONS:
        return None
    return _rpc(
        rpc_error(
            None,
            INVALID_REQUEST,
            f"Bad Request: unsupported {VERSION_HEADER} {version!r}; "
            f"supported: {', '.join(PROTOCOL_VERSIONS)}",
        ),
        400,
    )


def _owner(request: web.Request) -> str | None:
    """Who a session belongs to: a digest of the presented API key (None without keys)."""
    if not request.app[keys.POLICY].auth_enabled:
        return None
    key = presented_key(request.headers) or ""
    return hashlib.sha256(key.encode()).hexdigest()


def _session_or_error(request: web.Request) -> McpSession | web.Response:
    session_id = request.headers.get(SESSION_HEADER)
    if not session_id:
        return _rpc(
            rpc_error(
                None,
                INVALID_REQUEST,
                f"Bad Request: missing {SESSION_HEADER} header; send initialize first",
            ),
            400,
        )
    session = store_of(request.app).get(session_id, _owner(request))
    if session is None:
        return _rpc(
            rpc_error(
                None, INVALID_REQUEST, "Session not found: it ended or expired; initialize again"
            ),
            404,
        )
    return session


def _closed(request: web.Request) -> bool:
    transport = request.transport
    return transport is None or transport.is_closing()


async def _pipe(request: web.Request, resp: web.StreamResponse, session: McpSession) -> None:
    """Copy a session's outbox to an SSE stream until either side goes away."""
    next_ping = time.monotonic() + KEEPALIVE_SECONDS
    try:
        while not session.closed.is_set() and not _closed(request):
            try:
                item = await asyncio.wait_for(session.outbox.get(), 1.0)
            except TimeoutError:
                if time.monotonic() >= next_ping:
                    await resp.write(b": keepalive\n\n")
                    next_ping = time.monotonic() + KEEPALIVE_SECONDS
                continue
            await resp.write(_event(item))
    except (ConnectionResetError, asyncio.CancelledError):
        pass


def _wants_stream(decoded: list[Decoded], session: McpSession) -> bool:
    """Whether the client waits for messages before the answer: progress it asked for,
    or the log messages of a tool call on a session that set a log level."""
    for d in decoded:
        root = d.message.root if d.message is not None else None
        if not isinstance(root, types.JSONRPCRequest):
            continue
        if root.method == "tools/call" and session.log_level is not None:
            return True
        meta = root.params.get("_meta") if isinstance(root.params, dict) else None
        if isinstance(meta, dict) and "progressToken" in meta:
            return True
    return False


# --- Streamable HTTP -----------------------------------------------------------


async def streamable_post(request: web.Request) -> web.StreamResponse:
    """One POST: JSON-RPC message(s) in, a JSON body or an SSE stream out (or 202)."""
    takes_json, takes_sse = _accepts(request)
    if not (takes_json or takes_sse):
        return _rpc(
            rpc_error(
                None,
                INVALID_REQUEST,
                "Not Acceptable: send Accept: application/json, text/event-stream",
            ),
            406,
        )
    if "Content-Type" in request.headers and request.content_type != "application/json":
        return _rpc(
            rpc_error(None, INVALID_REQUEST, "Unsupported Media Type: send application/json"),
            415,
        )
    if (bad_version := _version_error(request)) is not None:
        return bad_version
    try:
        payload = parse_json(await read_bytes(request))
    except ValueError as err:
        return _rpc(rpc_error(None, PARSE_ERROR, str(err)), 400)
    batch = isinstance(payload, list)
    items: list[Any] = payload if isinstance(payload, list) else [payload]
    if not items:
        return _rpc(rpc_error(None, INVALID_REQUEST, "Invalid Request: empty batch"), 400)
    decoded = [decode(item) for item in items]

    store = store_of(request.app)
    initializing = any(d.method == "initialize" for d in decoded)
    if initializing:
        if len(decoded) > 1:
            return _rpc(
                rpc_error(None, INVALID_REQUEST, "Invalid Request: send initialize on its own"),
                400,
            )
        session = await store.create(route_responses=True, owner=_owner(request))
    else:
        found = _session_or_error(request)
        if isinstance(found, web.Response):
            return found
        session = found
        if batch and not batching_allowed(session.protocol_version):
            return _rpc(batch_refused(str(session.protocol_version)), 400)

    level: str = request.get("access_level", "read")
    replies: list[Outgoing] = [d.error for d in decoded if d.error is not None]
    queue: asyncio.Queue[Any] = asyncio.Queue()
    pending: set[RequestId] = set()
    for d in decoded:
        if d.message is None:
            continue
        request_id = d.request_id
        if request_id is not None:
            if request_id in pending or not session.expect(request_id, queue):
                replies.append(
                    rpc_error(request_id, INVALID_REQUEST, "Invalid Request: id already in flight")
                )
                continue
            pending.add(request_id)
        await session.send(d.message, level)

    headers = {SESSION_HEADER: session.id}
    if not pending:
        if not replies:
            return web.Response(status=202, headers=headers)
        first = replies[0]
        bad = not batch and isinstance(first, dict) and error_code(first) == INVALID_REQUEST
        status = 400 if bad else 200
        return _json_reply(replies, batch, status, headers)

    if takes_sse and (not takes_json or _wants_stream(decoded, session)):
        resp = web.StreamResponse(headers={**SSE_HEADERS, **headers})
        await resp.prepare(request)
        try:
            for reply in replies:
                await resp.write(_event(reply))
            async for item in _collect(session, queue, pending, stream=True):
                await resp.write(_event(item))
        except ConnectionResetError:
            pass
        if initializing and session.protocol_version is None:
            await store.remove(session.id)  # initialize failed: no session to keep
        return resp

    replies.extend([item async for item in _collect(session, queue, pending, stream=False)])
    # The session records the version from initialize's answer; none means it failed.
    if initializing and session.protocol_version is None:
        await store.remove(session.id)
        headers = {}
    return _json_reply(replies, batch, 200, headers)


def _json_reply(
    replies: list[Outgoing], batch: bool, status: int, headers: dict[str, str]
) -> web.Response:
    text = "[" + ",".join(_encode(r) for r in replies) + "]" if batch else _encode(replies[0])
    return web.Response(text=text, status=status, content_type="application/json", headers=headers)


async def _collect(
    session: McpSession, queue: asyncio.Queue[Any], pending: set[RequestId], *, stream: bool
) -> Any:
    """Yield responses for ``pending`` (and, when streaming, their notifications)."""
    try:
        while pending:
            item = await queue.get()
            if session.is_closed_marker(item):
                for request_id in sorted(pending, key=str):
                    yield rpc_error(
                        request_id, INTERNAL_ERROR, "Internal error: the session was closed"
                    )
                pending.clear()
                return
            root = item.root
            if isinstance(root, types.JSONRPCResponse | types.JSONRPCError):
                pending.discard(root.id)
                session.forget(root.id)
                yield item
            elif stream:
                yield item
    finally:
        for request_id in pending:
            await session.cancel_request(request_id, "the HTTP request ended")


async def streamable_get(request: web.Request) -> web.StreamResponse:
    """The optional server-to-client SSE stream of a session."""
    if not _accepts(request)[1]:
        return _rpc(
            rpc_error(None, INVALID_REQUEST, "Not Acceptable: send Accept: text/event-stream"),
            406,
        )
    if (bad_version := _version_error(request)) is not None:
        return bad_version
    found = _session_or_error(request)
    if isinstance(found, web.Response):
        return found
    session = found
    if session.streams:
        return _rpc(
            rpc_error(None, INVALID_REQUEST, "Conflict: this session already has a GET stream"),
            409,
        )
    session.streams += 1
    try:
        resp = web.StreamResponse(headers={**SSE_HEADERS, SESSION_HEADER: session.id})
        await resp.prepare(request)
        await _pipe(request, resp, session)
    finally:
        session.streams -= 1
        session.touch()
    return resp


async def streamable_delete(request: web.Request) -> web.StreamResponse:
    """End a session on the client's request."""
    if (bad_version := _version_error(request)) is not None:
        return bad_version
    found = _session_or_error(request)
    if isinstance(found, web.Response):
        return found
    await store_of(request.app).remove(found.id)
    return web.Response(status=204)


# --- browsers (CORS) --------------------------------------------------------------

CORS_ALLOW_HEADERS = (
    "Authorization, X-API-Key, Content-Type, Accept, Mcp-Session-Id, "
    "MCP-Protocol-Version, Last-Event-ID"
)


async def streamable_preflight(_request: web.Request) -> web.Response:
    """Preflight for browser clients; the middleware has already vetted the Origin."""
    return web.Response(
        status=204,
        headers={
            "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
            "Access-Control-Allow-Headers": CORS_ALLOW_HEADERS,
            "Access-Control-Max-Age": "600",
        },
    )


# --- legacy HTTP+SSE (protocol 2024-11-05) --------------------------------------


async def sse_stream(request: web.Request) -> web.StreamResponse:
    """Open a legacy session: an ``endpoint`` event, then every server message."""
    store = store_of(request.app)
    session = await store.create(route_responses=False, owner=_owner(request))
    session.streams += 1
    try:
        resp = web.StreamResponse(headers=SSE_HEADERS)
        await resp.prepare(request)
        # Relative to /mcp/sse, so it resolves on the same origin (and under proxies).
        await resp.write(f"event: endpoint\ndata: messages/?session_id={session.id}\n\n".encode())
        await _pipe(request, resp, session)
    except ConnectionResetError:
        pass
    finally:
        session.streams -= 1
        await store.remove(session.id)
    return resp


async def sse_message(request: web.Request) -> web.Response:
    """A client message for a legacy session; the answer arrives on its stream."""
    session_id = request.query.get("session_id")
    if not session_id:
        return _rpc(rpc_error(None, INVALID_REQUEST, "Bad Request: session_id is required"), 400)
    session = store_of(request.app).get(session_id, _owner(request))
    if session is None:
        return _rpc(
            rpc_error(None, INVALID_REQUEST, "Session not found: reconnect to /mcp/sse"), 404
        )
    try:
        payload = parse_json(await read_bytes(request))
    except ValueError as err:
        return _rpc(rpc_error(None, PARSE_ERROR, str(err)), 400)
    items: list[Any] = payload if isinstance(payload, list) else [payload]
    level: str = request.get("access_level", "read")
    if isinstance(payload, list) and not batching_allowed(session.protocol_version):
        await session.outbox.put(batch_refused(str(session.protocol_version)))
        return web.Response(status=202, text="Accepted")
    for d in (decode(item) for item in items):
        if d.error is not None:
            await session.outbox.put(d.error)
        elif d.message is not None:
            await session.send(d.message, level)
    return web.Response(status=202, text="Accepted")


# --- OAuth clients (mcp-remote, Claude Desktop) ---------------------------------

# Without OAuth metadata, clients fall back to /register, /authorize and /token at
# the server's root and print what they get. Say there what to do instead.
NO_OAUTH = (
    "this Mnemolis server takes an API key, not OAuth, and the request had no key or a "
    "wrong one: send it as a header, e.g. mcp-remote URL --header "
    "'Authorization: Bearer YOUR_API_KEY' (see Mnemolis' docs, page mcp)"
)


async def no_oauth(_request: web.Request) -> web.Response:
    """404 with the sentence an OAuth client prints to its user."""
    raise NotFound(NO_OAUTH)


# --- wiring ---------------------------------------------------------------------


__all__ = ["SESSION_HEADER", "VERSION_HEADER"]
