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
from ..errors import MnemolisError
from ..tools import ToolResult, call_tool, enabled_tools, find_tool, load_tools
from ..tools.docs import doc_pages
from .identity import INSTRUCTIONS, SERVER_NAME
from .logs import SessionLogs, search_summary
from .prompts import find_prompt, matching, offered
from .subscriptions import Subscriptions, status_text

if TYPE_CHECKING:
    from ..core import Mnemolis
    from ..tools import Tool

# The bundled docs are also MCP resources (offered while the ``docs`` tool is).
DOCS_URI = "mnemolis://docs/"
# The document databases' status, which changes as they index (subscribable).
DATABASES_URI = "mnemolis://databases"
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

    logs = SessionLogs(core.settings.secrets())

    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def handle_call(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        # Text a transport cannot carry (a lone surrogate) was answered by protocol.decode.
        context = server.request_context
        with logs.capturing(context.session) as records:
            result = await call_tool(core, name, arguments, level=_caller_level(server))
        summary = search_summary(result.structured) if name == "search" else None
        await logs.send(context.session, context.request_id, records, summary)
        return to_call_result(result)

    @server.set_logging_level()  # type: ignore[no-untyped-call,untyped-decorator]
    async def set_level(level: types.LoggingLevel) -> None:
        logs.set_level(server.request_context.session, level)

    load_tools()  # register every tool in TOOL_MODULES order (search first)
    _serve_prompts(server, core)
    subscriptions = Subscriptions(lambda uri: _resource_text(core, uri))

    @server.list_resources()  # type: ignore[no-untyped-call,untyped-decorator]
    async def list_resources() -> list[types.Resource]:
        status = [
            types.Resource(
                uri=AnyUrl(DATABASES_URI),
                name="databases",
                title="Document databases",
                description="Every document database's status: files indexed, indexing, "
                "watching, failures (subscribe to hear when it changes)",
                mimeType="application/json",
            )
        ]
        if find_tool(core, "docs") is None:
            return status
        return status + [
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
        text = await _resource_text(core, str(uri))
        if text is None:
            raise _not_found(uri)
        kind = "application/json" if str(uri) == DATABASES_URI else "text/markdown"
        return [ReadResourceContents(content=text, mime_type=kind)]

    @server.subscribe_resource()  # type: ignore[no-untyped-call,untyped-decorator]
    async def subscribe(uri: AnyUrl) -> None:
        if await _resource_text(core, str(uri)) is None:
            raise _not_found(uri)
        await subscriptions.subscribe(server.request_context.session, str(uri))

    @server.unsubscribe_resource()  # type: ignore[no-untyped-call,untyped-decorator]
    async def unsubscribe(uri: AnyUrl) -> None:
        subscriptions.unsubscribe(server.request_context.session, str(uri))

    @server.completion()  # type: ignore[no-untyped-call,untyped-decorator]
    async def complete(
        ref: types.PromptReference | types.ResourceTemplateReference,
        argument: types.CompletionArgument,
        _context: types.CompletionContext | None,
    ) -> types.Completion:
        return _completion(core, ref, argument)

    return server


async def _resource_text(core: Mnemolis, uri: str) -> str | None:
    """A resource's text now, or None when there is no such resource."""
    if uri == DATABASES_URI:
        store = core.services.knowledge
        return status_text(await store.all_status() if store is not None else [])
    if not uri.startswith(DOCS_URI) or find_tool(core, "docs") is None:
        return None
    page = doc_pages(core).get(uri.removeprefix(DOCS_URI))
    return page.text if page is not None else None


def _not_found(uri: AnyUrl) -> McpError:
    return McpError(types.ErrorData(code=RESOURCE_NOT_FOUND, message=f"Resource not found: {uri}"))


def _serve_prompts(server: Server[Any, Any], core: Mnemolis) -> None:
    """``prompts/list`` and ``prompts/get`` from the prompt definitions."""

    @server.list_prompts()  # type: ignore[no-untyped-call,untyped-decorator]
    async def list_prompts() -> list[types.Prompt]:
        return [
            types.Prompt(
                name=p.name,
                title=p.title,
                description=p.description,
                arguments=[
                    types.PromptArgument(
                        name=a.name, description=a.description, required=a.required
                    )
                    for a in p.arguments
                ],
            )
            for p in offered(core)
        ]

    @server.get_prompt()  # type: ignore[no-untyped-call,untyped-decorator]
    async def get_prompt(name: str, arguments: dict[str, str] | None) -> types.GetPromptResult:
        prompt = find_prompt(core, name)
        if prompt is None:
            names = ", ".join(p.name for p in offered(core)) or "none"
            raise McpError(
                types.ErrorData(
                    code=types.INVALID_PARAMS,
                    message=f"Invalid params: unknown prompt {name!r}; prompts: {names}",
                )
            )
        try:
            text = prompt.render(arguments, core.settings.limits.max_query_chars)
        except MnemolisError as err:
            raise McpError(
                types.ErrorData(code=types.INVALID_PARAMS, message=f"Invalid params: {err.message}")
            ) from None
        return types.GetPromptResult(
            description=prompt.description,
            messages=[
                types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
            ],
        )


def _completion(
    core: Mnemolis,
    ref: types.PromptReference | types.ResourceTemplateReference,
    argument: types.CompletionArgument,
) -> types.Completion:
    """What an argument can be: a prompt's (database names, memory tags, times) or the
    docs template's page names; nothing for what Mnemolis does not know."""
    candidates: list[str] = []
    if isinstance(ref, types.PromptReference):
        prompt = find_prompt(core, ref.name)
        arg = prompt.argument(argument.name) if prompt is not None else None
        if arg is not None and arg.completions is not None:
            candidates = arg.completions(core)
    elif ref.uri == DOCS_URI + "{page}" and argument.name == "page":
        if find_tool(core, "docs") is not None:
            candidates = list(doc_pages(core))
    values, total = matching(candidates, argument.value)
    return types.Completion(values=values, total=total, hasMore=total > len(values))


def _caller_level(server: Server[Any, Any]) -> str:
    """The level a transport attached; read when none did (write must be explicit)."""
    try:
        request = server.request_context.request
    except LookupError:
        return "read"
    return request if request in ("read", "write") else "read"


def initialization_options(server: Server[Any, Any]) -> InitializationOptions:
    """What ``initialize`` answers: name, version, instructions, capabilities (the SDK
    never says resources can be subscribed to; this server can)."""
    options = server.create_initialization_options(NotificationOptions(tools_changed=False))
    resources = options.capabilities.resources
    if resources is not None and types.SubscribeRequest in server.request_handlers:
        resources.subscribe = True
    return options
