"""The ``search`` tool: the router, with provenance in structuredContent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..requestmodels import SearchRequest
from . import ToolAnnotations, ToolResult, tool

if TYPE_CHECKING:
    from ..core import Mnemolis

_RUN = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "status": {"type": "string", "enum": ["ok", "empty", "error", "timeout", "skipped"]},
        "ms": {"type": "number"},
        "reason": {"type": "string"},
        "error": {"type": "string"},
    },
    "required": ["name", "status", "ms"],
}
_CITATION = {
    "type": "object",
    "properties": {
        "source": {"type": "string"},
        "title": {"type": "string"},
        "url": {"type": "string"},
        "ref": {"type": "string"},
    },
    "required": ["source", "title"],
}
SEARCH_OUTPUT = {
    "type": "object",
    "properties": {
        "result": {"type": "string"},
        "source_used": {"type": "string"},
        "fallback": {"type": "boolean"},
        "sources": {"type": "array", "items": _RUN},
        "citations": {"type": "array", "items": _CITATION},
        "parts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "source_used": {"type": "string"},
                    "result": {"type": "string"},
                },
            },
        },
        "condition": {
            "anyOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string"},
                        "verdict": {"type": ["boolean", "null"]},
                        "evidence": {"type": "string"},
                    },
                },
            ]
        },
    },
    "required": ["result", "source_used", "fallback", "sources", "citations"],
}


@tool(
    "search",
    title="Ask Mnemolis",
    description=(
        "Answer a question from the home's knowledge sources (Home Assistant states, "
        "forecast, news, web, offline Wikipedia, uptime monitors, documents, memories). "
        "Send the user's whole question unsplit; Mnemolis routes and decomposes it itself. "
        "The result names the sources used and cites them."
    ),
    input_model=SearchRequest,
    annotations=ToolAnnotations(read_only=True, idempotent=False, open_world=True),
    output_schema=SEARCH_OUTPUT,
)
async def search(core: Mnemolis, req: SearchRequest) -> ToolResult:
    """Route the question through the same service layer as ``POST /search``."""
    result = await core.search(req)
    body: dict[str, Any] = result.to_dict()
    structured = {
        k: body[k]
        for k in ("result", "source_used", "fallback", "sources", "citations", "parts", "condition")
    }
    text = result.result
    if result.citations:
        text += "\n\nSources: " + "; ".join(
            c.title + (f" <{c.url}>" if c.url else "") for c in result.citations[:8]
        )
    return ToolResult(text=text, structured=structured, is_error=result.source_used == "none")
