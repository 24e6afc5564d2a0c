"""The MCP routes at start; the MCP SDK behind them is loaded by the first MCP request.

Importing the SDK (``mcp.types`` runs the package's ``__init__``: client, server,
pydantic models of the whole protocol) costs about 1.4 s of CPU and 25 MiB, half of
a second start and a sixth of the idle memory, on a box where most hours no MCP
client is connected (issue 30). The routes, their access levels and the CORS
headers are here, light; ``http.py`` holds the handlers and is imported once, off
the event loop, when an MCP client first calls.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING

from aiohttp import web

from ..errors import Forbidden
from ..rest import keys
from ..rest.registry import Access, RouteTable

if TYPE_CHECKING:
    from ..core import Mnemolis
    from .session import SessionStore

SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"

# (method, path, access, summary, the handler's name in http.py)
ROUTES: tuple[tuple[str, str, Access, str, str], ...] = (
    ("POST", "/mcp", Access.READ, "MCP Streamable HTTP (messages)", "streamable_post"),
    ("GET", "/mcp", Access.READ, "MCP Streamable HTTP (server stream)", "streamable_get"),
    ("DELETE", "/mcp", Access.READ, "MCP Streamable HTTP (end session)", "streamable_delete"),
    ("OPTIONS", "/mcp", Access.PUBLIC, "MCP CORS preflight", "streamable_preflight"),
    ("GET", "/mcp/sse", Access.READ, "MCP HTTP+SSE stream", "sse_stream"),
    ("POST", "/mcp/messages/", Access.READ, "MCP HTTP+SSE messages", "sse_message"),
    ("POST", "/mcp/messages", Access.READ, "MCP HTTP+SSE messages", "sse_message"),
    ("POST", "/register", Access.PUBLIC, "No OAuth here", "no_oauth"),
    ("GET", "/authorize", Access.PUBLIC, "No OAuth here", "no_oauth"),
    ("POST", "/token", Access.PUBLIC, "No OAuth here", "no_oauth"),
)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass
class McpGate:
    """The MCP side of one app: nothing until the first MCP request, then the session
    store and the handlers' module."""

    core: Mnemolis
    store: SessionStore | None = None
    http: ModuleType | None = None
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def open(self) -> ModuleType:
        """Import the handlers (off the event loop) and start the session store, once."""
        if self.http is not None:
            return self.http
        async with self._lock:
            if self.http is None:
                http = await asyncio.to_thread(importlib.import_module, f"{__package__}.http")
                from .server import build_server  # imported with http, at no further cost
                from .session import SessionStore

                store = SessionStore(build_server(self.core))
                store.start()
                self.store = store
                self.http = http
        return self.http

    async def sessions(self) -> SessionStore:
        """The session store, opened if no MCP client has called yet."""
        await self.open()
        assert self.store is not None
        return self.store


MCP_GATE: web.AppKey[McpGate] = web.AppKey("mcp_gate", McpGate)

routes = RouteTable("mcp")


def _forward(name: str) -> Handler:
    async def handler(request: web.Request) -> web.StreamResponse:
        http = await request.app[MCP_GATE].open()
        real: Handler = getattr(http, name)
        return await real(request)

    handler.__name__ = name
    handler.__doc__ = f"``http.{name}``, once the MCP side is open."
    return handler


for _method, _path, _access, _summary, _name in ROUTES:
    routes.route(_method, _path, access=_access, summary=_summary, openapi=False)(_forward(_name))


def store_of(app: web.Application) -> SessionStore:
    """The open session store (the MCP handlers run only once it is open)."""
    store = app[MCP_GATE].store
    if store is None:
        raise RuntimeError("the MCP side is not open")
    return store


async def _cors_headers(request: web.Request, response: web.StreamResponse) -> None:
    """Let an allowed browser Origin read MCP responses and the session header."""
    origin = request.headers.get("Origin")
    if origin is None or not request.path.startswith("/mcp"):
        return
    try:
        request.app[keys.POLICY].check_origin(origin, request.headers.get("Host"))
    except Forbidden:
        return
    response.headers["Access-Control-Allow-Origin"] = origin
    response.headers["Access-Control-Expose-Headers"] = f"{SESSION_HEADER}, {VERSION_HEADER}"
    response.headers.add("Vary", "Origin")


def mcp_extension(app: web.Application, core: Mnemolis) -> list[RouteTable]:
    """The MCP routes of an app; its sessions are closed when the app stops."""
    gate = McpGate(core)
    app[MCP_GATE] = gate

    async def stopping(_app: web.Application) -> None:
        if gate.store is not None:
            await gate.store.close_all()

    app.on_response_prepare.append(_cors_headers)
    app.on_shutdown.append(stopping)
    return [routes]


__all__ = ["MCP_GATE", "McpGate", "mcp_extension", "routes", "store_of"]
