"""What an MCP client needs to connect: the paths and, for the full key, the keys.

The add-on makes its own API key on first start; a user finds it in the add-on
log or here, in the web UI (behind ingress Home Assistant has signed them in).
Only a caller that already holds full access sees the keys.
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from ..settings import GENERATED_KEY_FILE, Settings
from . import keys
from .registry import Access, RouteTable, json_response

routes = RouteTable("connection")


def key_origin(settings: Settings) -> str:
    """Where the full key comes from: ``generated`` (the add-on's own), ``option`` or ``none``."""
    key = settings.api_key.get_secret_value() if settings.api_key else ""
    if not key:
        return "none"
    if settings.addon:
        try:
            kept = (Path(settings.data_dir) / GENERATED_KEY_FILE).read_text(encoding="utf-8")
        except OSError:
            kept = ""
        if kept.strip() == key:
            return "generated"
    return "option"


@routes.route(
    "GET",
    "/api/connection",
    access=Access.WRITE,
    summary="MCP endpoints and the API keys, for connecting a client (full key or ingress)",
)
async def connection(request: web.Request) -> web.Response:
    """The port, MCP paths and keys a client config needs."""
    settings = request.app[keys.SETTINGS]
    origin = key_origin(settings)
    return json_response(
        {
            "port": settings.port,
            "mcp_path": "/mcp",
            "sse_path": "/mcp/sse",
            "api_key": settings.api_key.get_secret_value()
            if origin != "none" and settings.api_key
            else None,
            "read_api_key": (
                settings.read_api_key.get_secret_value() if settings.read_api_key else None
            )
            or None,
            "key_origin": origin,
            "key_file": str(Path(settings.data_dir) / GENERATED_KEY_FILE)
            if origin == "generated"
            else None,
        }
    )
