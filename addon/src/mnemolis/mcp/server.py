"""The one MCP server definition every transport serves (name, instructions, tools)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import mcp.types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import McpError
from pydantic import AnyUrl

from .. import __version__
from ..tools import ToolResult, call_tool, enabled_tools, find_tool, load_tools
from ..tools.docs import doc_pages
from .identity import INSTRUCTIONS, SERVER_NAME

if TYPE_CHECKING:
    from ..core import Mnemolis
    from ..tools import Tool

# The bundled docs are also MCP resources (offered while the ``docs`` tool is).
DOCS_URI = "mnemolis://docs/"
RESOURCE_NOT_FOUND = -32002

_LOGGER = logging.getLogger(__name__)
# The SDK logs every request at INFO; that belongs in debug output, not the add-on log.
logging.getLogger("mcp.server.lowlevel.server").setLevel(logging.ERROR)


def to_mcp_tool(spec: Tool) -> types.Tool:
    """The wire form of one registry tool."""
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        inputSchema=spec.input_schema(),
        outputSchema=spec.output_schema,
        annotations=types.ToolAnnotations(**spec.annotations.to_mcp(spec.title)),
    )


def to_call_result(result: ToolResult) -> types.CallToolResult:
    """A registry ToolResult as an MCP CallToolResult."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=result.text)],
        structuredContent=result.structured,
        isError=result.is_error,
    )


def build_server(core: Mnemolis) -> Server[Any, Any]:
    """The lowlevel SDK server bound to the service layer.

    The caller's access level travels with each message as
    ``ServerMessageMetadata.request_context`` (``"read"``/``"write"``); a
    message without one reads only, so stdio (a local process) says ``write``.
    """
    server: Server[Any, Any] = Server(SERVER_NAME, version=__version__, instructions=INSTRUCTIONS)

    @server.list_tools()  # type: ignore[no-untyped-call,untyped-decorator]
    async def list_tools() -> list[types.Tool]:
        return [to_mcp_tool(t) for t in enabled_tools(core)]

    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def handle_call(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        # Text a transport cannot carry (a lone surrogate) was answered by protocol.decode.
        return to_call_result(await call_tool(core, name, arguments, level=_caller_level(server)))

    load_tools()  # register every tool in TOOL_MODULES order (search first)

    @server.list_resources()  # type: ignore[no-untyped-call,untyped-decorator]
    async def list_resources() -> list[types.Resource]:
        if find_tool(core, "docs") is None:
            return []
        return [
            types.Resource(
                uri=AnyUrl(DOCS_URI + page.name),
                name=page.name,
                title=page.title,
                description=f"Mnemolis documentation: {page.title}",
                mimeType="text/markdown",
                size=len(page.text.encode()),
            )
            for page in doc_pages(core).values()
        ]

    @server.list_resource_templates()  # type: ignore[no-untyped-call,untyped-decorator]
    async def list_resource_templates() -> list[types.ResourceTemplate]:
        if find_tool(core, "docs") is None:
            return []
        return [
            types.ResourceTemplate(
                uriTemplate=DOCS_URI + "{page}",
                name="docs",
                title="Mnemolis documentation",
                description="One page of Mnemolis' documentation by name "
                "(the names resources/list shows, e.g. security)",
                mimeType="text/markdown",
            )
        ]

    @server.read_resource()  # type: ignore[no-untyped-call,untyped-decorator]
    async def read_resource(uri: AnyUrl) -> list[ReadResourceContents]:
        name = str(uri).removeprefix(DOCS_URI)
        page = doc_pages(core).get(name) if find_tool(core, "docs") is not None else None
        if not str(uri).startswith(DOCS_URI) or page is None:
            raise McpError(
                types.ErrorData(code=RESOURCE_NOT_FOUND, message=f"Resource not found: {uri}")
            )
        return [ReadResourceContents(content=page.text, mime_type="text/markdown")]

    return server


def _caller_level(server: Server[Any, Any]) -> str:
    """The level a transport attached; read when none did (write must be explicit)."""
    try:
        request = server.request_context.request
    except LookupError:
        return "read"
    return request if request in ("read", "write") else "read"


def initialization_options(server: Server[Any, Any]) -> InitializationOptions:
    """What ``initialize`` answers: name, version, instructions, capabilities."""
    return server.create_initialization_options(NotificationOptions(tools_changed=False))
