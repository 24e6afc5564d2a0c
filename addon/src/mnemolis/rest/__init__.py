"""REST route modules; each owns a RouteTable and the app registers them all."""

from __future__ import annotations

from . import (
    connection,
    context,
    health,
    memories,
    metrics,
    openai,
    queries,
    rag,
    search,
    sources,
    ui,
)
from .registry import Access, Endpoint, RouteTable

# Add a module here to expose its routes (and document them in /openapi.json).
ROUTE_TABLES: list[RouteTable] = [
    health.routes,
    search.routes,
    sources.routes,
    queries.routes,
    metrics.routes,
    ui.routes,
    rag.routes,
    memories.routes,
    context.routes,
    openai.routes,
    connection.routes,
]

__all__ = ["ROUTE_TABLES", "Access", "Endpoint", "RouteTable"]
