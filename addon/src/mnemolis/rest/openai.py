"""OpenAI-compatible inference: ``/v1/models``, ``/v1/chat/completions``, ``/v1/embeddings``.

These routes answer errors in OpenAI's shape, ``{"error": {"message", "type",
"param", "code"}}``, so OpenAI client libraries show the message; ``code``
carries the Mnemolis error code. Errors raised before the handler runs
(authentication 401/403, body size 413) keep the Mnemolis envelope, which has
the same ``message`` and ``code`` keys.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Annotated, Any, Literal

import numpy as np
from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..errors import InvalidArgument, MnemolisError, Unavailable
from ..llm import ChatParams, LLMService
from ..requestmodels import describe_validation_error
from . import keys
from .registry import Access, RouteTable, json_response, read_json

routes = RouteTable("openai")

_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "invalid_request_error",
    429: "rate_limit_error",
    503: "service_unavailable",
}
MAX_MESSAGES = 256


class OpenAIError(MnemolisError):
    """A MnemolisError that also names the offending request field."""

    def __init__(self, err: MnemolisError, param: str | None) -> None:
        super().__init__(err.message)
        self.inner = err
        self.param = param


def openai_error(err: MnemolisError, param: str | None = None) -> web.Response:
    """OpenAI's error body for one of our errors."""
    body = {
        "error": {
            "message": err.message,
            "type": _TYPES.get(err.status, "server_error"),
            "param": param,
            "code": err.code,
        }
    }
    resp = json_response(body, status=err.status)
    if err.status == 429:
        resp.headers["Retry-After"] = "1"
    return resp


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def openai_errors(handler: Handler) -> Handler:
    """Render MnemolisErrors raised by ``handler`` in OpenAI's shape."""

    @wraps(handler)
    async def wrapped(request: web.Request) -> web.StreamResponse:
        try:
            return await handler(request)
        except OpenAIError as err:
            return openai_error(err.inner, err.param)
        except MnemolisError as err:
            return openai_error(err)

    return wrapped


class _Lenient(BaseModel):
    # OpenAI clients send many optional fields; unknown ones are ignored.
    model_config = ConfigDict(extra="ignore")


class ContentPart(_Lenient):
    """One part of a multi-part message; only text is understood."""

    type: str
    text: str | None = None


class Message(_Lenient):
    """One chat message."""

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[ContentPart] | None = None

    def text(self) -> str:
        """The message as plain text (non-text parts are rejected earlier)."""
        if self.content is None:
            return ""
        if isinstance(self.content, str):
            return self.content
        return "".join(p.text or "" for p in self.content)

    @model_validator(mode="after")
    def _text_only(self) -> Message:
        if isinstance(self.content, list):
            bad = [p.type for p in self.content if p.type != "text"]
            if bad:
                raise ValueError(f"content part type {bad[0]!r} is not supported; send text")
        return self


class ResponseFormat(_Lenient):
    """``text``, ``json_object`` or ``json_schema`` (constrained by a grammar)."""

    type: Literal["text", "json_object", "json_schema"] = "text"
    json_schema: dict[str, Any] | None = None


class StreamOptions(_Lenient):
    """``include_usage`` adds a final chunk with token counts."""

    include_usage: bool = False


class ChatCompletionRequest(_Lenient):
    """``POST /v1/chat/completions`` body (the OpenAI subset a local model can honour)."""

    model: str | None = Field(default=None, description="Ignored: the loaded model answers.")
    messages: Annotated[list[Message], Field(min_length=1, max_length=MAX_MESSAGES)]
    max_tokens: int | None = Field(default=None, ge=1, le=131072)
    max_completion_tokens: int | None = Field(default=None, ge=1, le=131072)
    temperature: float = Field(default=0.7, ge=0, le=2)
    top_p: float = Field(default=0.95, gt=0, le=1)
    seed: int | None = Field(default=None, ge=0, le=2**31 - 1)
    stop: str | list[str] | None = None
    stream: bool = False
    stream_options: StreamOptions | None = None
    presence_penalty: float = Field(default=0.0, ge=-2, le=2)
    frequency_penalty: float = Field(default=0.0, ge=-2, le=2)
    logit_bias: dict[str, float] | None = None
    response_format: ResponseFormat | None = None
    n: int = Field(default=1, ge=1, le=1, description="Only one choice is generated.")

    def to_params(self) -> ChatParams:
        """Backend parameters."""
        stops = [self.stop] if isinstance(self.stop, str) else list(self.stop or [])
        if len(stops) > 4:
            raise OpenAIError(InvalidArgument("stop: at most 4 sequences"), "stop")
        bias: dict[int, float] = {}
        for key, value in (self.logit_bias or {}).items():
            if not key.isdigit():
                raise OpenAIError(
                    InvalidArgument(f"logit_bias: key {key!r} is not a token id"), "logit_bias"
                )
            bias[int(key)] = max(-100.0, min(100.0, value))
        schema: dict[str, Any] | None = None
        fmt = self.response_format
        if fmt is not None and fmt.type == "json_schema":
            schema = (fmt.json_schema or {}).get("schema")
            if not isinstance(schema, dict):
                raise OpenAIError(
                    InvalidArgument("response_format.json_schema.schema must be an object"),
                    "response_format",
                )
        messages = [
            {"role": "system" if m.role == "developer" else m.role, "content": m.text()}
            for m in self.messages
        ]
        return ChatParams(
            messages=messages,
            max_tokens=self.max_completion_tokens or self.max_tokens,
            temperature=self.temperature,
            top_p=self.top_p,
            seed=self.seed,
            stop=[s for s in stops if s],
            presence_penalty=self.presence_penalty,
            frequency_penalty=self.frequency_penalty,
            logit_bias=bias,
            json_schema=schema,
            json_object=fmt is not None and fmt.type == "json_object",
        )


class EmbeddingRequest(_Lenient):
    """``POST /v1/embeddings`` body."""

    model: str | None = Field(default=None, description="Ignored: the embedding model answers.")
    input: str | Annotated[list[str], Field(min_length=1, max_length=2048)]
    encoding_format: Literal["float", "base64"] = "float"
    dimensions: int | None = Field(default=None, ge=1)


def _parse[M: BaseModel](model: type[M], data: Any) -> M:
    if not isinstance(data, dict):
        raise InvalidArgument(f"request body must be a JSON object, not {type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        param = ".".join(str(p) for p in first["loc"]) or None
        raise OpenAIError(InvalidArgument(describe_validation_error(err)), param) from None


def _service(request: web.Request) -> LLMService:
    service = request.app[keys.CORE].services.llm
    if service is None:
        raise Unavailable("the inference service is not running")
    return service


def _chunk(cid: str, created: int, model: str, delta: dict[str, Any], finish: str | None) -> str:
    body = {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"


def _finish(reason: str | None) -> str:
    return reason if reason in ("stop", "length") else "stop"


@routes.route(
    "GET", "/v1/models", access=Access.READ, summary="OpenAI-compatible: the models served"
)
@openai_errors
async def list_models(request: web.Request) -> web.Response:
    """The chat model (local or remote) and the embedding model."""
    models = await _service(request).list_models()
    return json_response({"object": "list", "data": models})


@routes.route(
    "POST",
    "/v1/chat/completions",
    access=Access.READ,
    summary="OpenAI-compatible chat completion (also stream: true, SSE)",
    body=ChatCompletionRequest,
)
@openai_errors
async def chat_completions(request: web.Request) -> web.StreamResponse:
    """Queue one completion on the model; stream it as SSE when asked."""
    req = _parse(ChatCompletionRequest, await read_json(request))
    params = req.to_params()
    gen = await _service(request).chat(params)
    cid = f"chatcmpl-{uuid.uuid4().hex[:24]}"
    created = int(time.time())

    def gone() -> bool:
        transport = request.transport
        return transport is None or transport.is_closing()

    if not req.stream:
        try:
            result = await gen.collect(disconnected=gone)
        finally:
            gen.cancel()
        return json_response(
            {
                "id": cid,
                "object": "chat.completion",
                "created": created,
                "model": result.model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": result.content},
                        "logprobs": None,
                        "finish_reason": _finish(result.finish_reason),
                    }
                ],
                "usage": result.usage.to_dict(),
            }
        )

    resp = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream; charset=utf-8",
            "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no",
        }
    )
    await resp.prepare(request)
    try:
        await resp.write(
            _chunk(cid, created, gen.model, {"role": "assistant", "content": ""}, None).encode()
        )
        async for piece in gen.deltas(disconnected=gone):
            await resp.write(_chunk(cid, created, gen.model, {"content": piece}, None).encode())
        if gen.finish_reason == "cancelled":
            return resp
        await resp.write(_chunk(cid, created, gen.model, {}, _finish(gen.finish_reason)).encode())
        if req.stream_options is not None and req.stream_options.include_usage:
            usage = {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": gen.model,
                "choices": [],
                "usage": gen.usage.to_dict(),
            }
            await resp.write(f"data: {json.dumps(usage)}\n\n".encode())
        await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
    except (ConnectionResetError, ConnectionError):
        gen.cancel()
    except MnemolisError as err:
        gen.cancel()
        body = {
            "error": {
                "message": err.message,
                "type": _TYPES.get(err.status, "server_error"),
                "param": None,
                "code": err.code,
            }
        }
        try:
            await resp.write(f"data: {json.dumps(body)}\n\n".encode())
            await resp.write_eof()
        except (ConnectionResetError, ConnectionError):
            pass
    finally:
        gen.cancel()
    return resp


@routes.route(
    "POST",
    "/v1/embeddings",
    access=Access.READ,
    summary="OpenAI-compatible embeddings (unit vectors, one per input)",
    body=EmbeddingRequest,
)
@openai_errors
async def embeddings(request: web.Request) -> web.Response:
    """Embed one text or a list of texts with the embedding model."""
    req = _parse(EmbeddingRequest, await read_json(request))
    texts = [req.input] if isinstance(req.input, str) else list(req.input)
    if any(not t for t in texts):
        raise OpenAIError(InvalidArgument("input: texts must not be empty"), "input")
    vectors, tokens, model = await _service(request).embed(texts)
    if req.dimensions is not None and vectors and req.dimensions != len(vectors[0]):
        raise OpenAIError(
            InvalidArgument(
                f"dimensions: the model {model} gives {len(vectors[0])}-dimensional vectors"
            ),
            "dimensions",
        )
    data: list[dict[str, Any]] = []
    for i, vec in enumerate(vectors):
        value: Any = vec
        if req.encoding_format == "base64":
            value = base64.b64encode(np.asarray(vec, dtype="<f4").tobytes()).decode("ascii")
        data.append({"object": "embedding", "index": i, "embedding": value})
    return json_response(
        {
            "object": "list",
            "data": data,
            "model": model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
    )
