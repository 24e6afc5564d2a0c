"""The aiohttp application: middlewares, route registration and lifecycle."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from aiohttp import web

from .core import Mnemolis
from .discovery import start_discovery
from .errors import Forbidden, MnemolisError, PayloadTooLarge, RateLimited
from .mcp.http import mcp_extension
from .openapi import build_openapi
from .querylog import surface_middleware
from .ratelimit import LIMITER, RateLimiter, rate_limit_middleware
from .rest import ROUTE_TABLES, Access, Endpoint, RouteTable, keys
from .rest.metrics import metrics_middleware
from .rest.registry import json_response
from .rest.ui import ingress_middleware
from .security import AccessPolicy
from .settings import Settings

_LOGGER = logging.getLogger(__name__)


_STATUS_CODES = {
    400: "invalid_argument",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "invalid_argument",
    413: "payload_too_large",
    429: "rate_limited",
    503: "unavailable",
}

# Extra route tables (MCP, UI, …) can be appended by modules that build on the app.
AppExtension = Callable[[web.Application, Mnemolis], list[RouteTable]]
EXTENSIONS: list[AppExtension] = [mcp_extension]


def error_response(code: str, message: str, status: int, **headers: str) -> web.Response:
    """The SPEC §4 error envelope."""
    resp = json_response({"error": {"code": code, "message": message}}, status=status)
    resp.headers.update(headers)
    return resp


def _endpoint_for(request: web.Request) -> Endpoint | None:
    info = request.match_info
    if info.http_exception is not None:
        return None
    resource = info.route.resource
    canonical = resource.canonical if resource is not None else ""
    table: dict[tuple[str, str], Endpoint] = request.app[keys.ENDPOINTS]
    method = "GET" if request.method == "HEAD" else request.method
    return table.get((method, canonical)) or table.get(("*", canonical))


@web.middleware
async def error_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    """Turn every failure into the error envelope; never leak a stack trace."""
    try:
        resp: web.StreamResponse = await handler(request)
        return resp
    except MnemolisError as err:
        headers = {"Retry-After": str(err.retry_after)} if isinstance(err, RateLimited) else {}
        return error_response(err.code, err.message, err.status, **headers)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        code = _STATUS_CODES.get(
            exc.status, "internal" if exc.status >= 500 else "invalid_argument"
        )
        message = exc.text if exc.text and not exc.text.startswith(f"{exc.status}:") else exc.reason
        if exc.status == 404:
            message = f"no route for {request.method} {request.path}"
        elif exc.status == 405:
            allowed = exc.headers.get("Allow", "")
            message = f"method {request.method} is not allowed on {request.path}; use {allowed}"
        elif exc.status == 413:
            limit = request.app[keys.SETTINGS].limits.max_body_bytes
            message = f"request body is larger than the {limit}-byte limit"
        headers = {k: v for k, v in exc.headers.items() if k in ("Allow", "Retry-After")}
        return error_response(code, message, exc.status, **headers)
    except (ConnectionResetError, web.HTTPClientError):
        raise
    except Exception:
        _LOGGER.exception("unhandled error on %s %s", request.method, request.path)
        return error_response("internal", "internal error; the server logged the details", 500)


@web.middleware
async def security_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    """Host, Origin and API-key checks for every route, by its access level."""
    policy: AccessPolicy = request.app[keys.POLICY]
    if request.get("ingress_trusted"):
        # Came through HA ingress via the Supervisor: HA authenticated the user.
        request["access_level"] = "write"
    else:
        policy.check_host(request.headers.get("Host"))
        policy.check_origin(request.headers.get("Origin"), request.headers.get("Host"))
        endpoint = _endpoint_for(request)
        access = endpoint.access if endpoint is not None else Access.READ
        request["access_level"] = policy.require(request.headers, access.value)
    limit = request.app[keys.SETTINGS].limits.max_body_bytes
    if request.content_length is not None and request.content_length > limit:
        raise PayloadTooLarge(f"request body is larger than the {limit}-byte limit")
    resp: web.StreamResponse = await handler(request)
    return resp


def require_write(request: web.Request) -> None:
    """For handlers whose access depends on arguments (e.g. MCP write tools)."""
    if request.get("access_level") not in ("write",):
        raise Forbidden("this action needs the full API key; the read key only reads")


def create_app(settings: Settings, core: Mnemolis | None = None) -> web.Application:
    """Build the application; the core starts and stops with it."""
    core = core or Mnemolis(settings)
    app = web.Application(
        middlewares=[
            metrics_middleware,
            error_middleware,
            surface_middleware,
            ingress_middleware,
            security_middleware,
            rate_limit_middleware,
        ],
        client_max_size=settings.limits.max_body_bytes,
    )
    app[keys.CORE] = core
    app[keys.SETTINGS] = settings
    app[keys.POLICY] = AccessPolicy(settings)
    app[LIMITER] = RateLimiter.from_settings(settings)
    tables = list(ROUTE_TABLES)
    for extension in EXTENSIONS:
        tables.extend(extension(app, core))
    endpoints: list[Endpoint] = [ep for table in tables for ep in table.endpoints]
    openapi_table = RouteTable("meta")

    @openapi_table.route("GET", "/openapi.json", access=Access.READ, summary="This document")
    async def openapi(request: web.Request) -> web.Response:
        return json_response(request.app[keys.OPENAPI])

    endpoints.extend(openapi_table.endpoints)
    for ep in endpoints:
        app.router.add_route(ep.method, ep.path, ep.handler)
    app[keys.ENDPOINTS] = {(ep.method, ep.path): ep for ep in endpoints}
    app[keys.ENDPOINT_LIST] = endpoints
    app[keys.OPENAPI] = build_openapi(endpoints)

    async def lifecycle(app: web.Application) -> Any:
        await core.start()
        # Only the serving process announces itself to the Supervisor (add-on only).
        start_discovery(core)
        yield
        await core.stop()

    app.cleanup_ctx.append(lifecycle)
    return app
