"""JSON-RPC framing shared by every transport: decode, pre-check, error objects."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import mcp.types as types
from pydantic import ValidationError

from .server import CLIENT_METHODS

PARSE_ERROR = types.PARSE_ERROR
INVALID_REQUEST = types.INVALID_REQUEST
METHOD_NOT_FOUND = types.METHOD_NOT_FOUND
INVALID_PARAMS = types.INVALID_PARAMS
INTERNAL_ERROR = types.INTERNAL_ERROR

RequestId = str | int
# What goes out to a client: a server message or a transport-made error object.
Outgoing = types.JSONRPCMessage | dict[str, Any]


def rpc_error(request_id: RequestId | None, code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC error object (``id`` is null when the request id is unknown)."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


@dataclass(slots=True)
class Decoded:
    """One incoming element: a valid message, or the error to answer instead."""

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
    request_id: RequestId | None = raw_id if isinstance(raw_id, str | int) else None
    if not isinstance(obj, dict):
        return Decoded(error=rpc_error(None, INVALID_REQUEST, "Invalid Request: not an object"))
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
    if isinstance(root, types.JSONRPCRequest) and root.method not in CLIENT_METHODS:
        return Decoded(
            error=rpc_error(root.id, METHOD_NOT_FOUND, f"Method not found: {root.method}")
        )
    return Decoded(message=message)


def dump(message: types.JSONRPCMessage) -> str:
    """Wire form of an outgoing message."""
    return message.model_dump_json(by_alias=True, exclude_none=True)
