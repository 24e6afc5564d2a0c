"""Tool registry: one definition per tool, served by MCP (and listed in docs).

A tool is declared once with its input model, output schema, annotations and
access level; the MCP transports, the ``docs`` tool and ``docs/mcp.md`` all
read this registry, so what a client sees never drifts from what runs.
"""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from ..errors import Forbidden, MnemolisError
from ..querylog import SURFACE
from ..requestmodels import describe_validation_error, limits_context

if TYPE_CHECKING:
    from ..core import Mnemolis

_LOGGER = logging.getLogger(__name__)

# Modules under mnemolis.tools that declare tools; add yours here.
TOOL_MODULES: list[str] = ["search", "docs", "knowledge", "llm"]


@dataclass(frozen=True, slots=True)
class ToolAnnotations:
    """MCP behaviour hints, set honestly per tool."""

    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True
    open_world: bool = False

    def to_mcp(self, title: str) -> dict[str, Any]:
        """The MCP ``annotations`` object."""
        return {
            "title": title,
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }


@dataclass(slots=True)
class ToolResult:
    """What a tool returns: text for the model, structured data for the client."""

    text: str
    structured: dict[str, Any] | None = None
    is_error: bool = False


ToolHandler = Callable[["Mnemolis", Any], Awaitable[ToolResult]]


@dataclass(slots=True)
class Tool:
    """One tool: schema, annotations, access level and handler."""

    name: str
    title: str
    description: str
    input_model: type[BaseModel]
    handler: ToolHandler
    annotations: ToolAnnotations = field(default_factory=ToolAnnotations)
    output_schema: dict[str, Any] | None = None
    # "read" tools work with the read-only key; "write" tools need the full key.
    access: str = "read"
    available: Callable[[Mnemolis], bool] | None = None

    def input_schema(self) -> dict[str, Any]:
        """JSON Schema of the arguments, self-contained (no external $refs)."""
        from .schema import portable_schema

        return portable_schema(self.input_model.model_json_schema())


TOOLS: dict[str, Tool] = {}


def tool(
    name: str,
    *,
    title: str,
    description: str,
    input_model: type[BaseModel],
    annotations: ToolAnnotations | None = None,
    output_schema: dict[str, Any] | None = None,
    access: str = "read",
    available: Callable[[Mnemolis], bool] | None = None,
) -> Callable[[ToolHandler], ToolHandler]:
    """Decorator that registers a tool handler."""

    def decorator(handler: ToolHandler) -> ToolHandler:
        if name in TOOLS:
            raise ValueError(f"tool {name} registered twice")
        TOOLS[name] = Tool(
            name=name,
            title=title,
            description=description,
            input_model=input_model,
            handler=handler,
            annotations=annotations or ToolAnnotations(),
            output_schema=output_schema,
            access=access,
            available=available,
        )
        return handler

    return decorator


def load_tools() -> dict[str, Tool]:
    """Import every tool module once so its tools are registered."""
    for module in TOOL_MODULES:
        importlib.import_module(f"{__name__}.{module}")
    return TOOLS


def _switched_on(name: str, enabled: list[str], disabled: list[str]) -> bool:
    if any(fnmatchcase(name, pat) for pat in disabled):
        return False
    return any(fnmatchcase(name, pat) for pat in enabled)


def enabled_tools(core: Mnemolis) -> list[Tool]:
    """Tools switched on by settings and available with the current set-up."""
    cfg = core.settings.mcp
    return [
        t
        for t in load_tools().values()
        if _switched_on(t.name, cfg.enabled_tools, cfg.disabled_tools)
        and (t.available is None or t.available(core))
    ]


def find_tool(core: Mnemolis, name: str) -> Tool | None:
    """An enabled tool by name, or None (disabled tools do not exist to callers)."""
    return next((t for t in enabled_tools(core) if t.name == name), None)


async def call_tool(
    core: Mnemolis, name: str, arguments: dict[str, Any] | None, level: str = "read"
) -> ToolResult:
    """Validate, authorise and run a tool; every failure is an isError result."""
    started = time.perf_counter()
    token = SURFACE.set("mcp")
    try:
        result = await _call_tool(core, name, arguments, level)
    finally:
        SURFACE.reset(token)
    label = name if name in TOOLS else "(unknown)"
    core.metrics.record_tool(label, time.perf_counter() - started, result.is_error)
    return result


async def _call_tool(
    core: Mnemolis, name: str, arguments: dict[str, Any] | None, level: str
) -> ToolResult:
    found = find_tool(core, name)
    if found is None:
        names = ", ".join(t.name for t in enabled_tools(core))
        return ToolResult(f"unknown tool {name!r}; available: {names}", is_error=True)
    if found.access == "write" and level != "write":
        return ToolResult(Forbidden(f"{name} needs the full API key").message, is_error=True)
    try:
        args = found.input_model.model_validate(
            arguments or {}, context=limits_context(core.settings)
        )
    except ValidationError as err:
        return ToolResult(f"invalid argument: {describe_validation_error(err)}", is_error=True)
    try:
        return await found.handler(core, args)
    except MnemolisError as err:
        return ToolResult(err.message, is_error=True)
    except Exception as err:
        _LOGGER.exception("tool %s failed", name)
        return ToolResult(f"internal error in {name}: {type(err).__name__}", is_error=True)
