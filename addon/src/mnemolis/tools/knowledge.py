"""Knowledge tools: document databases (Kura) and memories (MemorySmith) over MCP."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..knowledge.requests import (
    ContextPackRequest,
    ListRagArgs,
    MemoryCreate,
    MemorySearch,
    SearchRagArgs,
    SourceBundleRequest,
)
from ..knowledge.store import store_of
from . import ToolAnnotations, ToolResult, tool

if TYPE_CHECKING:
    from ..core import Mnemolis

_READ = ToolAnnotations(read_only=True, destructive=False, idempotent=True, open_world=False)

LIST_OUTPUT = {
    "type": "object",
    "properties": {
        "loaded": {"type": "array", "items": {"type": "string"}},
        "registered": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"db": {"type": "string"}, "createAt": {"type": "string"}},
                "required": ["db", "createAt"],
            },
        },
    },
    "required": ["loaded", "registered"],
}
SEARCH_RAG_OUTPUT = {
    "type": "object",
    "description": "One key named after the mode used; {} when nothing matched.",
    "additionalProperties": {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "source": {"type": "string"},
                "matches": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "chunk": {"type": "integer"},
                            "content": {"type": "string"},
                        },
                        "required": ["chunk", "content"],
                    },
                },
            },
            "required": ["source", "matches"],
        },
    },
}
_MEMORY = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "content": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "status": {"type": "string"},
        "created_at": {"type": "string"},
        "updated_at": {"type": "string"},
        "score": {"type": "number"},
    },
    "required": ["id", "content", "tags", "status", "created_at", "updated_at"],
}
ENVELOPE_OUTPUT = {
    "type": "object",
    "properties": {
        "schema": {"type": "string", "const": "mnemolis.retrieval-results.v1"},
        "query": {"type": "string"},
        "filters": {"type": "object"},
        "mode": {"type": "string"},
        "results": {"type": "array", "items": _MEMORY},
        "truncated": {"type": "boolean"},
    },
    "required": ["schema", "query", "filters", "results", "truncated"],
}
CONTEXT_OUTPUT = {
    "type": "object",
    "properties": {
        "query": {"type": "string"},
        "budget_chars": {"type": "integer"},
        "used_chars": {"type": "integer"},
        "pieces": {"type": "array", "items": {"type": "object"}},
        "truncated": {"type": "boolean"},
    },
    "required": ["query", "budget_chars", "used_chars", "pieces", "truncated"],
}
BUNDLE_OUTPUT = {
    "type": "object",
    "properties": {
        "files": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "db": {"type": "string"},
                    "chars": {"type": "integer"},
                    "truncated": {"type": "boolean"},
                    "text": {"type": "string"},
                },
                "required": ["path", "db", "text", "truncated"],
            },
        }
    },
    "required": ["files"],
}


def _dump(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2)


@tool(
    "list_rag",
    title="List document databases",
    description=(
        "Names of the home's document databases (folders of manuals, notes, PDFs). "
        "loaded = searchable now; registered = every database with its creation time. "
        "Pass a name to search_rag."
    ),
    input_model=ListRagArgs,
    annotations=_READ,
    output_schema=LIST_OUTPUT,
)
async def list_rag(core: Mnemolis, _args: ListRagArgs) -> ToolResult:
    """The same shape as ``GET /api/list``."""
    data = store_of(core.services.knowledge).list_kura()
    return ToolResult(text=_dump(data), structured=data)


@tool(
    "search_rag",
    title="Search a document database",
    description=(
        "Search one document database (names from list_rag). mode: keyword (BM25 words), "
        "semantic (meaning, via embeddings) or hybrid (both fused; default). limit 1-100 "
        "(default 10). Returns passages grouped by file path; {} when nothing matched."
    ),
    input_model=SearchRagArgs,
    annotations=_READ,
    output_schema=SEARCH_RAG_OUTPUT,
)
async def search_rag(core: Mnemolis, args: SearchRagArgs) -> ToolResult:
    """Kura ``search_rag`` with its argument rules."""
    result = await store_of(core.services.knowledge).search_rag(
        args.db, args.q, args.limit, args.mode
    )
    return ToolResult(text=_dump(result), structured=result)


@tool(
    "remember",
    title="Remember something",
    description=(
        "Store a memory (a fact, preference or rule worth keeping) with optional tags "
        "(e.g. kind:rule, garden) and status Unconsolidated (default), Working, Core or "
        "Deprecated. Needs the full API key."
    ),
    input_model=MemoryCreate,
    annotations=ToolAnnotations(
        read_only=False, destructive=False, idempotent=False, open_world=False
    ),
    output_schema=_MEMORY,
    access="write",
)
async def remember(core: Mnemolis, args: MemoryCreate) -> ToolResult:
    """Write one memory; durable when the result arrives."""
    memory = await store_of(core.services.knowledge).remember(args.content, args.tags, args.status)
    data = memory.to_dict()
    return ToolResult(text=f"Remembered {memory.id} ({memory.status}).", structured=data)


@tool(
    "recall",
    title="Recall memories",
    description=(
        "Search memories with plain text (no query syntax: quotes, AND, title:, * are just "
        "words) and optional filters tags (comma-separated, any-match, case-insensitive) and "
        "status. Empty query lists the newest. mode lexical/semantic/hybrid; format "
        "markdown (default), json or envelope (mnemolis.retrieval-results.v1)."
    ),
    input_model=MemorySearch,
    annotations=_READ,
    output_schema=ENVELOPE_OUTPUT,
)
async def recall(core: Mnemolis, args: MemorySearch) -> ToolResult:
    """Text in the requested format; the envelope as structured content."""
    _fmt, text, env = await store_of(core.services.knowledge).recall_formatted(
        args.query,
        tags=args.tags,
        status=args.status,
        mode=args.mode,
        limit=args.limit,
        fmt=args.format,
    )
    return ToolResult(text=text, structured=env)


def _pack_text(pack: dict[str, Any]) -> str:
    if not pack["pieces"]:
        return f"No evidence found for {pack['query']!r}."
    lines = []
    for n, piece in enumerate(pack["pieces"], start=1):
        cite = piece["citation"]
        where = cite.get("ref", "")
        lines.append(
            f"[{n}] {cite['title']} ({where})" + (" [truncated]" if piece["truncated"] else "")
        )
        lines.append(piece["text"])
        lines.append("")
    return "\n".join(lines).rstrip()


@tool(
    "context_pack",
    title="Context pack",
    description=(
        "The best evidence for a question from memories and document databases, cut to "
        "budget_chars, each piece with its citation and a truncated flag. Use it to ground "
        "an answer; pass citation refs to source_bundle for whole files."
    ),
    input_model=ContextPackRequest,
    annotations=_READ,
    output_schema=CONTEXT_OUTPUT,
)
async def context_pack(core: Mnemolis, args: ContextPackRequest) -> ToolResult:
    """Bounded, cited evidence."""
    pack = await store_of(core.services.knowledge).context_pack(args.query, args.budget_chars)
    return ToolResult(text=_pack_text(pack), structured=pack)


@tool(
    "source_bundle",
    title="Source bundle",
    description=(
        "Full text of local files cited by a search result (paths or citation refs), only "
        "from registered document databases; memory:ID refs return the memory. Needs the "
        "full API key."
    ),
    input_model=SourceBundleRequest,
    annotations=_READ,
    output_schema=BUNDLE_OUTPUT,
    access="write",
)
async def source_bundle(core: Mnemolis, args: SourceBundleRequest) -> ToolResult:
    """Whole cited files."""
    bundle = await store_of(core.services.knowledge).source_bundle(args.sources)
    parts = [f"===== {f['path']} =====\n{f['text']}" for f in bundle["files"]]
    return ToolResult(text="\n\n".join(parts), structured=bundle)
