"""Route table with access levels and OpenAPI metadata in one place."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import orjson
from aiohttp import web
from pydantic import BaseModel

from ..errors import InvalidArgument, PayloadTooLarge, RequestTimeout
from ..jsontext import check_json_text
from ..requestmodels import limits_context, parse_request
from . import keys

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Access(StrEnum):
    """Who may call a route: anyone, a read key, or the full key."""

    PUBLIC = "public"
    READ = "read"
    WRITE = "write"


@dataclass(slots=True)
class Endpoint:
    """One HTTP route: method, path, handler, access level and its documentation."""

    method: str
    path: str
    handler: Handler
    access: Access
    summary: str
    tag: str
    body: type[BaseModel] | None = None
    query: dict[str, str] = field(default_factory=dict)
    response: dict[str, Any] | None = None
    openapi: bool = True
    content_type: str = "application/json"


class RouteTable:
    """Collects a module's endpoints; the app factory registers them all."""

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.endpoints: list[Endpoint] = []

    def route(
        self,
        method: str,
        path: str,
        *,
        access: Access,
        summary: str,
        body: type[BaseModel] | None = None,
        query: dict[str, str] | None = None,
        response: dict[str, Any] | None = None,
        openapi: bool = True,
        content_type: str = "application/json",
    ) -> Callable[[Handler], Handler]:
        """Decorator registering ``handler`` for ``method path``."""

        def decorator(handler: Handler) -> Handler:
            self.endpoints.append(
                Endpoint(
                    method=method.upper(),
                    path=path,
                    handler=handler,
                    access=access,
                    summary=summary,
                    tag=self.tag,
                    body=body,
                    query=query or {},
                    response=response,
                    openapi=openapi,
                    content_type=content_type,
                )
            )
            return handler

        return decorator


def json_response(data: Any, status: int = 200) -> web.Response:
    """UTF-8 JSON without ASCII escaping, as the API promises (orjson: a fifth of the cost)."""
    try:
        body = orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # what orjson refuses (integers beyond 64 bits) the stdlib still writes
        body = json.dumps(data, ensure_ascii=False).encode()
    return web.Response(body=body, status=status, content_type="application/json", charset="utf-8")


async def read_bytes(request: web.Request) -> bytes:
    """The whole body within ``limits``: over max_body_bytes a 413; not all there within
    body_timeout (a Content-Length larger than what is sent) a 408, never a held line."""
    limits = request.app[keys.SETTINGS].limits
    limit = limits.max_body_bytes
    if request.content_length is not None and request.content_length > limit:
        raise PayloadTooLarge(f"request body is larger than the {limit}-byte limit")
    try:
        async with asyncio.timeout(limits.body_timeout):
            return await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise PayloadTooLarge(f"request body is larger than the {limit}-byte limit") from None
    except TimeoutError:
        announced = request.content_length
        what = f"the {announced} bytes announced" if announced is not None else "the body"
        raise RequestTimeout(
            f"{what} did not arrive within {limits.body_timeout:g} s (limits.body_timeout); "
            "send a Content-Length equal to the body, or the whole body sooner"
        ) from None


async def read_json(request: web.Request) -> Any:
    """Decode the body as JSON or raise a clear 400/408/413."""
    raw = await read_bytes(request)
    if not raw.strip():
        raise InvalidArgument("request body is empty; send a JSON object")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgument("request body is not valid UTF-8") from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise InvalidArgument("request body is nested too deeply") from None
    except json.JSONDecodeError as err:
        raise InvalidArgument(
            f"malformed JSON: {err.msg} at line {err.lineno} column {err.colno}"
        ) from None
    except ValueError as err:  # e.g. an integer longer than Python's 4300-digit limit
        raise InvalidArgument(f"malformed JSON: {err}") from None
    check_json_text(data)
    return data


async def read_body[M: BaseModel](request: web.Request, model: type[M]) -> M:
    """Decode and validate the body against a request model."""
    context = limits_context(request.app[keys.SETTINGS])
    return parse_request(model, await read_json(request), context)
