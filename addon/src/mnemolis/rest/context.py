"""Context packs (bounded, cited evidence) and source bundles (full cited files)."""

from __future__ import annotations

from aiohttp import web

from ..knowledge.requests import ContextPackRequest, SourceBundleRequest
from ..knowledge.store import store_of
from . import keys
from .registry import Access, RouteTable, json_response, read_body

routes = RouteTable("context")


@routes.route(
    "POST",
    "/api/context-pack",
    access=Access.READ,
    summary="Best evidence across memories and databases, cut to budget_chars, with citations",
    body=ContextPackRequest,
)
async def context_pack(request: web.Request) -> web.Response:
    """``{"query", "budget_chars", "used_chars", "pieces": [...], "truncated"}``."""
    body = await read_body(request, ContextPackRequest)
    store = store_of(request.app[keys.CORE].services.knowledge)
    return json_response(await store.context_pack(body.query, body.budget_chars))


@routes.route(
    "POST",
    "/api/source-bundle",
    access=Access.WRITE,
    summary="Full text of cited local files (inside registered databases only; full key)",
    body=SourceBundleRequest,
)
async def source_bundle(request: web.Request) -> web.Response:
    """``{"files": [{"path", "db", "chars", "truncated", "text"}]}``."""
    body = await read_body(request, SourceBundleRequest)
    store = store_of(request.app[keys.CORE].services.knowledge)
    return json_response(await store.source_bundle(body.sources))
