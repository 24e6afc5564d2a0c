"""Tool input schemas in the plain JSON Schema subset every MCP client understands.

pydantic emits ``anyOf: [X, null]`` for optional fields, ``$ref``/``$defs``
for nested models and array-size keywords. Some clients cannot read those —
Home Assistant 2025.4's ``mcp`` integration (voluptuous-openapi) refuses the
whole server over one ``anyOf``. The server still validates the full rules
with pydantic; the advertised schema keeps their meaning in plain words.
"""

from __future__ import annotations

import copy
from typing import Any

_SIZE_WORDS = {"minItems": "{} or more items", "maxItems": "up to {} items"}
_DROPPED = ("title", "uniqueItems", "multipleOf")


def portable_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Inline ``$ref``s, turn nullable unions into optional fields, drop exotic keywords."""
    defs = schema.get("$defs", {})
    out: dict[str, Any] = _simplify(copy.deepcopy(schema), defs)
    out.pop("$defs", None)
    return out


def _resolve(node: dict[str, Any], defs: dict[str, Any], depth: int) -> dict[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and depth < 16:
        target = copy.deepcopy(defs.get(ref.removeprefix("#/$defs/"), {}))
        extra = {k: v for k, v in node.items() if k != "$ref"}
        return _resolve({**target, **extra}, defs, depth + 1)
    return node


def _simplify(node: Any, defs: dict[str, Any], depth: int = 0) -> Any:
    if not isinstance(node, dict):
        return node
    node = _resolve(node, defs, depth)
    all_of = node.pop("allOf", None)
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        node = {**_resolve(all_of[0], defs, depth), **node}
    any_of = node.pop("anyOf", None)
    if isinstance(any_of, list):
        options = [o for o in any_of if not (isinstance(o, dict) and o.get("type") == "null")]
        if len(options) == 1 and isinstance(options[0], dict):
            node = {**_resolve(options[0], defs, depth), **node}
        elif options:
            node["oneOf"] = options
        if node.get("default", 0) is None:
            del node["default"]
    notes = [words.format(node.pop(key)) for key, words in _SIZE_WORDS.items() if key in node]
    if notes:
        text = node.get("description", "").rstrip(". ")
        node["description"] = (text + " (" if text else "(") + ", ".join(notes) + ")."
    for key in _DROPPED:
        if key in node and not isinstance(node[key], dict):
            del node[key]
    if isinstance(node.get("properties"), dict):
        node["properties"] = {
            name: _simplify(sub, defs, depth + 1) for name, sub in node["properties"].items()
        }
    if "items" in node:
        node["items"] = _simplify(node["items"], defs, depth + 1)
    if "oneOf" in node:
        node["oneOf"] = [_simplify(o, defs, depth + 1) for o in node["oneOf"]]
    return node
