"""Liveness and readiness."""

from __future__ import annotations

from aiohttp import web

from . import keys
from .registry import Access, RouteTable, json_response

routes = RouteTable("health")


@routes.route("GET", "/api/health", access=Access.PUBLIC, summary="Liveness (no auth)")
async def health(request: web.Request) -> web.Response:
    """Answer as long as the process serves requests."""
    core = request.app[keys.CORE]
    return json_response({"status": "ok", "version": core.version})


@routes.route(
    "GET",
    "/api/health/readiness",
    access=Access.READ,
    summary="Per-component readiness; 503 when not ready",
)
async def readiness(request: web.Request) -> web.Response:
    """Report store, sources and model state; 503 when a component is down."""
    ready, body = await request.app[keys.CORE].readiness()
    return json_response(body, status=200 if ready else 503)
