"""OpenAPI 3.1 document generated from the live route table."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from . import __version__

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .rest.registry import Endpoint

ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {
                    "type": "string",
                    "enum": [
                        "invalid_argument",
                        "unauthorized",
                        "forbidden",
                        "not_found",
                        "request_timeout",
                        "payload_too_large",
                        "rate_limited",
                        "unavailable",
                        "internal",
                    ],
                },
                "message": {"type": "string"},
            },
        }
    },
}


def build_openapi(endpoints: Iterable[Endpoint]) -> dict[str, Any]:
    """Describe every documented endpoint, its body, parameters and errors."""
    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {"Error": ERROR_SCHEMA}
    for ep in endpoints:
        if not ep.openapi:
            continue
        op: dict[str, Any] = {
            "summary": ep.summary,
            "tags": [ep.tag],
            "operationId": f"{ep.method.lower()}_{re.sub(r'[^a-z0-9]+', '_', ep.path.lower())}",
            "responses": {
                "200": {
                    "description": "OK",
                    "content": {ep.content_type: {"schema": ep.response or {"type": "object"}}},
                },
                "default": {
                    "description": "Error",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                    },
                },
            },
        }
        params = [
            {
                "name": name,
                "in": "query",
                "required": False,
                "schema": {"type": "string"},
                "description": desc,
            }
            for name, desc in ep.query.items()
        ]
        params += [
            {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
            for name in re.findall(r"{(\w+)}", ep.path)
        ]
        if params:
            op["parameters"] = params
        if ep.body is not None:
            schema = ep.body.model_json_schema(ref_template="#/components/schemas/{model}")
            schemas.update(schema.pop("$defs", {}))
            schemas[ep.body.__name__] = schema
            op["requestBody"] = {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": {"$ref": f"#/components/schemas/{ep.body.__name__}"}
                    }
                },
            }
        if ep.access.value != "public":
            op["security"] = [{"bearer": []}, {"apiKey": []}]
        paths.setdefault(ep.path, {})[ep.method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Mnemolis",
            "version": __version__,
            "description": "Local-first knowledge router for Home Assistant homes.",
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
            },
        },
    }
