"""The aiohttp application: middlewares, route registration and lifecycle."""

from __future__ import annotations

import errno
import logging
import sqlite3
from collections.abc import Callable
from typing import Any

from aiohttp import web

from .core import Mnemolis
from .discovery import start_discovery
from .errors import MnemolisError, PayloadTooLarge, RateLimited, RequestTimeout, Unauthorized
from .jsontext import check_json_text
from .mcp.gateway import mcp_extension
from .openapi import build_openapi
from .querylog import surface_middleware
from .ratelimit import (
    AUTH_GUARD,
    KEY_VERIFIED,
    LIMITER,
    AuthGuard,
    RateLimiter,
    rate_limit_middleware,
)
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
    408: "request_timeout",
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


def www_authenticate(message: str) -> str:
    """RFC 6750 challenge: clients (mcp-remote, SDKs) show the description to the user.

    No ``resource_metadata``: this server takes an API key, not OAuth, and the
    well-known OAuth documents answer 404 so clients stop looking for them.
    """
    description = message.replace("\\", "").replace('"', "'")
    return f'Bearer realm="mnemolis", error="invalid_token", error_description="{description}"'


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
        if isinstance(err, Unauthorized):
            headers["WWW-Authenticate"] = www_authenticate(err.message)
        resp = error_response(err.code, err.message, err.status, **headers)
        if isinstance(err, RequestTimeout):
            resp.force_close()  # the rest of the announced body never comes: no keep-alive
        return resp
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
    except Exception as exc:
        if (reason := storage_full(exc)) is not None:
            data_dir = request.app[keys.SETTINGS].data_dir
            _LOGGER.error("%s %s: the disk is full (%s)", request.method, request.path, reason)
            message = (
                f"the disk holding the data folder {str(data_dir)!r} is full ({reason}); "
                "nothing was saved: free some space and retry"
            )
            return error_response("unavailable", message, 507, **{"Retry-After": "60"})
        _LOGGER.exception("unhandled error on %s %s", request.method, request.path)
        return error_response("internal", "internal error; the server logged the details", 500)


_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


def storage_full(exc: BaseException) -> str | None:
    """Why a failure is a full disk (SQLite's SQLITE_FULL or ENOSPC/EDQUOT), else None."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in _FULL_ERRNOS:
            return current.strerror or "no space left on device"
        if isinstance(current, sqlite3.Error) and "full" in str(current).lower():
            return str(current)
        current = current.__cause__ or current.__context__
    return None


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
        # No route here (404/405, e.g. OAuth discovery under /.well-known/): say so
        # to anyone; there is nothing behind it to protect.
        access = endpoint.access if endpoint is not None else Access.PUBLIC
        guard = request.app[AUTH_GUARD]
        if access is not Access.PUBLIC and policy.auth_enabled:
            guard.check(request.remote)  # before the key is looked at
            try:
                request["access_level"] = policy.require(request.headers, access.value)
            except Unauthorized:
                guard.failed(request.remote)
                raise
            request[KEY_VERIFIED] = True
        else:
            request["access_level"] = policy.require(request.headers, access.value)
    limit = request.app[keys.SETTINGS].limits.max_body_bytes
    if request.content_length is not None and request.content_length > limit:
        raise PayloadTooLarge(f"request body is larger than the {limit}-byte limit")
    if request.query_string:
        # Query parameters (?q=, ?tags=, ?query=) follow the same text rules as bodies.
        check_json_text(dict(request.query), "")
    resp: web.StreamResponse = await handler(request)
    return resp


# The settings that switch on each source that is off (what the start-up log suggests).
SOURCE_SETTINGS = {
    "ha": "ha.url and ha.token (automatic in the add-on)",
    "forecast": "forecast.latitude and forecast.longitude, or Home Assistant",
    "news": "news.feeds, or news.freshrss_url/_user/_password",
    "web": "web.searxng_url",
    "kiwix": "kiwix.url",
    "uptime": "uptime.url and uptime.slug",
    "changes": "Home Assistant, uptime, news or the forecast",
    "rag": "a document database (POST /api/rag or `mnemolis rag add`)",
    "memory": "the memory store (see the knowledge readiness)",
}


def startup_summary(core: Mnemolis) -> list[str]:
    """A few lines on what this server will answer from, who may call it, and its model."""
    on = [name for name, source in core.sources.items() if source.configured]
    off = [name for name, source in core.sources.items() if not source.configured]
    lines = [f"sources on: {', '.join(on) or 'none'}"]
    if off:
        hints = "; ".join(f"{name}: {SOURCE_SETTINGS.get(name, 'see the docs')}" for name in off)
        lines.append(f"sources off (set to turn on): {hints}")
    settings = core.settings
    if settings.api_key or settings.read_api_key:
        levels = [k for k, v in (("full", settings.api_key), ("read", settings.read_api_key)) if v]
        lines.append(f"API key set ({' and '.join(levels)}): every route but /api/health needs one")
    else:
        lines.append(
            "no API key set: anyone who can reach the port may read and write "
            "(set api_key before listening beyond this machine)"
        )
    lines.append(f"model: {_model_state(core)}")
    return lines


def _model_state(core: Mnemolis) -> str:
    llm = core.services.llm
    if llm is None:
        return "none"
    if getattr(llm, "problem", ""):
        return f"unusable: {llm.problem}"
    backend = getattr(llm, "backend", None)
    if backend is None:
        return (
            getattr(llm, "note", "") or "no chat model configured"
        ) + " (answers are extractive)"
    base_url = getattr(backend, "base_url", None)
    if base_url:
        return f"remote {backend.model_id} at {base_url}"
    return f"{backend.model_id} ({getattr(backend, 'state', 'unknown')})"


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
    app[AUTH_GUARD] = AuthGuard.from_settings(settings)
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
        for line in startup_summary(core):
            _LOGGER.info("%s", line)
        # Only the serving process announces itself to the Supervisor (add-on only).
        start_discovery(core)
        yield
        await core.stop()

    app.cleanup_ctx.append(lifecycle)
    return app
