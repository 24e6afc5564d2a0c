"""Routed questions: ``POST /search`` and ``GET /api/route``."""

from __future__ import annotations

from aiohttp import web

from ..errors import InvalidArgument
from ..requestmodels import SearchRequest, limits_context, parse_request
from . import keys
from .registry import Access, RouteTable, json_response, read_body

routes = RouteTable("search")
MAX_CONVERSATION_ID = 200  # as SearchRequest.conversation_id


@routes.route(
    "POST",
    "/search",
    access=Access.READ,
    summary="Ask one question; the router picks sources and answers with provenance",
    body=SearchRequest,
)
async def search(request: web.Request) -> web.Response:
    """Answer a question through the router."""
    req = await read_body(request, SearchRequest)
    result = await request.app[keys.CORE].search(req)
    return json_response(result.to_dict())


@routes.route(
    "GET",
    "/api/route",
    access=Access.READ,
    summary="The routing decision for a question, without running sources",
    query={
        "query": "The question to route",
        "conversation_id": "Route it as the next question of this conversation (follow-ups)",
        "language": "BCP 47 tag of the question's language (detected when absent)",
        "area": "HA area id or name where the question was heard",
    },
)
async def route(request: web.Request) -> web.Response:
    """Explain how a question would be routed (as a follow-up, with a conversation)."""
    query = request.query.get("query", "").strip()
    if not query:
        raise InvalidArgument("query parameter is required")
    conversation = request.query.get("conversation_id") or None
    if conversation is not None and len(conversation) > MAX_CONVERSATION_ID:
        raise InvalidArgument(f"conversation_id is longer than {MAX_CONVERSATION_ID} characters")
    core = request.app[keys.CORE]
    # The same rules as POST /search for the language tag and the area.
    asked = {k: request.query[k] for k in ("language", "area") if request.query.get(k)}
    req = parse_request(SearchRequest, {"query": query, **asked}, limits_context(core.settings))
    return json_response(await core.route_async(query, conversation, req.language, req.area))
