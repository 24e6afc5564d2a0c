"""JSON-RPC framing shared by every transport: decode, pre-check, error objects."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import mcp.types as types
from pydantic import BaseModel, ValidationError

from ..errors import InvalidArgument
from ..jsontext import check_json_text

PARSE_ERROR = types.PARSE_ERROR
INVALID_REQUEST = types.INVALID_REQUEST
METHOD_NOT_FOUND = types.METHOD_NOT_FOUND
INVALID_PARAMS = types.INVALID_PARAMS
INTERNAL_ERROR = types.INTERNAL_ERROR
# Every request method a client may send (anything else is -32601 Method not found).
CLIENT_METHODS: frozenset[str] = frozenset(
    m.model_fields["method"].default
    for m in types.ClientRequest.model_fields["root"].annotation.__args__  # type: ignore[union-attr]
)

RequestId = str | int
# What goes out to a client: a server message or a transport-made error object.
Outgoing = types.JSONRPCMessage | dict[str, Any]


# Protocol versions from this one on have no JSON-RPC batching.
NO_BATCHES_FROM = "2025-06-18"


def batching_allowed(version: str | None) -> bool:
    """Whether a session on this protocol version may send a JSON array of messages."""
    return version is None or version < NO_BATCHES_FROM


def batch_refused(version: str) -> dict[str, Any]:
    """The -32600 a batch gets on a session whose protocol removed batching."""
    return rpc_error(
        None,
        INVALID_REQUEST,
        f"Invalid Request: protocol version {version} has no JSON-RPC batches; "
        "send each message on its own",
    )


def rpc_error(request_id: RequestId | None, code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC error object (``id`` is null when the request id is unknown)."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def tool_error(request_id: RequestId, message: str) -> dict[str, Any]:
    """A ``tools/call`` answered with a tool error (``isError``) by the transport itself."""
    content = [{"type": "text", "text": message}]
    return {"jsonrpc": "2.0", "id": request_id, "result": {"content": content, "isError": True}}


def error_code(reply: dict[str, Any]) -> int | None:
    """The JSON-RPC error code of a transport-made reply (None for a result)."""
    error = reply.get("error")
    return error.get("code") if isinstance(error, dict) else None


@dataclass(slots=True)
class Decoded:
    """One incoming element: a valid message, or the reply to answer instead."""

    message: types.JSONRPCMessage | None = None
    error: dict[str, Any] | None = None

    @property
    def request_id(self) -> RequestId | None:
        """The id of a request (None for notifications, responses and errors)."""
        root = self.message.root if self.message is not None else None
        return root.id if isinstance(root, types.JSONRPCRequest) else None

    @property
    def method(self) -> str | None:
        """The method of a request or notification."""
        root = self.message.root if self.message is not None else None
        if isinstance(root, types.JSONRPCRequest | types.JSONRPCNotification):
            return root.method
        return None


def parse_json(raw: bytes | str) -> Any | dict[str, Any]:
    """Decode a body; raise ValueError with a -32700 message on bad JSON."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        return json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        reason = err.msg if isinstance(err, json.JSONDecodeError) else type(err).__name__
        raise ValueError(f"Parse error: the body is not valid JSON ({reason})") from None


def decode(obj: Any) -> Decoded:
    """Validate one JSON-RPC element and refuse methods nobody serves."""
    raw_id = obj.get("id") if isinstance(obj, dict) else None
    valid_id = isinstance(raw_id, str | int) and not isinstance(raw_id, bool)
    request_id: RequestId | None = raw_id if valid_id else None
    if not isinstance(obj, dict):
        return Decoded(error=rpc_error(None, INVALID_REQUEST, "Invalid Request: not an object"))
    if isinstance(raw_id, str) and (bad := _bad_text(raw_id, "id")) is not None:
        # An id that cannot be written back (a lone surrogate) is answered with a null id.
        return Decoded(error=rpc_error(None, INVALID_REQUEST, f"Invalid Request: {bad}"))
    if isinstance(obj.get("method"), str) and (bad := _bad_text(obj["method"], "method")):
        return Decoded(error=rpc_error(request_id, INVALID_REQUEST, f"Invalid Request: {bad}"))
    if "id" in obj and not valid_id:
        # A null or structured id would otherwise read as a notification and go unanswered.
        return Decoded(
            error=rpc_error(
                None,
                INVALID_REQUEST,
                f"Invalid Request: id must be a string or an integer, not {_json_type(raw_id)}",
            )
        )
    try:
        message = types.JSONRPCMessage.model_validate(obj)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "message"
        return Decoded(
            error=rpc_error(
                request_id,
                INVALID_REQUEST,
                f"Invalid Request: {where}: {first['msg']} (expected a JSON-RPC 2.0 message)",
            )
        )
    root = message.root
    if isinstance(root, types.JSONRPCRequest):
        if root.method not in CLIENT_METHODS:
            return Decoded(
                error=rpc_error(root.id, METHOD_NOT_FOUND, f"Method not found: {root.method}")
            )
        if (bad := _params_error(obj)) is not None:
            return Decoded(error=rpc_error(root.id, INVALID_PARAMS, bad))
    if (bad := _text_error(obj)) is not None:
        return Decoded(error=rpc_error(request_id, INVALID_PARAMS, f"Invalid params: {bad}"))
    if isinstance(root, types.JSONRPCRequest) and root.method == "tools/call":
        arguments = obj["params"].get("arguments")
        if (bad := _bad_text(arguments, "arguments")) is not None:
            # Before the SDK sees it (a key it cannot encode fails there without a word):
            # a tool error that names the field, as a bad value in the tool itself would.
            return Decoded(error=tool_error(root.id, f"invalid argument: {bad}"))
    return Decoded(message=message)


def _bad_text(value: Any, where: str) -> str | None:
    """What is wrong with the text in ``value`` (a lone surrogate or NUL), or None."""
    try:
        check_json_text(value, where)
    except InvalidArgument as err:
        return err.message
    return None


def _text_error(obj: dict[str, Any]) -> str | None:
    """A lone surrogate or NUL in the params (tool arguments become a tool error instead)."""
    params = obj.get("params")
    if obj.get("method") == "tools/call" and isinstance(params, dict):
        params = {k: v for k, v in params.items() if k != "arguments"}
    return _bad_text(params, "params")


_REQUEST_TYPES: dict[str, type[BaseModel]] = {
    m.model_fields["method"].default: m
    for m in types.ClientRequest.model_fields["root"].annotation.__args__  # type: ignore[union-attr]
}

# What to say when a method's required parameter is missing or of the wrong type.
PARAM_HINTS = {
    "tools/call": "send params.name (a tool from tools/list) and params.arguments (an object)",
    "resources/read": "send params.uri (from resources/list)",
    "prompts/get": "send params.name",
}


def _params_error(obj: dict[str, Any]) -> str | None:
    """A -32602 message naming the bad parameter, or None when params fit the method."""
    method = obj["method"]
    model = _REQUEST_TYPES.get(method)
    if model is None or method == "initialize":
        return None  # the SDK answers a bad initialize itself (and no session is kept)
    try:
        model.model_validate({"method": method, "params": obj.get("params")})
    except ValidationError as err:
        problems = []
        for detail in err.errors():
            path = ".".join(str(p) for p in detail["loc"]) or "params"
            problems.append(f"{path}: {detail['msg']}")
        hint = PARAM_HINTS.get(method, "see the method's parameters in the MCP specification")
        return f"Invalid params for {method}: {'; '.join(dict.fromkeys(problems))}; {hint}"
    return None


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, float):
        return "a non-integer number"
    return "an object" if isinstance(value, dict) else "an array"


def dump(message: types.JSONRPCMessage) -> str:
    """Wire form of an outgoing message; a lone surrogate that reached one (text a tool
    echoed back) is written as U+FFFD instead of failing the transport."""
    try:
        return message.model_dump_json(by_alias=True, exclude_none=True)
    except ValueError:  # pydantic's serialization error (a lone surrogate in a string)
        data = message.model_dump(mode="python", by_alias=True, exclude_none=True)
        return json.dumps(_scrubbed(data), default=str)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _scrubbed(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_scrubbed(k): _scrubbed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrubbed(v) for v in value]
    return value
