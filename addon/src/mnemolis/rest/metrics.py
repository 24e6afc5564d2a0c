"""``GET /metrics``: Prometheus text format."""

from __future__ import annotations

import logging
import time
from typing import Any

from aiohttp import web

from ..metrics import CONTENT_TYPE
from . import keys
from .registry import Access, RouteTable

_LOGGER = logging.getLogger(__name__)
UNMATCHED_ROUTE = "(unmatched)"

routes = RouteTable("metrics")


@routes.route(
    "GET",
    "/metrics",
    access=Access.READ,
    summary="Prometheus metrics: routes, sources, MCP tools, cache, indexes, model, memory",
    response={"type": "string", "description": "Prometheus text exposition format 0.0.4"},
    content_type="text/plain",
)
async def metrics(request: web.Request) -> web.Response:
    """Scrape target; use the read key as a bearer token when keys are set."""
    body = await request.app[keys.CORE].metrics.render()
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE})


def route_label(request: web.Request) -> str:
    """The route template a request matched (bounded), never its raw path."""
    info = request.match_info
    if info.http_exception is not None:
        return UNMATCHED_ROUTE
    resource = info.route.resource
    return resource.canonical if resource is not None else UNMATCHED_ROUTE


@web.middleware
async def metrics_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    """Time every request and count it by route template and final status."""
    started = time.perf_counter()
    status = 500
    try:
        resp: web.StreamResponse = await handler(request)
        status = resp.status
        return resp
    except web.HTTPException as exc:
        status = exc.status
        raise
    finally:
        try:
            request.app[keys.CORE].metrics.record_http(
                request.method, route_label(request), status, time.perf_counter() - started
            )
        except Exception:
            _LOGGER.debug("metrics: request not recorded", exc_info=True)
