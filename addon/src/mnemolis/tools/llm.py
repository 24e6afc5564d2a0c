"""The ``chat`` and ``list_models`` tools: the home's own model, offered over MCP."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..llm import ChatParams, LLMService
from . import ToolAnnotations, ToolResult, tool

if TYPE_CHECKING:
    from ..core import Mnemolis


class ChatMessage(BaseModel):
    """One message of the conversation."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: Annotated[str, Field(max_length=100_000)]


class ChatArgs(BaseModel):
    """Arguments of the ``chat`` tool."""

    model_config = ConfigDict(extra="forbid")

    messages: Annotated[list[ChatMessage], Field(min_length=1, max_length=256)] = Field(
        description="The conversation so far; the model answers the last user message."
    )
    max_tokens: int = Field(default=256, ge=1, le=8192, description="Longest answer, in tokens.")
    temperature: float = Field(default=0.7, ge=0, le=2, description="0 answers deterministically.")
    seed: int | None = Field(
        default=None, ge=0, le=2**31 - 1, description="Same seed, same answer."
    )


class NoArgs(BaseModel):
    """No arguments."""

    model_config = ConfigDict(extra="forbid")


CHAT_OUTPUT = {
    "type": "object",
    "properties": {
        "content": {"type": "string"},
        "model": {"type": "string"},
        "finish_reason": {"type": "string", "enum": ["stop", "length"]},
        "usage": {
            "type": "object",
            "properties": {
                "prompt_tokens": {"type": "integer"},
                "completion_tokens": {"type": "integer"},
                "total_tokens": {"type": "integer"},
            },
        },
    },
    "required": ["content", "model", "finish_reason", "usage"],
}
MODELS_OUTPUT = {
    "type": "object",
    "properties": {
        "models": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "meta": {"type": "object"}},
                "required": ["id"],
            },
        }
    },
    "required": ["models"],
}


def _service(core: Mnemolis) -> LLMService | None:
    return core.services.llm


def model_configured(core: Mnemolis) -> bool:
    """The tools exist only when a chat model (local or remote) is configured."""
    service = _service(core)
    return service is not None and service.configured


@tool(
    "chat",
    title="Chat with the local model",
    description=(
        "Send a conversation to the home's own language model (running on this machine, "
        "or the configured OpenAI-compatible server) and get its reply. Use it for "
        "drafting or rewording text privately; for questions about the home or the "
        "world use `search`, which cites sources."
    ),
    input_model=ChatArgs,
    annotations=ToolAnnotations(read_only=True, idempotent=False, open_world=False),
    output_schema=CHAT_OUTPUT,
    available=model_configured,
)
async def chat(core: Mnemolis, args: ChatArgs) -> ToolResult:
    """One completion through the same queue as ``/v1/chat/completions``."""
    service = _service(core)
    assert service is not None  # guarded by ``available``
    result = await service.complete(
        ChatParams(
            messages=[m.model_dump() for m in args.messages],
            max_tokens=args.max_tokens,
            temperature=args.temperature,
            seed=args.seed,
        )
    )
    finish = result.finish_reason if result.finish_reason in ("stop", "length") else "stop"
    structured: dict[str, Any] = {
        "content": result.content,
        "model": result.model,
        "finish_reason": finish,
        "usage": result.usage.to_dict(),
    }
    return ToolResult(text=result.content, structured=structured)


@tool(
    "list_models",
    title="List the local models",
    description=(
        "The chat and embedding models this Mnemolis serves, with file, size, "
        "context length and whether they are loaded."
    ),
    input_model=NoArgs,
    annotations=ToolAnnotations(read_only=True, idempotent=True, open_world=False),
    output_schema=MODELS_OUTPUT,
    available=model_configured,
)
async def list_models(core: Mnemolis, args: NoArgs) -> ToolResult:
    """What ``GET /v1/models`` lists."""
    service = _service(core)
    assert service is not None  # guarded by ``available``
    models = await service.list_models()
    lines = []
    for m in models:
        meta = m.get("meta") or {}
        kind = meta.get("kind", "chat")
        state = meta.get("state", "remote")
        lines.append(f"- {m['id']} ({kind}, {state})")
    text = "Models:\n" + "\n".join(lines) if lines else "No models."
    return ToolResult(text=text, structured={"models": models})
