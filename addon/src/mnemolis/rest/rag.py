"""Document databases over HTTP: the Kura list, register, remove, reindex, search, status."""

from __future__ import annotations

from aiohttp import web

from ..knowledge.requests import RagRegister, RagSearchBody
from ..knowledge.store import KnowledgeStore, store_of
from . import keys
from .registry import Access, RouteTable, json_response, read_body

routes = RouteTable("rag")


def _store(request: web.Request) -> KnowledgeStore:
    return store_of(request.app[keys.CORE].services.knowledge)


@routes.route(
    "GET",
    "/api/list",
    access=Access.READ,
    summary='Databases in the Kura shape: {"loaded": [db], "registered": [{"db", "createAt"}]}',
)
async def list_databases(request: web.Request) -> web.Response:
    """Loaded and registered databases (exactly the Kura ``list`` shape)."""
    return json_response(_store(request).list_kura())


@routes.route(
    "GET",
    "/api/rag",
    access=Access.READ,
    summary="Every registered database with its indexing status",
)
async def all_status(request: web.Request) -> web.Response:
    """Files indexed, failures with reasons, last update, embedder, per database."""
    return json_response({"databases": await _store(request).all_status()})


@routes.route(
    "POST",
    "/api/rag",
    access=Access.WRITE,
    summary="Register a folder as a document database and start indexing it",
    body=RagRegister,
)
async def register(request: web.Request) -> web.Response:
    """201 with the new database's status; 400 for bad names or paths outside the roots."""
    body = await read_body(request, RagRegister)
    status = await _store(request).register(body.name, body.path)
    return json_response(status, status=201)


@routes.route("GET", "/api/rag/{db}", access=Access.READ, summary="One database's indexing status")
async def db_status(request: web.Request) -> web.Response:
    """Files indexed, failed files with reasons, chunks, last update, embedder."""
    return json_response(await _store(request).status(request.match_info["db"]))


@routes.route(
    "DELETE",
    "/api/rag/{db}",
    access=Access.WRITE,
    summary="Remove a database and its index (the folder itself is not touched)",
)
async def remove(request: web.Request) -> web.Response:
    """Forget the database; ``mnemolis-docs`` stays removed across restarts."""
    name = request.match_info["db"]
    await _store(request).remove(name)
    return json_response({"removed": name})


@routes.route(
    "POST",
    "/api/rag/{db}/reindex",
    access=Access.WRITE,
    summary="Re-read every file of a database (runs in the background; 202)",
)
async def reindex(request: web.Request) -> web.Response:
    """Start a full rebuild; poll ``GET /api/rag/{db}`` for progress."""
    status = await _store(request).reindex(request.match_info["db"], wait=False)
    return json_response({**status, "reindexing": True}, status=202)


@routes.route(
    "POST",
    "/api/rag/{db}/search",
    access=Access.READ,
    summary="search_rag over HTTP: same arguments, rules and result shape",
    body=RagSearchBody,
)
async def search(request: web.Request) -> web.Response:
    """``{"<mode>": [{"source", "matches": [{"chunk", "content"}]}]}`` or ``{}``."""
    body = await read_body(request, RagSearchBody)
    result = await _store(request).search_rag(
        request.match_info["db"], body.q, body.limit, body.mode
    )
    return json_response(result)
