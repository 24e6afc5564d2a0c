"""The query log over HTTP: ``GET /api/queries`` and one entry's trace."""

from __future__ import annotations

from aiohttp import web

from ..errors import InvalidArgument
from ..querylog import MAX_PAGE, QueryFilter
from . import keys
from .registry import Access, RouteTable, json_response

routes = RouteTable("queries")

_FILTERS = {
    "limit": f"Entries per page, 1..{MAX_PAGE} (default 50)",
    "cursor": "next_cursor from the previous page",
    "source": "Only questions answered by this source (none = unanswered)",
    "fallback": "true/false: only questions that did (not) fall back",
    "status": "answered or failed",
    "failed": "true/false (same as status=failed/answered)",
    "surface": "rest, ui, mcp, integration or cli",
    "since": "ISO 8601 time or unix seconds (inclusive)",
    "until": "ISO 8601 time or unix seconds (exclusive)",
    "q": "Text the question contains (case-insensitive)",
    "conversation_id": "Only the questions of this conversation (e.g. one Assist dialogue)",
}


@routes.route(
    "GET",
    "/api/queries",
    access=Access.READ,
    summary="The query log with traces, newest first, paged and filtered",
    query=_FILTERS,
)
async def list_queries(request: web.Request) -> web.Response:
    """One page of logged questions; follow ``next_cursor`` for older ones."""
    flt = QueryFilter.from_query(request.query)
    return json_response(await request.app[keys.CORE].querylog.list(flt))


@routes.route(
    "GET",
    "/api/queries/{id}",
    access=Access.READ,
    summary="One logged question with its full routing trace",
)
async def get_query(request: web.Request) -> web.Response:
    """The entry with this id, or 404 once retention removed it."""
    raw = request.match_info["id"]
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 18:
        raise InvalidArgument(f"query id {raw[:40]!r} is not a query log id")
    return json_response(await request.app[keys.CORE].querylog.get(int(raw)))
