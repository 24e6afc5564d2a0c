"""Source health and server statistics."""

from __future__ import annotations

from aiohttp import web

from . import keys
from .registry import Access, RouteTable, json_response

routes = RouteTable("sources")


@routes.route("GET", "/api/sources", access=Access.READ, summary="Every source and its state")
async def list_sources(request: web.Request) -> web.Response:
    """Name, enabled, configured, healthy and last error per source."""
    return json_response({"sources": await request.app[keys.CORE].list_sources()})


@routes.route(
    "GET", "/api/stats", access=Access.READ, summary="Counters and health for the HA integration"
)
async def stats(request: web.Request) -> web.Response:
    """Instance id, version, query counts, latency, last source, per-source health.

    Also the request limits a client should follow (the HA integration sizes its
    query cap and search timeout from them instead of hard-coding them).
    """
    body = await request.app[keys.CORE].get_stats()
    settings = request.app[keys.SETTINGS]
    body["limits"] = {
        "max_query_chars": settings.limits.max_query_chars,
        "search_deadline_s": settings.routing.deadline,
    }
    return json_response(body)
