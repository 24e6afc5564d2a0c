"""The ``docs`` tool: Mnemolis's own documentation, for agents that need to explain it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from ..errors import NotFound
from ..mcp.docgen import DocPage, bundled_pages, render_mcp_page
from . import ToolAnnotations, ToolResult, enabled_tools, tool

if TYPE_CHECKING:
    from ..core import Mnemolis


class DocsRequest(BaseModel):
    """Which page to read; none lists them all."""

    model_config = ConfigDict(extra="forbid")

    page: str | None = Field(
        default=None,
        max_length=100,
        description="Page name from the listing (e.g. 'mcp', 'configuration'); omit to list pages.",
    )


def doc_pages(core: Mnemolis) -> dict[str, DocPage]:
    """The bundled pages, with the MCP page rendered from the tools offered right now."""
    pages = bundled_pages()
    live = {t.name: t for t in enabled_tools(core)}
    pages["mcp"] = DocPage("mcp", "MCP server and tools", render_mcp_page(live))
    return pages


DOCS_OUTPUT = {
    "type": "object",
    "properties": {
        "pages": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "page": {"type": "string"},
                    "title": {"type": "string"},
                    "chars": {"type": "integer"},
                },
                "required": ["page", "title"],
            },
        },
        "page": {"type": "string"},
        "title": {"type": "string"},
        "text": {"type": "string"},
    },
}


@tool(
    "docs",
    title="Mnemolis documentation",
    description=(
        "List Mnemolis's bundled documentation pages, or return one page's text "
        "(set-up, configuration, sources, the HA integration, MCP tools). Use it to explain "
        "or configure Mnemolis itself, not to answer questions about the home."
    ),
    input_model=DocsRequest,
    annotations=ToolAnnotations(read_only=True, idempotent=True, open_world=False),
    output_schema=DOCS_OUTPUT,
)
async def docs(core: Mnemolis, req: DocsRequest) -> ToolResult:
    """Serve the bundle; the tool reference page is rendered from the live registry."""
    pages = doc_pages(core)
    if req.page is None:
        listing = [{"page": p.name, "title": p.title, "chars": len(p.text)} for p in pages.values()]
        lines = [f"- {p['page']}: {p['title']}" for p in listing]
        text = "Mnemolis documentation pages (call docs with page=NAME):\n" + "\n".join(lines)
        return ToolResult(text=text, structured={"pages": listing})
    name = req.page.strip().lower().removesuffix(".md")
    found = pages.get(name)
    if found is None:
        raise NotFound(f"no docs page {req.page!r}; pages: {', '.join(pages)}")
    return ToolResult(
        text=found.text, structured={"page": found.name, "title": found.title, "text": found.text}
    )
