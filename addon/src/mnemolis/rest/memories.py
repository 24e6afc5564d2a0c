"""Memories over HTTP (the MemorySmith contract): CRUD and search."""

from __future__ import annotations

from aiohttp import web

from ..errors import InvalidArgument
from ..knowledge.requests import MemoryCreate, MemoryPatch, MemorySearch
from ..knowledge.store import KnowledgeStore, store_of
from . import keys
from .registry import Access, RouteTable, json_response, read_body

routes = RouteTable("memories")


def _store(request: web.Request) -> KnowledgeStore:
    return store_of(request.app[keys.CORE].services.knowledge)


def _int_param(request: web.Request, name: str, default: int, lo: int, hi: int) -> int:
    raw = request.query.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise InvalidArgument(f"{name} must be a whole number, not {raw!r}") from None
    if not lo <= value <= hi:
        raise InvalidArgument(f"{name} must be between {lo} and {hi}")
    return value


@routes.route(
    "GET",
    "/api/memories",
    access=Access.READ,
    summary="Memories, newest first, filtered by tags and status",
    query={
        "tags": "Comma-separated; any-match, case-insensitive, exact",
        "status": "Comma-separated statuses (Unconsolidated, Working, Core, Deprecated)",
        "limit": "1..500 (default 50)",
        "offset": "Skip this many (default 0)",
    },
)
async def list_memories(request: web.Request) -> web.Response:
    """One page of memories and the total matching the filters."""
    limit = _int_param(request, "limit", 50, 1, 500)
    offset = _int_param(request, "offset", 0, 0, 10_000_000)
    found, total = await _store(request).list_memories(
        tags=request.query.get("tags"),
        status=request.query.get("status"),
        limit=limit,
        offset=offset,
    )
    return json_response(
        {"memories": [m.to_dict() for m in found], "total": total, "limit": limit, "offset": offset}
    )


@routes.route(
    "POST",
    "/api/memories",
    access=Access.WRITE,
    summary="Remember something (durable once acknowledged)",
    body=MemoryCreate,
)
async def create(request: web.Request) -> web.Response:
    """201 with the stored memory."""
    body = await read_body(request, MemoryCreate)
    memory = await _store(request).remember(body.content, body.tags, body.status)
    return json_response(memory.to_dict(), status=201)


@routes.route(
    "POST",
    "/api/memories/search",
    access=Access.READ,
    summary="Search memories: plain text (no query language), tags, status, mode, format",
    body=MemorySearch,
)
async def search(request: web.Request) -> web.StreamResponse:
    """markdown → text/markdown; json → {"results", "truncated"}; envelope → the v1 envelope."""
    body = await read_body(request, MemorySearch)
    fmt, text, env = await _store(request).recall_formatted(
        body.query,
        tags=body.tags,
        status=body.status,
        mode=body.mode,
        limit=body.limit,
        fmt=body.format,
    )
    if fmt == "envelope":
        return json_response(env)
    if fmt == "json":
        return json_response({"results": env["results"], "truncated": env["truncated"]})
    return web.Response(text=text, content_type="text/markdown", charset="utf-8")


@routes.route("GET", "/api/memories/{id}", access=Access.READ, summary="One memory")
async def get_memory(request: web.Request) -> web.Response:
    """The memory or 404."""
    memory = await _store(request).get_memory(request.match_info["id"])
    return json_response(memory.to_dict())


@routes.route(
    "PATCH",
    "/api/memories/{id}",
    access=Access.WRITE,
    summary="Change a memory's content, tags or status",
    body=MemoryPatch,
)
async def patch_memory(request: web.Request) -> web.Response:
    """The updated memory (updated_at moves)."""
    body = await read_body(request, MemoryPatch)
    if body.content is None and body.tags is None and body.status is None:
        raise InvalidArgument("send at least one of content, tags, status")
    memory = await _store(request).update_memory(
        request.match_info["id"], content=body.content, tags=body.tags, status=body.status
    )
    return json_response(memory.to_dict())


@routes.route("DELETE", "/api/memories/{id}", access=Access.WRITE, summary="Delete a memory")
async def delete_memory(request: web.Request) -> web.Response:
    """``{"deleted": id}`` or 404."""
    mid = request.match_info["id"]
    await _store(request).delete_memory(mid)
    return json_response({"deleted": mid})
